package apitest_test

import (
	"net/http"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/payments"
)

// reviewPaths are the review routes of the world's current job.
func (w *payWorld) reviewPath(suffix string) string { return "/api/jobs/" + w.job.Id + suffix }

// confirmed is a fresh job paid, held, completed and confirmed by the
// client (LIBERADO) at the world's clock: the completion starts the
// 7-day review window.
func (w *payWorld) confirmed(t *testing.T) string {
	t.Helper()
	id, _ := w.completed(t)
	testkit.Expect(t, w.K.Post(w.jobPath("/confirm"), w.ClientCookie, nil), http.StatusOK, "")
	return id
}

// listed is the camello's public review listing: its count and average.
func (w *payWorld) listed(t *testing.T) (float64, float64) {
	t.Helper()
	r := w.K.Get("/api/camellos/"+w.Camello.Id+"/reviews", "")
	testkit.Expect(t, r, http.StatusOK, "")
	return r.Get("count").(float64), r.Get("average").(float64)
}

func (w *payWorld) rating(t *testing.T) (float64, int) {
	t.Helper()
	cam, err := camellos.Find(w.K.App, w.Camello.Id)
	if err != nil {
		t.Fatal(err)
	}
	return cam.GetFloat("ratingAvg"), cam.GetInt("ratingCount")
}

func reviewBody(rating int, comment string) map[string]any {
	return map[string]any{"rating": rating, "comment": comment}
}

// TestReviewOfAnUnpaidJobIsPublishedAtOnce: a job with no payment row keeps
// the interface's contract to the letter (the answer's keys, published at
// once, in the listing and the rating); the camello writes no review of
// the client there.
func TestReviewOfAnUnpaidJobIsPublishedAtOnce(t *testing.T) {
	w := newPayWorld(t, nil)
	w.job = w.Job(jobs.StatusCompleted)
	r := w.K.Post(w.reviewPath("/review"), w.ClientCookie, reviewBody(4, "Muy cumplido"))
	testkit.Expect(t, r, http.StatusCreated, "")
	review := r.Get("review").(map[string]any)
	keys := make([]string, 0, len(review))
	for k := range review {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := "[camelloId comment createdAt id jobId rating]"; sprint(keys) != want {
		t.Fatalf("answer keys %v, want %s", keys, want)
	}
	if n, avg := w.listed(t); n != 1 || avg != 4 {
		t.Fatalf("listing %v reviews, average %v", n, avg)
	}
	testkit.Expect(t, w.K.Post(w.reviewPath("/client-review"), w.CamCookie, reviewBody(5, "")), http.StatusConflict, camellos.MsgClientReviewNotPaid)
	st := w.K.Get(w.reviewPath("/reviews"), w.CamCookie)
	testkit.Expect(t, st, http.StatusOK, "")
	if st.Get("reviews.blind") != false || st.Get("reviews.client.published") != true || st.Get("reviews.client.review.rating") != float64(4) {
		t.Fatalf("state: %s", st.Raw)
	}
}

func sprint(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

// TestDoubleBlindReviews walks both sides over HTTP on a paid job: every
// role of both routes, the first review sealed (not in the listing, the
// rating, nor the other side's view), the second publishing both at once,
// one review per side.
func TestDoubleBlindReviews(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	w.confirmed(t)
	for _, tc := range []struct {
		name, path, cookie string
		status             int
		msg                string
	}{
		{"anonymous client review", "/review", "", 401, ""},
		{"stranger client review", "/review", w.StrangerCookie, 404, ""},
		{"camello writes the client's", "/review", w.CamCookie, 403, jobs.MsgOnlyClient},
		{"admin client review", "/review", w.AdminCookie, 403, jobs.MsgOnlyClient},
		{"anonymous camello review", "/client-review", "", 401, ""},
		{"stranger camello review", "/client-review", w.StrangerCookie, 404, ""},
		{"client writes the camello's", "/client-review", w.ClientCookie, 403, jobs.MsgOnlyCamelloReviews},
		{"admin camello review", "/client-review", w.AdminCookie, 403, jobs.MsgOnlyCamelloReviews},
		{"anonymous state", "/reviews", "", 401, ""},
		{"stranger state", "/reviews", w.StrangerCookie, 404, ""},
	} {
		var r *testkit.Response
		if tc.path == "/reviews" {
			r = k.Get(w.reviewPath(tc.path), tc.cookie)
		} else {
			r = k.Post(w.reviewPath(tc.path), tc.cookie, reviewBody(5, "Bien"))
		}
		if r.Status != tc.status || (tc.msg != "" && r.Error() != tc.msg) {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}

	r := k.Post(w.reviewPath("/review"), w.ClientCookie, reviewBody(2, "Llegó tarde"))
	testkit.Expect(t, r, http.StatusCreated, "")
	if r.Get("review.published") != false || r.Str("review.publishAt") == "" {
		t.Fatalf("first review: %s", r.Raw)
	}
	if n, _ := w.listed(t); n != 0 {
		t.Fatalf("a sealed review is listed (%v)", n)
	}
	if avg, n := w.rating(t); n != 0 || avg != 0 {
		t.Fatalf("a sealed review is rated: %v/%d", avg, n)
	}
	cam := k.Get(w.reviewPath("/reviews"), w.CamCookie)
	if cam.Get("reviews.blind") != true || cam.Get("reviews.client.written") != true || cam.Get("reviews.client.review") != nil ||
		cam.Get("reviews.canReview") != true || cam.Str("reviews.windowEndsAt") == "" {
		t.Fatalf("the camello's view of a sealed review: %s", cam.Raw)
	}
	cli := k.Get(w.reviewPath("/reviews"), w.ClientCookie)
	if cli.Get("reviews.client.review.rating") != float64(2) || cli.Get("reviews.canReview") != false {
		t.Fatalf("the author's view: %s", cli.Raw)
	}
	adm := k.Get(w.reviewPath("/reviews"), w.AdminCookie)
	if adm.Get("reviews.client.review.rating") != float64(2) {
		t.Fatalf("the admin's view: %s", adm.Raw)
	}
	testkit.Expect(t, k.Post(w.reviewPath("/review"), w.ClientCookie, reviewBody(5, "")), http.StatusConflict, jobs.MsgAlreadyReviewed)

	r = k.Post(w.reviewPath("/client-review"), w.CamCookie, reviewBody(5, "Amable y puntual con el pago"))
	testkit.Expect(t, r, http.StatusCreated, "")
	if r.Get("review.published") != true {
		t.Fatalf("second review: %s", r.Raw)
	}
	if n, avg := w.listed(t); n != 1 || avg != 2 {
		t.Fatalf("after both wrote: %v reviews, average %v", n, avg)
	}
	if avg, n := w.rating(t); n != 1 || avg != 2 {
		t.Fatalf("rating after both wrote: %v/%d", avg, n)
	}
	cli = k.Get(w.reviewPath("/reviews"), w.ClientCookie)
	if cli.Get("reviews.camello.review.rating") != float64(5) || cli.Get("reviews.client.published") != true {
		t.Fatalf("the client's view once published: %s", cli.Raw)
	}
	testkit.Expect(t, k.Post(w.reviewPath("/client-review"), w.CamCookie, reviewBody(1, "")), http.StatusConflict, jobs.MsgClientReviewed)
}

// TestReviewWindow: 7 days from the completion, one second inside and
// exactly at the end, for both sides; the end of the window publishes a
// sealed review through the sweep (claimed once by racing sweeps), in the
// listing and the rating.
func TestReviewWindow(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	// the in-process sweep would see this test's clock moved by weeks: the
	// test runs the sweep itself
	k.App.Cron().Remove("reviewsPublishDue")
	var ends []time.Time
	for _, tc := range []struct {
		name, path, cookie string
		after              time.Duration
		status             int
		msg                string
	}{
		{"client just inside", "/review", "client", payments.ReviewWindow - time.Second, 201, ""},
		{"client at the end", "/review", "client", payments.ReviewWindow, 409, payments.MsgReviewWindowOver},
		{"camello just inside", "/client-review", "camello", payments.ReviewWindow - time.Second, 201, ""},
		{"camello at the end", "/client-review", "camello", payments.ReviewWindow, 409, payments.MsgReviewWindowOver},
	} {
		w.confirmed(t)
		w.advance(tc.after)
		cookie := w.ClientCookie
		if tc.cookie == "camello" {
			cookie = w.CamCookie
		}
		r := k.Post(w.reviewPath(tc.path), cookie, reviewBody(3, ""))
		if r.Status != tc.status || (tc.msg != "" && r.Error() != tc.msg) {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
		if tc.status == 201 {
			at, err := time.Parse(time.RFC3339, r.Str("review.publishAt"))
			if err != nil || r.Get("review.published") != false || !at.Equal(w.clock().Add(time.Second)) {
				t.Fatalf("%s: %s", tc.name, r.Raw)
			}
			ends = append(ends, at)
			if n, _ := w.listed(t); n != 0 {
				t.Fatalf("%s: a sealed review is listed", tc.name)
			}
		}
	}
	// one second before the first one's end nothing is published
	if n, err := camellos.PublishDue(k.App, ends[0].Add(-time.Second)); err != nil || n != 0 {
		t.Fatalf("published early: %d %v", n, err)
	}
	w.mu.Lock()
	w.now = ends[1]
	w.mu.Unlock()
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := camellos.PublishDue(k.App, w.clock())
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if total != 2 {
		t.Fatalf("racing sweeps published %d reviews, want 2 (one each side)", total)
	}
	if n, avg := w.listed(t); n != 1 || avg != 3 {
		t.Fatalf("after the window: %v reviews, average %v", n, avg)
	}
	if avg, n := w.rating(t); n != 1 || avg != 3 {
		t.Fatalf("rating after the window: %v/%d", avg, n)
	}
	if n, _ := camellos.PublishDue(k.App, w.clock()); n != 0 {
		t.Fatalf("published again: %d", n)
	}
}

// TestReviewRefusedUnlessSettled: a paid job is reviewed only once its
// payment is released or split: held (completed, not yet confirmed),
// refunded, and cash not confirmed by the client are refused with 409.
func TestReviewRefusedUnlessSettled(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	w.completed(t) // held, window open
	for _, p := range []string{"/review", "/client-review"} {
		cookie := w.ClientCookie
		if p == "/client-review" {
			cookie = w.CamCookie
		}
		testkit.Expect(t, k.Post(w.reviewPath(p), cookie, reviewBody(4, "")), http.StatusConflict, payments.MsgReviewNotSettled)
	}
	st := k.Get(w.reviewPath("/reviews"), w.ClientCookie)
	if st.Get("reviews.canReview") != false || st.Str("reviews.refusal") != payments.MsgReviewNotSettled {
		t.Fatalf("state while held: %s", st.Raw)
	}

	// refunded by a dispute's resolution
	id, _ := w.completed(t)
	testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "No terminó el trabajo"}), http.StatusOK, "")
	testkit.Expect(t, k.Post("/api/admin/disputes/"+id+"/resolve", w.AdminCookie, map[string]any{"outcome": "REEMBOLSAR"}), http.StatusOK, "")
	if st := w.status(t, id).Status(); st != payments.StatusRefunded {
		t.Fatalf("refund resolution left %s", st)
	}
	testkit.Expect(t, k.Post(w.reviewPath("/review"), w.ClientCookie, reviewBody(1, "")), http.StatusConflict, payments.MsgReviewRefunded)
	testkit.Expect(t, k.Post(w.reviewPath("/client-review"), w.CamCookie, reviewBody(1, "")), http.StatusConflict, payments.MsgReviewRefunded)

	// cash: reviewable once the client confirms it
	w.job = w.pricedJob(t)
	testkit.Expect(t, k.Post(w.reviewPath("/start"), w.CamCookie, nil), http.StatusOK, "")
	testkit.Expect(t, k.Post(w.reviewPath("/complete"), w.CamCookie, nil), http.StatusOK, "")
	testkit.Expect(t, k.Post(w.jobPath("/cash"), w.CamCookie, nil), http.StatusCreated, "")
	testkit.Expect(t, k.Post(w.reviewPath("/review"), w.ClientCookie, reviewBody(5, "")), http.StatusConflict, payments.MsgReviewCashUnconfirmd)
	testkit.Expect(t, k.Post(w.jobPath("/cash/confirm"), w.ClientCookie, nil), http.StatusOK, "")
	r := k.Post(w.reviewPath("/review"), w.ClientCookie, reviewBody(5, "Todo bien"))
	testkit.Expect(t, r, http.StatusCreated, "")
	if r.Get("review.published") != false {
		t.Fatalf("cash review: %s", r.Raw)
	}
}

// TestBothSidesReviewAtOnce: the client and the camello write at the same
// moment, many times over fresh jobs: both reviews are accepted and both
// end published, whichever commits first.
func TestBothSidesReviewAtOnce(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	const rounds = 4
	for i := range rounds {
		w.confirmed(t)
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for j, p := range []struct{ path, cookie string }{{"/review", w.ClientCookie}, {"/client-review", w.CamCookie}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[j] = k.Post(w.reviewPath(p.path), p.cookie, reviewBody(4, "")).Status
			}()
		}
		wg.Wait()
		if codes[0] != 201 || codes[1] != 201 {
			t.Fatalf("round %d: %v", i, codes)
		}
		st := k.Get(w.reviewPath("/reviews"), w.AdminCookie)
		if st.Get("reviews.client.published") != true || st.Get("reviews.camello.published") != true {
			t.Fatalf("round %d: %s", i, st.Raw)
		}
	}
	if n, _ := w.listed(t); n != rounds {
		t.Fatalf("%v reviews listed, want %d", n, rounds)
	}
}

// TestClientConfirmsCash: only the job's client confirms the cash payment
// its camello recorded, once (racing confirmations: one 200); the ledger
// keeps the one commission the camello owes; the camello is told.
func TestClientConfirmsCash(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	confirm := w.jobPath("/cash/confirm")
	testkit.Expect(t, k.Post(confirm, w.ClientCookie, nil), http.StatusConflict, payments.MsgNotCash)
	testkit.Expect(t, k.Post(w.jobPath("/cash"), w.CamCookie, nil), http.StatusCreated, "")
	for _, tc := range []struct {
		name, cookie string
		status       int
		msg          string
	}{
		{"anonymous", "", 401, ""},
		{"camello", w.CamCookie, 403, payments.MsgOnlyClientCash},
		{"admin", w.AdminCookie, 403, payments.MsgOnlyClientCash},
		{"stranger", w.StrangerCookie, 403, payments.MsgOnlyClientCash},
	} {
		if r := k.Post(confirm, tc.cookie, nil); r.Status != tc.status || (tc.msg != "" && r.Error() != tc.msg) {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	if got := concurrently(6, func(int) int { return k.Post(confirm, w.ClientCookie, nil).Status }); got[200] != 1 || got[409] != 5 {
		t.Fatalf("racing confirmations answered %v", got)
	}
	view := k.Get(w.jobPath(""), w.CamCookie)
	if view.Str("payment.cashConfirmedAt") == "" || view.Str("payment.status") != payments.StatusReleased {
		t.Fatalf("confirmed cash: %s", view.Raw)
	}
	fee := payments.Commission(price, 10)
	if rep := verified(t, app); rep.PlatformRevenue != -fee {
		t.Fatalf("revenue %d, want %d", rep.PlatformRevenue, -fee)
	}
	if countTitle(k, w.CamUser.Id, "Pago en efectivo confirmado") != 1 {
		t.Fatal("the camello is told once")
	}
	testkit.Expect(t, k.Post(confirm, w.ClientCookie, nil), http.StatusConflict, payments.MsgCashConfirmed)
}

// TestErasureWaitsForPayments: an erasure is refused (409, nothing
// changed) while the person's money moves — held, in dispute, a payout the
// bank has not paid — and goes through once it settled; the books stay.
func TestErasureWaitsForPayments(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	erase := func(cookie string) *testkit.Response {
		return k.Delete("/api/me", cookie, map[string]any{"password": testkit.DefaultPassword})
	}
	// the world's first job (ASIGNADO, unpaid) would refuse the erasure itself
	testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/cancel", w.ClientCookie, nil), http.StatusOK, "")
	id, _ := w.completed(t) // RETENIDO, the job COMPLETADO
	testkit.Expect(t, erase(w.ClientCookie), http.StatusConflict, payments.MsgPaymentUnderWay)
	testkit.Expect(t, erase(w.CamCookie), http.StatusConflict, payments.MsgPaymentUnderWay)
	testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "Quedó una fuga en el baño"}), http.StatusOK, "")
	testkit.Expect(t, erase(w.ClientCookie), http.StatusConflict, payments.MsgPaymentUnderWay)
	if k.Get("/api/me", w.ClientCookie).Status != http.StatusOK || k.Get("/api/me", w.CamCookie).Status != http.StatusOK {
		t.Fatal("a refused erasure signed someone out")
	}
	testkit.Expect(t, k.Post("/api/admin/disputes/"+id+"/resolve", w.AdminCookie, map[string]any{"outcome": "LIBERAR"}), http.StatusOK, "")
	batch := k.Post("/api/admin/payouts/batches", w.AdminCookie, nil)
	testkit.Expect(t, batch, http.StatusCreated, "")
	testkit.Expect(t, erase(w.CamCookie), http.StatusConflict, payments.MsgPaymentUnderWay)
	testkit.Expect(t, k.Post("/api/admin/payouts/"+batch.Str("payouts.0.id")+"/paid", w.AdminCookie, map[string]any{"reference": "B-1"}), http.StatusOK, "")
	testkit.Expect(t, erase(w.CamCookie), http.StatusOK, "")
	testkit.Expect(t, erase(w.ClientCookie), http.StatusOK, "")
	if p := w.status(t, id); p.Status() != payments.StatusReleased {
		t.Fatalf("the payment after the erasures: %s", p.Status())
	}
	verified(t, k.App)
}

// TestSecondApprovedPaymentRefunded: a client who pays twice in one
// checkout gets the second payment back by itself — refunded in full at
// Mercado Pago once, the ledger's charge and refund netting the client's
// account to zero — while the first stays held; the sweep afterwards
// refunds nothing again.
func TestSecondApprovedPaymentRefunded(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	id, pref := w.started(t)
	first := w.mp.Pay(t, pref.ID, "approved", "accredited")
	if got := w.deliver(w.mp.Notification(first)); got != http.StatusOK {
		t.Fatalf("webhook %d", got)
	}
	second := w.mp.Pay(t, pref.ID, "approved", "accredited")
	for range 2 { // delivered twice: one refund
		if got := w.deliver(w.mp.Notification(second)); got != http.StatusOK {
			t.Fatalf("webhook %d", got)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for w.status(t, id).GetBool("duplicateDue") || w.mp.Refunded(second) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the second payment was not refunded (duplicateDue %v, refunded %v)", w.status(t, id).GetBool("duplicateDue"), w.mp.Refunded(second))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := payments.RefundsDue(app); err != nil {
		t.Fatal(err)
	}
	if w.mp.Refunded(second) != price || w.mp.Refunded(first) != 0 {
		t.Fatalf("refunded at Mercado Pago: second %v, first %v", w.mp.Refunded(second), w.mp.Refunded(first))
	}
	p := w.status(t, id)
	if p.Status() != payments.StatusHeld || p.GetString("gatewayPaymentId") != strconv.Itoa(first) {
		t.Fatalf("the first payment: %s %s", p.Status(), p.GetString("gatewayPaymentId"))
	}
	if m := movements(t, app, id); m["charge"] != 2 || m["hold"] != 1 || m["refund"] != 1 {
		t.Fatalf("movements %v", m)
	}
	if b := balance(t, app, ledger.AccountOfClient(w.Client.Id)); b != 0 {
		t.Fatalf("the client's account is %d after the duplicate's refund", b)
	}
	if countTitle(k, w.Client.Id, "Pago repetido reembolsado") != 1 {
		t.Fatal("the client is told once of the duplicate's refund")
	}
	verified(t, app)
}

// concurrently runs f(0…n-1) at once and counts the statuses answered.
func concurrently(n int, f func(i int) int) map[int]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[int]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := f(i)
			mu.Lock()
			got[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return got
}
