package apitest_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/bounds"
	"camellos/internal/testkit"
	"camellos/modules/ledger"
	"camellos/modules/payments"

	"github.com/pocketbase/pocketbase/core"
)

// held pays the world's job, has Mercado Pago approve it and answers the
// payment id and the gateway payment id.
func (w *payWorld) held(t *testing.T) (string, int) {
	t.Helper()
	id, pref := w.started(t)
	gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
	if got := w.deliver(w.mp.Notification(gid)); got != http.StatusOK {
		t.Fatalf("webhook %d", got)
	}
	if st := w.status(t, id).Status(); st != payments.StatusHeld {
		t.Fatalf("payment %s after approval", st)
	}
	return id, gid
}

// completed is a fresh job of the world paid, held and marked done by its
// camello over HTTP: the payment id and its gateway payment id.
func (w *payWorld) completed(t *testing.T) (string, int) {
	t.Helper()
	w.job = w.pricedJob(t)
	id, gid := w.held(t)
	testkit.Expect(t, w.K.Post("/api/jobs/"+w.job.Id+"/start", w.CamCookie, nil), http.StatusOK, "")
	testkit.Expect(t, w.K.Post("/api/jobs/"+w.job.Id+"/complete", w.CamCookie, nil), http.StatusOK, "")
	return id, gid
}

func (w *payWorld) jobPath(suffix string) string {
	return "/api/jobs/" + w.job.Id + "/payment" + suffix
}

func countTitle(k *testkit.Kit, user, title string) int {
	return k.Count("notifications", "kind = 'PAYMENT' AND user = {:u} AND title = {:t}", map[string]any{"u": user, "t": title})
}

// TestConfirmReleases walks a held payment over HTTP: confirming before
// the camello marks the work done is refused; completion opens the window
// (DISPUTE_WINDOW_HOURS, 72 by default) and tells the client; only the
// client confirms; the confirmation releases once, minus the commission.
func TestConfirmReleases(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	id, _ := w.held(t)
	testkit.Expect(t, k.Post(w.jobPath("/confirm"), w.ClientCookie, nil), http.StatusConflict, payments.MsgNotDoneYet)
	testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "No vino nunca a la casa"}),
		http.StatusConflict, payments.MsgNotDoneYet)
	testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/start", w.CamCookie, nil), http.StatusOK, "")
	testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/complete", w.CamCookie, nil), http.StatusOK, "")

	view := k.Get(w.jobPath(""), w.ClientCookie)
	testkit.Expect(t, view, http.StatusOK, "")
	done, _ := time.Parse(payments.DBTime, view.Str("payment.completedAt"))
	until, _ := time.Parse(payments.DBTime, view.Str("payment.disputeUntil"))
	if !done.Equal(w.clock()) || until.Sub(done) != 72*time.Hour || view.Str("payment.status") != payments.StatusHeld {
		t.Fatalf("window: %s", view.Raw)
	}
	if countTitle(k, w.Client.Id, "Trabajo terminado: confirma el pago") != 1 {
		t.Fatal("the client is asked to confirm")
	}

	for _, tc := range []struct {
		name, cookie string
		status       int
	}{{"anonymous", "", 401}, {"camello", w.CamCookie, 403}, {"admin", w.AdminCookie, 403}, {"stranger", w.StrangerCookie, 403}} {
		if r := k.Post(w.jobPath("/confirm"), tc.cookie, nil); r.Status != tc.status {
			t.Fatalf("%s confirms: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	r := k.Post(w.jobPath("/confirm"), w.ClientCookie, nil)
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("payment.status") != payments.StatusReleased || r.Str("payment.releasedBy") != payments.ByClient {
		t.Fatalf("confirmed: %s", r.Raw)
	}
	testkit.Expect(t, k.Post(w.jobPath("/confirm"), w.ClientCookie, nil), http.StatusConflict, payments.MsgNotConfirmable)
	fee := payments.Commission(price, 10)
	if got := -balance(t, app, ledger.AccountOfCamello(w.Camello.Id)); got != price-fee {
		t.Fatalf("camello balance %d, want %d", got, price-fee)
	}
	if m := movements(t, app, id); m["release"] != 1 || m["commission"] != 1 || m["refund"] != 0 {
		t.Fatalf("movements %v", m)
	}
	if countTitle(k, w.CamUser.Id, "Pago liberado") != 1 || countTitle(k, w.Client.Id, "Pago liberado") != 1 {
		t.Fatal("both parties are told of the release")
	}
	verified(t, app)
}

// TestDisputeBounds: the window's edge (one second inside, exactly at its
// end) and the reason's length (just inside, just outside).
func TestDisputeBounds(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	ok := strings.Repeat("a", bounds.DisputeReasonMin)
	for _, tc := range []struct {
		name   string
		after  time.Duration
		reason any
		status int
		msg    string
	}{
		{"one second before the end", 72*time.Hour - time.Second, ok, 200, ""},
		{"at the end", 72 * time.Hour, ok, 409, payments.MsgWindowClosed},
		{"after the end", 80 * time.Hour, ok, 409, payments.MsgWindowClosed},
		{"reason at its maximum", 0, strings.Repeat("ñ", bounds.DisputeReasonMax), 200, ""},
		{"reason one under its minimum", 0, strings.Repeat("a", bounds.DisputeReasonMin-1), 400, "Datos inválidos"},
		{"reason one over its maximum", 0, strings.Repeat("a", bounds.DisputeReasonMax+1), 400, "Datos inválidos"},
		{"reason of blanks", 0, "               ", 400, "Datos inválidos"},
		{"no reason", 0, nil, 400, "Datos inválidos"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, _ := w.completed(t)
			w.advance(tc.after)
			body := map[string]any{}
			if tc.reason != nil {
				body["reason"] = tc.reason
			}
			r := k.Post(w.jobPath("/dispute"), w.ClientCookie, body)
			testkit.Expect(t, r, tc.status, tc.msg)
			want := payments.StatusHeld
			if tc.status == 200 {
				want = payments.StatusDisputed
				if r.Str("payment.dispute.reason") == "" {
					t.Fatalf("dispute without its reason: %s", r.Raw)
				}
			}
			if st := w.status(t, id).Status(); st != want {
				t.Fatalf("payment %s, want %s", st, want)
			}
		})
	}
	// Roles: only the client disputes.
	w.completed(t)
	for _, tc := range []struct {
		name, cookie string
		status       int
	}{{"anonymous", "", 401}, {"camello", w.CamCookie, 403}, {"admin", w.AdminCookie, 403}, {"stranger", w.StrangerCookie, 403}} {
		if r := k.Post(w.jobPath("/dispute"), tc.cookie, map[string]any{"reason": ok}); r.Status != tc.status {
			t.Fatalf("%s disputes: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	verified(t, w.K.App)
}

// TestSilenceReleases: the sweep leaves a payment alone inside its window,
// releases it once the window ends (releasedBy VENCIMIENTO), never twice,
// and never a disputed one; the CLI runs the same sweep.
func TestSilenceReleases(t *testing.T) {
	w := newPayWorld(t, nil)
	app := w.K.App
	id, _ := w.completed(t)
	disputed, _ := w.completed(t)
	testkit.Expect(t, w.K.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "El trabajo quedó mal hecho"}), 200, "")

	w.advance(72*time.Hour - time.Second)
	if n, err := payments.ReleaseDue(app, w.clock()); err != nil || n != 0 {
		t.Fatalf("inside the window: %d %v", n, err)
	}
	w.advance(time.Second)
	if n, err := payments.ReleaseDue(app, w.clock()); err != nil || n != 1 {
		t.Fatalf("at the end: %d %v", n, err)
	}
	p := w.status(t, id)
	if p.Status() != payments.StatusReleased || p.GetString("releasedBy") != payments.ByWindow {
		t.Fatalf("released by the window: %s %s", p.Status(), p.GetString("releasedBy"))
	}
	if n, err := payments.ReleaseDue(app, w.clock().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("again: %d %v", n, err)
	}
	if st := w.status(t, disputed).Status(); st != payments.StatusDisputed {
		t.Fatalf("a disputed payment stays frozen: %s", st)
	}
	if m := movements(t, app, id); m["release"] != 1 {
		t.Fatalf("movements %v", m)
	}

	// The CLI's release-due: one more payment past its window.
	id3, _ := w.completed(t)
	w.advance(73 * time.Hour)
	cmd := payments.Command(app)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"release-due"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Pagos liberados: 1") || w.status(t, id3).Status() != payments.StatusReleased {
		t.Fatalf("CLI: %q", out.String())
	}
	verified(t, app)
}

// TestConfirmRacesAutoRelease: past the window, the client's confirmations
// and several sweeps race: one release, one commission.
func TestConfirmRacesAutoRelease(t *testing.T) {
	w := newPayWorld(t, nil)
	app := w.K.App
	for round := range 3 {
		id, _ := w.completed(t)
		w.advance(72 * time.Hour)
		var wg sync.WaitGroup
		codes := make(chan int, 4)
		released := make(chan int, 4)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					codes <- w.K.Post(w.jobPath("/confirm"), w.ClientCookie, nil).Status
					return
				}
				n, err := payments.ReleaseDue(app, w.clock())
				if err != nil {
					t.Error(err)
				}
				released <- n
			}()
		}
		wg.Wait()
		close(codes)
		close(released)
		wins := 0
		for c := range codes {
			switch c {
			case 200:
				wins++
			case 409:
			default:
				t.Fatalf("confirm answered %d", c)
			}
		}
		for n := range released {
			wins += n
		}
		if wins != 1 {
			t.Fatalf("round %d: %d releases", round, wins)
		}
		if m := movements(t, app, id); m["release"] != 1 || m["commission"] != 1 {
			t.Fatalf("movements %v", m)
		}
	}
	verified(t, app)
}

// TestResolveDispute: every outcome, its bounds and roles, the money that
// moves (the refund made at Mercado Pago once), the conversation at the
// admin's hand, and every party told.
func TestResolveDispute(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	fee := func(n int64) int64 { return payments.Commission(n, 10) }
	for _, tc := range []struct {
		name       string
		body       map[string]any
		status     int
		state      string
		refund     int64
		camelloGot int64
	}{
		{"release", map[string]any{"outcome": "LIBERAR", "note": "Las fotos muestran el trabajo hecho"}, 200, payments.StatusReleased, 0, price - fee(price)},
		{"refund", map[string]any{"outcome": "reembolsar"}, 200, payments.StatusRefunded, price, 0},
		{"split one peso", map[string]any{"outcome": "DIVIDIR", "refundAmount": 1}, 200, payments.StatusSplit, 1, price - 1 - fee(price-1)},
		{"split all but one peso", map[string]any{"outcome": "DIVIDIR", "refundAmount": price - 1}, 200, payments.StatusSplit, price - 1, 1 - fee(1)},
		{"split everything", map[string]any{"outcome": "DIVIDIR", "refundAmount": price}, 400, payments.StatusDisputed, 0, 0},
		{"split nothing", map[string]any{"outcome": "DIVIDIR", "refundAmount": 0}, 400, payments.StatusDisputed, 0, 0},
		{"split without amount", map[string]any{"outcome": "DIVIDIR"}, 400, payments.StatusDisputed, 0, 0},
		{"unknown outcome", map[string]any{"outcome": "REGALAR"}, 400, payments.StatusDisputed, 0, 0},
		{"no outcome", map[string]any{}, 400, payments.StatusDisputed, 0, 0},
		{"note too long", map[string]any{"outcome": "LIBERAR", "note": strings.Repeat("x", bounds.ResolutionNoteMax+1)}, 400, payments.StatusDisputed, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, gid := w.completed(t)
			k.Post("/api/jobs/"+w.job.Id+"/messages", w.ClientCookie, map[string]any{"body": "Mire cómo quedó la pared"})
			testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "La pared quedó manchada"}), 200, "")
			camBefore := -balance(t, app, ledger.AccountOfCamello(w.Camello.Id))
			r := k.Post("/api/admin/disputes/"+id+"/resolve", w.AdminCookie, tc.body)
			testkit.Expect(t, r, tc.status, "")
			p := w.status(t, id)
			if p.Status() != tc.state {
				t.Fatalf("state %s, want %s", p.Status(), tc.state)
			}
			if tc.status != 200 {
				if m := movements(t, app, id); m["release"]+m["refund"] != 0 {
					t.Fatalf("a refused resolution moved money: %v", m)
				}
				return
			}
			if got := -balance(t, app, ledger.AccountOfCamello(w.Camello.Id)) - camBefore; got != tc.camelloGot {
				t.Fatalf("camello got %d, want %d", got, tc.camelloGot)
			}
			if got := w.mp.Refunded(gid); int64(got) != tc.refund {
				t.Fatalf("Mercado Pago refunded %v, want %d", got, tc.refund)
			}
			if tc.refund > 0 && (p.GetString("refundedAt") == "" || balance(t, app, ledger.AccountOfClient(w.Client.Id)) != 0) {
				t.Fatalf("refund made and booked: %s", r.Raw)
			}
			if countTitle(k, w.Client.Id, "Disputa resuelta") == 0 || countTitle(k, w.CamUser.Id, "Disputa resuelta") == 0 {
				t.Fatal("both parties are told of the resolution")
			}
			testkit.Expect(t, k.Post("/api/admin/disputes/"+id+"/resolve", w.AdminCookie, tc.body), 409, payments.MsgNotDisputed)
		})
	}

	// The admin's view: the list, one dispute with the conversation; roles.
	id, _ := w.completed(t)
	testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/messages", w.CamCookie, map[string]any{"body": "Quedó perfecto, vea"}), 201, "")
	testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "No quedó perfecto para nada"}), 200, "")
	if countTitle(k, w.Admin.Id, "Nueva disputa de pago") == 0 || countTitle(k, w.CamUser.Id, "Pago en disputa") == 0 {
		t.Fatal("the camello and the admins are told of a dispute")
	}
	list := k.Get("/api/admin/disputes", w.AdminCookie)
	testkit.Expect(t, list, 200, "")
	if list.Get("total") != float64(6) { // the six refused resolutions above stay open, and this one
		if list.Get("total") != float64(7) {
			t.Fatalf("open disputes: %s", list.Raw)
		}
	}
	one := k.Get("/api/admin/disputes/"+id, w.AdminCookie)
	testkit.Expect(t, one, 200, "")
	msgs, _ := one.Get("dispute.messages").([]any)
	if len(msgs) != 1 || one.Str("dispute.messagesUrl") != "/api/jobs/"+w.job.Id+"/messages" || one.Str("dispute.dispute.reason") == "" {
		t.Fatalf("dispute view: %s", one.Raw)
	}
	testkit.Expect(t, k.Get("/api/admin/disputes?status=NADA", w.AdminCookie), 400, "Datos inválidos")
	testkit.Expect(t, k.Get("/api/admin/disputes/zzzzzzzzzzzzzzz", w.AdminCookie), 404, payments.MsgDisputeNotFound)
	testkit.Expect(t, k.Post("/api/admin/disputes/zzzzzzzzzzzzzzz/resolve", w.AdminCookie, map[string]any{"outcome": "LIBERAR"}), 404, "")
	for _, tc := range []struct {
		name, cookie string
		status       int
	}{{"anonymous", "", 401}, {"client", w.ClientCookie, 403}, {"camello", w.CamCookie, 403}} {
		for _, r := range []*testkit.Response{
			k.Get("/api/admin/disputes", tc.cookie), k.Get("/api/admin/disputes/"+id, tc.cookie),
			k.Post("/api/admin/disputes/"+id+"/resolve", tc.cookie, map[string]any{"outcome": "REEMBOLSAR"}),
		} {
			if r.Status != tc.status {
				t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
			}
		}
	}
	verified(t, app)
}

// TestTwoAdminsResolveOneDispute: admins racing with different outcomes
// write exactly one of them.
func TestTwoAdminsResolveOneDispute(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	_, admin2 := k.UserWithSession("ADMIN")
	outcomes := []map[string]any{{"outcome": "LIBERAR"}, {"outcome": "REEMBOLSAR"}, {"outcome": "DIVIDIR", "refundAmount": 60_000}}
	for round := range 3 {
		id, gid := w.completed(t)
		testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "No estoy conforme con esto"}), 200, "")
		got := concurrently(6, func(i int) int {
			c := w.AdminCookie
			if i%2 == 1 {
				c = admin2
			}
			return k.Post("/api/admin/disputes/"+id+"/resolve", c, outcomes[(i+round)%3]).Status
		})
		if got[200] != 1 || got[409] != 5 {
			t.Fatalf("round %d: racing resolutions answered %v", round, got)
		}
		m := movements(t, app, id)
		if m["release"] > 1 || m["refund"] > 2 || m["commission"] > 1 {
			t.Fatalf("movements %v", m)
		}
		if held := balance(t, app, ledger.AccountOfHeld(id)); held != 0 {
			t.Fatalf("held left %d", held)
		}
		if r := w.mp.Refunded(gid); r != 0 && r != 60_000 && r != price {
			t.Fatalf("refunded %v", r)
		}
	}
	verified(t, app)
}

// TestRefundRetriedAfterOutage: Mercado Pago down at the resolution: the
// decision stands (REEMBOLSADO, owed to the client), the sweep makes the
// refund later, once.
func TestRefundRetriedAfterOutage(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	id, gid := w.completed(t)
	testkit.Expect(t, k.Post(w.jobPath("/dispute"), w.ClientCookie, map[string]any{"reason": "Nunca terminó el trabajo"}), 200, "")
	w.mp.FailNext(3) // the SDK's retries included
	r := k.Post("/api/admin/disputes/"+id+"/resolve", w.AdminCookie, map[string]any{"outcome": "REEMBOLSAR"})
	testkit.Expect(t, r, 200, "")
	if r.Get("payment.refundedAt") != nil || balance(t, app, ledger.AccountOfClient(w.Client.Id)) != -price {
		t.Fatalf("refund owed, not made: %s", r.Raw)
	}
	w.mp.FailNext(0)
	for range 3 {
		if _, err := payments.ReleaseDue(app, w.clock()); err != nil {
			t.Fatal(err)
		}
	}
	if w.mp.Refunded(gid) != price || w.status(t, id).GetString("refundedAt") == "" || balance(t, app, ledger.AccountOfClient(w.Client.Id)) != 0 {
		t.Fatalf("refund made once: %v", w.mp.Refunded(gid))
	}
	// The webhook of the refund changes nothing more.
	if got := w.deliver(w.mp.Notification(gid)); got != 200 {
		t.Fatalf("webhook %d", got)
	}
	if m := movements(t, app, id); m["refund"] != 2 {
		t.Fatalf("movements %v", m)
	}
	verified(t, app)
}

var _ core.App
