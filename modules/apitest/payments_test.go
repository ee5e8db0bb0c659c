package apitest_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/mptest"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/payments"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const price = 180_000

// payWorld is the service with Mercado Pago's test server, a client, a
// camello and a job assigned at an agreed price, and one clock for both.
type payWorld struct {
	*testkit.Parties
	mp  *mptest.Server
	job *core.Record

	mu  sync.Mutex
	now time.Time
}

func (w *payWorld) clock() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.now
}

func (w *payWorld) advance(d time.Duration) {
	w.mu.Lock()
	w.now = w.now.Add(d)
	w.mu.Unlock()
}

func newPayWorld(t *testing.T, client func(mp *mptest.Server) *http.Client) *payWorld {
	t.Helper()
	mp := mptest.New(t)
	t.Setenv("AUTH_IP_LIMIT", "0")
	t.Setenv("MERCADOPAGO_ACCESS_TOKEN", mp.Token)
	t.Setenv("MERCADOPAGO_WEBHOOK_SECRET", mp.Secret)
	t.Setenv("MERCADOPAGO_API_URL", mp.URL)
	w := &payWorld{mp: mp, now: time.Now().UTC().Truncate(time.Second)}
	mp.Now = w.clock
	httpClient := mp.Client()
	if client != nil {
		httpClient = client(mp)
	}
	w.Parties = testkit.NewParties(t, func(app *tests.TestApp) {
		payments.SetHTTPClient(app, httpClient)
		clock.Set(app, w.clock)
	})
	mp.Webhook = w.K.URL + payments.WebhookPath
	w.job = w.pricedJob(t)
	return w
}

// pricedJob is a job of the client assigned to the camello at price.
func (w *payWorld) pricedJob(t *testing.T) *core.Record {
	t.Helper()
	job := w.Job(jobs.StatusPending)
	if err := jobs.AssignQuoted(w.K.App, job.Id, w.Camello.Id, price); err != nil {
		t.Fatal(err)
	}
	return job
}

func (w *payWorld) pay(t *testing.T) *testkit.Response {
	t.Helper()
	return w.K.Post("/api/jobs/"+w.job.Id+"/payment", w.ClientCookie, nil)
}

func (w *payWorld) deliver(d *mptest.Delivery) int { return mptest.Deliver(w.K.Client, d) }

// started pays and answers the payment id and its preference.
func (w *payWorld) started(t *testing.T) (string, *mptest.Preference) {
	t.Helper()
	r := w.pay(t)
	testkit.Expect(t, r, http.StatusCreated, "")
	id := r.Str("payment.id")
	pref := w.mp.PreferenceByRef(id)
	if pref == nil {
		t.Fatalf("no preference with external_reference %s", id)
	}
	return id, pref
}

func (w *payWorld) status(t *testing.T, id string) *payments.Payment {
	t.Helper()
	p, err := payments.Find(w.K.App, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func balance(t *testing.T, app core.App, account string) int64 {
	t.Helper()
	b, err := ledger.Balance(app, account)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// verified fails unless the ledger passes Verify.
func verified(t *testing.T, app core.App) ledger.Report {
	t.Helper()
	r, err := ledger.Verify(app)
	if err != nil || !r.OK() {
		t.Fatalf("ledger verify: %v\n%s", err, r)
	}
	return r
}

// movements counts the ledger transactions of a payment by kind.
func movements(t *testing.T, app core.App, paymentID string) map[string]int {
	t.Helper()
	txs, err := ledger.ByRef(app, paymentID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, tx := range txs {
		out[tx.Kind]++
	}
	return out
}

// TestPayAndHold walks a payment over HTTP: who may pay, the checkout the
// SDK created on the test server (price, reference, return and
// notification URLs), one payment for any number of attempts, the approval
// by a signed webhook, the money held in a balanced ledger.
func TestPayAndHold(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	path := "/api/jobs/" + w.job.Id + "/payment"

	// Who may pay.
	testkit.Expect(t, k.Post(path, "", nil), http.StatusUnauthorized, "")
	testkit.Expect(t, k.Post(path, w.CamCookie, nil), http.StatusForbidden, payments.MsgOnlyClientPays)
	testkit.Expect(t, k.Post(path, w.StrangerCookie, nil), http.StatusForbidden, payments.MsgOnlyClientPays)
	testkit.Expect(t, k.Post(path, w.AdminCookie, nil), http.StatusForbidden, payments.MsgOnlyClientPays)
	testkit.Expect(t, k.Post("/api/jobs/zzzzzzzzzzzzzzz/payment", w.ClientCookie, nil), http.StatusNotFound, payments.MsgJobNotFound)
	unpriced := w.Job(jobs.StatusPending)
	testkit.Expect(t, k.Post("/api/jobs/"+unpriced.Id+"/payment", w.ClientCookie, nil), http.StatusConflict, payments.MsgNotPayable)
	// No payment yet: 200 with payment null and the terms to read before paying.
	none := k.Get(path, w.ClientCookie)
	testkit.Expect(t, none, http.StatusOK, "")
	if none.Get("payment") != nil || none.Get("cancellation.policy") == nil {
		t.Fatalf("no payment yet: %s", none.Raw)
	}
	testkit.Expect(t, k.Get(path, w.StrangerCookie), http.StatusForbidden, payments.MsgNotParty)

	id, pref := w.started(t)
	p := w.status(t, id)
	if p.Status() != payments.StatusPending || p.Amount() != price {
		t.Fatalf("payment %s %d", p.Status(), p.Amount())
	}
	if len(pref.Items) != 1 || pref.Items[0].UnitPrice != price || pref.Items[0].CurrencyID != "COP" || pref.Items[0].Quantity != 1 {
		t.Fatalf("preference items %+v", pref.Items)
	}
	if pref.NotificationURL != "http://127.0.0.1:8090"+payments.WebhookPath+"?source_news=webhooks" ||
		pref.BackURLs["success"] != "http://127.0.0.1:8090/trabajo.html?id="+w.job.Id+"&pago="+id || pref.AutoReturn != "approved" {
		t.Fatalf("preference urls %+v %q", pref.BackURLs, pref.NotificationURL)
	}
	// Paying again (a double click, a second tab) is the same payment and checkout.
	again := w.pay(t)
	testkit.Expect(t, again, http.StatusOK, "")
	if again.Str("payment.id") != id || again.Str("payment.checkoutUrl") != pref.InitPoint || w.mp.Preferences() != 1 {
		t.Fatalf("second attempt: %s (preferences %d)", again.Raw, w.mp.Preferences())
	}
	// The camello sees the payment, not the checkout link; a stranger nothing.
	view := k.Get(path, w.CamCookie)
	testkit.Expect(t, view, http.StatusOK, "")
	if view.Str("payment.status") != payments.StatusPending || view.Get("payment.checkoutUrl") != nil {
		t.Fatalf("camello view: %s", view.Raw)
	}
	testkit.Expect(t, k.Get(path, w.StrangerCookie), http.StatusForbidden, payments.MsgNotParty)

	// The buyer pays; Mercado Pago notifies.
	gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
	d := w.mp.Notification(gid)
	if got := w.deliver(d); got != http.StatusOK {
		t.Fatalf("webhook: %d", got)
	}
	p = w.status(t, id)
	if p.Status() != payments.StatusHeld || p.GetString("gatewayPaymentId") != strconv.Itoa(gid) || p.GetInt("heldAmount") != price {
		t.Fatalf("after approval: %s %q %d", p.Status(), p.GetString("gatewayPaymentId"), p.GetInt("heldAmount"))
	}
	app := k.App
	if b := balance(t, app, ledger.AccountOfHeld(id)); b != -price {
		t.Fatalf("held %d", b)
	}
	if b := balance(t, app, ledger.AccountOfClient(w.Client.Id)); b != 0 {
		t.Fatalf("client account %d", b)
	}
	rep := verified(t, app)
	if rep.ClientPayments != price {
		t.Fatalf("client_payments %d", rep.ClientPayments)
	}
	view = k.Get(path, w.ClientCookie)
	if view.Str("payment.status") != payments.StatusHeld || view.Get("payment.checkoutUrl") != nil {
		t.Fatalf("client view: %s", view.Raw)
	}
	if moves, _ := view.Get("payment.movements").([]any); len(moves) != 2 || view.Str("payment.movements.0.kind") != ledger.KindCharge ||
		view.Get("payment.movements.0.amount") != float64(price) || view.Str("payment.movements.1.kind") != ledger.KindHold {
		t.Fatalf("movements: %s", view.Raw)
	}
	testkit.Expect(t, w.pay(t), http.StatusConflict, payments.MsgAlreadyPaid)
}

// TestWebhookDeliveries: duplicated, reordered, delayed, forged, replayed
// and irrelevant notifications; a gateway outage; rejected card then
// approval in one checkout; a refund. Every transition happens once.
func TestWebhookDeliveries(t *testing.T) {
	w := newPayWorld(t, nil)
	app := w.K.App
	id, pref := w.started(t)

	// A rejected card: the payment stays PENDIENTE, showing why; the client retries in the same checkout.
	rejected := w.mp.Pay(t, pref.ID, "rejected", "cc_rejected_insufficient_amount")
	if got := w.deliver(w.mp.Notification(rejected)); got != http.StatusOK {
		t.Fatalf("rejected: %d", got)
	}
	if p := w.status(t, id); p.Status() != payments.StatusPending || p.GetString("gatewayDetail") != "cc_rejected_insufficient_amount" {
		t.Fatalf("after rejection: %s %s", p.Status(), p.GetString("gatewayDetail"))
	}
	// PSE: pending, then approved; the pending notification arrives last.
	pse := w.mp.Pay(t, pref.ID, "pending", "pending_waiting_transfer")
	late := w.mp.Notification(pse)
	w.advance(time.Minute)
	w.mp.SetStatus(t, pse, "approved", "accredited")
	approval := w.mp.Notification(pse)

	// Forged: the right shape, the wrong secret; a signature over another id; none at all.
	if got := w.deliver(w.mp.NotificationSignedWith(pse, "otro-secreto")); got != http.StatusUnauthorized {
		t.Fatalf("forged: %d", got)
	}
	tampered := *approval
	tampered.URL = w.mp.Webhook + "?data.id=" + strconv.Itoa(rejected) + "&type=payment"
	if got := w.deliver(&tampered); got != http.StatusUnauthorized {
		t.Fatalf("signature of another id: %d", got)
	}
	unsigned := *approval
	unsigned.Headers = map[string]string{"Content-Type": "application/json"}
	if got := w.deliver(&unsigned); got != http.StatusUnauthorized {
		t.Fatalf("unsigned: %d", got)
	}
	if p := w.status(t, id); p.Status() != payments.StatusPending {
		t.Fatalf("a refused notification changed the payment: %s", p.Status())
	}

	// An outage at the gateway: 502, Mercado Pago delivers again later.
	w.mp.FailNext(1)
	if got := w.deliver(approval); got != http.StatusBadGateway {
		t.Fatalf("during an outage: %d", got)
	}
	// Delivered, then duplicated, then the late pending one.
	for i, d := range []*mptest.Delivery{approval, approval, w.mp.Notification(pse), late} {
		if got := w.deliver(d); got != http.StatusOK {
			t.Fatalf("delivery %d: %d", i, got)
		}
	}
	p := w.status(t, id)
	if p.Status() != payments.StatusHeld || p.GetString("gatewayPaymentId") != strconv.Itoa(pse) {
		t.Fatalf("after approval: %s %s", p.Status(), p.GetString("gatewayPaymentId"))
	}
	if m := movements(t, app, id); m[ledger.KindCharge] != 1 || m[ledger.KindHold] != 1 || len(m) != 2 {
		t.Fatalf("movements %v", m)
	}
	// A late rejection of the first attempt does not undo the approval.
	if got := w.deliver(w.mp.Notification(rejected)); got != http.StatusOK || w.status(t, id).Status() != payments.StatusHeld {
		t.Fatalf("late rejection: %d %s", got, w.status(t, id).Status())
	}
	// Replayed past the window: refused; within it: harmless.
	w.advance(payments.SignatureMaxAge + time.Minute)
	if got := w.deliver(approval); got != http.StatusUnauthorized {
		t.Fatalf("replay after the window: %d", got)
	}
	// Not about a payment, or about a payment that is not ours: acknowledged, ignored.
	other := w.mp.Notification(999)
	other.URL = w.mp.Webhook + "?data.id=999&type=merchant_order"
	other.Headers = w.mp.Notification(999).Headers
	if got := w.deliver(other); got != http.StatusOK {
		t.Fatalf("merchant_order: %d", got)
	}

	// Refunded at Mercado Pago: REEMBOLSADO once, the held money goes back out.
	w.mp.SetStatus(t, pse, "refunded", "refunded")
	refund := w.mp.Notification(pse)
	for range 3 {
		if got := w.deliver(refund); got != http.StatusOK {
			t.Fatalf("refund: %d", got)
		}
	}
	if p := w.status(t, id); p.Status() != payments.StatusRefunded {
		t.Fatalf("after refund: %s", p.Status())
	}
	if m := movements(t, app, id); m[ledger.KindRefund] != 1 {
		t.Fatalf("movements %v", m)
	}
	if b := balance(t, app, ledger.AccountOfHeld(id)); b != 0 {
		t.Fatalf("held after refund %d", b)
	}
	if rep := verified(t, app); rep.ClientPayments != 0 {
		t.Fatalf("client_payments after refund %d", rep.ClientPayments)
	}
	// Once refunded, the job may be paid again.
	testkit.Expect(t, w.pay(t), http.StatusCreated, "")
}

// TestLostWebhookSweep: the approval's notification never comes; the
// sweep finds the payment by its external_reference once it is old enough
// to be checked, exactly once.
func TestLostWebhookSweep(t *testing.T) {
	w := newPayWorld(t, nil)
	app := w.K.App
	id, pref := w.started(t)
	w.mp.Pay(t, pref.ID, "approved", "accredited")
	if n, err := payments.Reconcile(app, w.clock()); err != nil || n != 0 {
		t.Fatalf("a payment just checked is not asked about: %d %v", n, err)
	}
	w.advance(payments.SweepMinAge + time.Second)
	if n, err := payments.Reconcile(app, w.clock()); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if p := w.status(t, id); p.Status() != payments.StatusHeld {
		t.Fatalf("after sweep: %s", p.Status())
	}
	w.advance(payments.SweepMinAge + time.Second)
	if n, err := payments.Reconcile(app, w.clock()); err != nil || n != 0 {
		t.Fatalf("second sweep: %d %v", n, err)
	}
	if m := movements(t, app, id); m[ledger.KindCharge] != 1 || m[ledger.KindHold] != 1 {
		t.Fatalf("movements %v", m)
	}
	verified(t, app)
}

// TestReturnRacesWebhook: the client's return from the checkout and
// several deliveries of the approval race: one hold, every answer 200.
func TestReturnRacesWebhook(t *testing.T) {
	w := newPayWorld(t, nil)
	app := w.K.App
	id, pref := w.started(t)
	gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
	var wg sync.WaitGroup
	statuses := make(chan int, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				statuses <- w.deliver(w.mp.Notification(gid))
				return
			}
			r := w.K.Post("/api/jobs/"+w.job.Id+"/payment/check", w.ClientCookie, nil)
			if r.Str("payment.status") != payments.StatusHeld {
				t.Errorf("check answered %s", r.Raw)
			}
			statuses <- r.Status
		}()
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != http.StatusOK {
			t.Errorf("status %d", s)
		}
	}
	if m := movements(t, app, id); m[ledger.KindCharge] != 1 || m[ledger.KindHold] != 1 {
		t.Fatalf("movements %v", m)
	}
	if b := balance(t, app, ledger.AccountOfHeld(id)); b != -price {
		t.Fatalf("held %d", b)
	}
	verified(t, app)
	// The camello may not ask for the check; the client may again (nothing changes).
	testkit.Expect(t, w.K.Post("/api/jobs/"+w.job.Id+"/payment/check", w.CamCookie, nil), http.StatusForbidden, payments.MsgOnlyClientPays)
	testkit.Expect(t, w.K.Post("/api/jobs/"+w.job.Id+"/payment/check", w.ClientCookie, nil), http.StatusOK, "")
}

// TestDoublePaymentRace: racing "pay" requests of one job make one payment
// and one checkout.
func TestDoublePaymentRace(t *testing.T) {
	w := newPayWorld(t, nil)
	const n = 8
	var wg sync.WaitGroup
	ids := make(chan string, n)
	created := make(chan bool, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.pay(t)
			if r.Status != http.StatusCreated && r.Status != http.StatusOK {
				t.Errorf("pay: %d %s", r.Status, r.Raw)
			}
			ids <- r.Str("payment.id")
			created <- r.Status == http.StatusCreated
		}()
	}
	wg.Wait()
	close(ids)
	close(created)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	wins := 0
	for c := range created {
		if c {
			wins++
		}
	}
	if len(seen) != 1 || wins != 1 || w.mp.Preferences() != 1 {
		t.Fatalf("payments %v, created %d times, preferences %d", seen, wins, w.mp.Preferences())
	}
}

// TestGatewayAnswerLost: Mercado Pago creates the checkout but its answer
// never reaches us (a timeout here; a SIGKILL at that moment leaves the same
// rows): the payment row, written first, stays INICIADO; the next attempt
// asks again with the same idempotency key and gets the same checkout.
func TestGatewayAnswerLost(t *testing.T) {
	w := newPayWorld(t, func(mp *mptest.Server) *http.Client {
		c := mp.Client()
		c.Timeout = 500 * time.Millisecond
		return c
	})
	release := w.mp.Hold()
	t.Cleanup(release)
	testkit.Expect(t, w.pay(t), http.StatusBadGateway, payments.MsgGatewayDown)
	release()
	recs, err := w.K.App.FindRecordsByFilter(payments.Collection, "job = {:job}", "", 0, 0, map[string]any{"job": w.job.Id})
	if err != nil || len(recs) != 1 || recs[0].GetString("status") != payments.StatusStarted {
		t.Fatalf("payment rows after the lost answer: %v %v", recs, err)
	}
	if w.mp.Preferences() != 1 {
		t.Fatalf("preferences %d", w.mp.Preferences())
	}
	r := w.pay(t)
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("payment.id") != recs[0].Id || r.Str("payment.status") != payments.StatusPending || w.mp.Preferences() != 1 ||
		w.mp.Calls("POST /checkout/preferences") != 2 {
		t.Fatalf("retry: %s, preferences %d, calls %d", r.Raw, w.mp.Preferences(), w.mp.Calls("POST /checkout/preferences"))
	}
}

// TestRecordsAreReadOnly: the dashboard and the generic API cannot write
// a payment (it changes only through its state machine).
func TestRecordsAreReadOnly(t *testing.T) {
	w := newPayWorld(t, nil)
	id, _ := w.started(t)
	rec, err := w.K.App.FindRecordById(payments.Collection, id)
	if err != nil {
		t.Fatal(err)
	}
	rec.Set("status", payments.StatusHeld)
	if err := w.K.App.Save(rec); err == nil {
		t.Fatal("a record save changed a payment")
	}
	if err := w.K.App.Delete(rec); err == nil {
		t.Fatal("a record delete removed a payment")
	}
}

// TestSignature checks the documented manifest and header format.
func TestSignature(t *testing.T) {
	now := time.Unix(1704908010, 0)
	secret := "s3cr3t"
	sig := payments.Sign(secret, "id:123;request-id:req-1;ts:1704908010;")
	if got := payments.Manifest("ABC", "req-1", "1704908010"); got != "id:abc;request-id:req-1;ts:1704908010;" {
		t.Fatalf("manifest %q", got)
	}
	if got := payments.Manifest("", "req-1", "1"); got != "request-id:req-1;ts:1;" {
		t.Fatalf("manifest without id %q", got)
	}
	ms := strconv.FormatInt(now.UnixMilli(), 10)
	for _, tc := range []struct {
		name, header, req, id string
		at                    time.Time
		want                  error
	}{
		{"valid", "ts=1704908010,v1=" + sig, "req-1", "123", now, nil},
		{"spaces", " ts=1704908010 , v1=" + sig, "req-1", "123", now, nil},
		{"milliseconds", "ts=" + ms + ",v1=" + payments.Sign(secret, "id:123;request-id:req-1;ts:"+ms+";"), "req-1", "123", now, nil},
		{"other id", "ts=1704908010,v1=" + sig, "req-1", "124", now, payments.ErrSignatureInvalid},
		{"other request", "ts=1704908010,v1=" + sig, "req-2", "123", now, payments.ErrSignatureInvalid},
		{"no v1", "ts=1704908010", "req-1", "123", now, payments.ErrSignatureMissing},
		{"no ts", "v1=" + sig, "req-1", "123", now, payments.ErrSignatureMissing},
		{"empty", "", "req-1", "123", now, payments.ErrSignatureMissing},
		{"just inside the window", "ts=1704908010,v1=" + sig, "req-1", "123", now.Add(payments.SignatureMaxAge), nil},
		{"just outside the window", "ts=1704908010,v1=" + sig, "req-1", "123", now.Add(payments.SignatureMaxAge + time.Second), payments.ErrSignatureStale},
		{"from the future", "ts=1704908010,v1=" + sig, "req-1", "123", now.Add(-payments.SignatureMaxAge - time.Second), payments.ErrSignatureStale},
	} {
		if err := payments.VerifySignature(secret, tc.header, tc.req, tc.id, tc.at); err != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestReleaseWithCommission walks the money to the camello over HTTP: paid
// and held, racing admins release it once (minus the commission), the
// camello's earnings show it; the ledger balances at every step.
func TestReleaseWithCommission(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	id, pref := w.started(t)
	release := "/api/payments/" + id + "/release"
	testkit.Expect(t, k.Post(release, w.AdminCookie, nil), http.StatusConflict, payments.MsgNotHeld)
	verified(t, app)

	earn := k.Get("/api/me/earnings", w.CamCookie)
	testkit.Expect(t, earn, http.StatusOK, "")
	if earn.Get("balance") != float64(0) || earn.Get("pending") != float64(0) || earn.Get("total") != float64(0) {
		t.Fatalf("earnings before: %s", earn.Raw)
	}
	gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
	if got := w.deliver(w.mp.Notification(gid)); got != http.StatusOK {
		t.Fatalf("webhook %d", got)
	}
	verified(t, app)
	if earn = k.Get("/api/me/earnings", w.CamCookie); earn.Get("pending") != float64(price) || earn.Get("balance") != float64(0) {
		t.Fatalf("earnings while held: %s", earn.Raw)
	}

	for _, tc := range []struct {
		name, cookie string
		status       int
	}{{"anonymous", "", 401}, {"client", w.ClientCookie, 403}, {"camello", w.CamCookie, 403}} {
		if r := k.Post(release, tc.cookie, nil); r.Status != tc.status {
			t.Fatalf("%s releases: %d", tc.name, r.Status)
		}
	}
	testkit.Expect(t, k.Post("/api/payments/zzzzzzzzzzzzzzz/release", w.AdminCookie, nil), http.StatusNotFound, payments.MsgPaymentNotFound)

	// Two admins (and a few double clicks) release at once: one wins.
	_, admin2 := k.UserWithSession("ADMIN")
	var wg sync.WaitGroup
	codes := make(chan int, 6)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := w.AdminCookie
			if i%2 == 1 {
				c = admin2
			}
			codes <- k.Post(release, c, nil).Status
		}()
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
		default:
			t.Errorf("release answered %d", c)
		}
	}
	if ok != 1 {
		t.Fatalf("%d releases succeeded", ok)
	}
	fee := payments.Commission(price, 10)
	p := w.status(t, id)
	if p.Status() != payments.StatusReleased || int64(p.GetInt("commission")) != fee {
		t.Fatalf("released: %s commission %d", p.Status(), p.GetInt("commission"))
	}
	if m := movements(t, app, id); m[ledger.KindRelease] != 1 || m[ledger.KindCommission] != 1 {
		t.Fatalf("movements %v", m)
	}
	rep := verified(t, app)
	if rep.PlatformRevenue != -fee || balance(t, app, ledger.AccountOfHeld(id)) != 0 {
		t.Fatalf("platform revenue %d, held %d", rep.PlatformRevenue, balance(t, app, ledger.AccountOfHeld(id)))
	}
	earn = k.Get("/api/me/earnings", w.CamCookie)
	if earn.Get("balance") != float64(price-fee) || earn.Get("pending") != float64(0) || earn.Get("total") != float64(2) {
		t.Fatalf("earnings after: %s", earn.Raw)
	}
	if earn.Str("movements.0.kind") != ledger.KindCommission || earn.Get("movements.0.amount") != float64(-fee) ||
		earn.Str("movements.1.kind") != ledger.KindRelease || earn.Get("movements.1.amount") != float64(price) {
		t.Fatalf("history: %s", earn.Raw)
	}
	testkit.Expect(t, k.Get("/api/me/earnings", w.ClientCookie), http.StatusForbidden, payments.MsgOnlyCamellosEarn)
	testkit.ExpectField(t, k.Get("/api/me/earnings?perPage=101", w.CamCookie), "perPage", "entre 1 y 100")
	testkit.Expect(t, w.pay(t), http.StatusConflict, payments.MsgAlreadyPaid)
}

func TestCommission(t *testing.T) {
	for _, tc := range []struct {
		amount  int64
		percent int
		want    int64
	}{
		{180_000, 10, 18_000}, {180_005, 10, 18_001}, {180_004, 10, 18_000}, {10_000, 0, 0}, {10_000, 50, 5_000}, {1, 10, 0}, {5, 10, 1},
	} {
		if got := payments.Commission(tc.amount, tc.percent); got != tc.want {
			t.Errorf("Commission(%d, %d) = %d, want %d", tc.amount, tc.percent, got, tc.want)
		}
	}
}

// TestCashRecordsCommissionOwed: the job's camello records a cash payment
// (once, among racing requests); the commission it owes is booked, its
// balance goes negative by it, the job cannot then be paid online.
func TestCashRecordsCommissionOwed(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	cash := "/api/jobs/" + w.job.Id + "/payment/cash"
	testkit.Expect(t, k.Post(cash, "", nil), http.StatusUnauthorized, "")
	testkit.Expect(t, k.Post(cash, w.ClientCookie, nil), http.StatusForbidden, payments.MsgOnlyCamelloCash)
	testkit.Expect(t, k.Post(cash, w.AdminCookie, nil), http.StatusForbidden, payments.MsgOnlyCamelloCash)
	_, _, otherCookie := k.CreateCamello()
	testkit.Expect(t, k.Post(cash, otherCookie, nil), http.StatusForbidden, payments.MsgOnlyCamelloCash)
	unpriced := w.Job(jobs.StatusAssigned)
	testkit.Expect(t, k.Post("/api/jobs/"+unpriced.Id+"/payment/cash", w.CamCookie, nil), http.StatusConflict, payments.MsgNotPayable)

	if got := concurrently(6, func(int) int { return k.Post(cash, w.CamCookie, nil).Status }); got[http.StatusCreated] != 1 || got[http.StatusConflict] != 5 {
		t.Fatalf("racing cash records answered %v", got)
	}
	fee := payments.Commission(price, 10)
	view := k.Get("/api/jobs/"+w.job.Id+"/payment", w.ClientCookie)
	if view.Str("payment.method") != payments.MethodCash || view.Str("payment.status") != payments.StatusReleased ||
		view.Get("payment.commission") != float64(fee) || view.Get("payment.checkoutUrl") != nil {
		t.Fatalf("cash payment: %s", view.Raw)
	}
	earn := k.Get("/api/me/earnings", w.CamCookie)
	if earn.Get("balance") != float64(-fee) || earn.Str("movements.0.kind") != ledger.KindCommission {
		t.Fatalf("earnings: %s", earn.Raw)
	}
	if rep := verified(t, app); rep.PlatformRevenue != -fee || rep.ClientPayments != 0 {
		t.Fatalf("revenue %d, client payments %d", rep.PlatformRevenue, rep.ClientPayments)
	}
	testkit.Expect(t, w.pay(t), http.StatusConflict, payments.MsgAlreadyPaid)
	if w.mp.Preferences() != 0 {
		t.Fatalf("a checkout was created for a job paid in cash")
	}
}

// TestMoneyNotifications: held, released and refunded payments and cash
// records reach the parties' inboxes as PAYMENT, once each.
func TestMoneyNotifications(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	id, pref := w.started(t)
	gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
	for range 2 {
		w.deliver(w.mp.Notification(gid))
	}
	count := func(user, title string) int {
		return k.Count("notifications", "kind = 'PAYMENT' AND user = {:u} AND title = {:t}", map[string]any{"u": user, "t": title})
	}
	if count(w.Client.Id, "Pago recibido") != 1 || count(w.CamUser.Id, "Pago recibido") != 1 {
		t.Fatalf("held: client %d, camello %d", count(w.Client.Id, "Pago recibido"), count(w.CamUser.Id, "Pago recibido"))
	}
	testkit.Expect(t, k.Post("/api/payments/"+id+"/release", w.AdminCookie, nil), http.StatusOK, "")
	if count(w.CamUser.Id, "Pago liberado") != 1 || count(w.Client.Id, "Pago liberado") != 1 {
		t.Fatal("released: both parties are told")
	}
	job2 := w.pricedJob(t)
	testkit.Expect(t, k.Post("/api/jobs/"+job2.Id+"/payment/cash", w.CamCookie, nil), http.StatusCreated, "")
	if count(w.Client.Id, "Pago en efectivo registrado") != 1 || count(w.CamUser.Id, "Pago en efectivo registrado") != 1 {
		t.Fatal("cash: both parties are told")
	}
	if got := payments.Pesos(180000); got != "$180.000" {
		t.Fatalf("Pesos = %q", got)
	}
	for n, want := range map[int64]string{0: "$0", 999: "$999", 1000: "$1.000", 1234567: "$1.234.567", -18000: "-$18.000"} {
		if got := payments.Pesos(n); got != want {
			t.Errorf("Pesos(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestExportIncludesPayments: a person's export has their payments and
// the ledger lines of their accounts; another person's are not in it.
func TestExportIncludesPayments(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	id, pref := w.started(t)
	w.deliver(w.mp.Notification(w.mp.Pay(t, pref.ID, "approved", "accredited")))
	testkit.Expect(t, k.Post("/api/payments/"+id+"/release", w.AdminCookie, nil), http.StatusOK, "")

	client := k.Get("/api/me/export", w.ClientCookie)
	testkit.Expect(t, client, http.StatusOK, "")
	if client.Str("payments.0.id") != id || client.Get("payments.1") != nil {
		t.Fatalf("client export payments: %s", client.Raw)
	}
	lines, _ := client.Get("ledger.client:" + w.Client.Id).([]any)
	if len(lines) != 2 { // charge and hold
		t.Fatalf("client export ledger: %v", client.Get("ledger"))
	}
	cam := k.Get("/api/me/export", w.CamCookie)
	camLines, _ := cam.Get("ledger.camello:" + w.Camello.Id).([]any)
	if cam.Str("payments.0.id") != id || len(camLines) != 2 { // release and commission
		t.Fatalf("camello export: %v %v", cam.Get("payments"), cam.Get("ledger"))
	}
	if other := k.Get("/api/me/export", w.StrangerCookie); other.Get("payments.0") != nil {
		t.Fatalf("a stranger's export has the payment: %s", other.Raw)
	}
}
