package apitest_test

import (
	"net/http"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/ledger"
	"camellos/modules/payments"
)

// TestMoneyWalk walks the whole loop over HTTP — the client pays, Mercado
// Pago approves, the camello does the work, the client confirms, an admin
// pays the camello out, the bank pays — and checks after every step that
// the ledger passes verify and every account holds what it should; each
// money event reaches the inbox of whom it concerns.
func TestMoneyWalk(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	fee := payments.Commission(price, 10)
	type want struct{ clientPayments, client, held, camello, revenue int64 }
	var id string
	step := func(name string, wt want) {
		t.Helper()
		rep := verified(t, app)
		got := want{rep.ClientPayments, balance(t, app, ledger.AccountOfClient(w.Client.Id)), 0,
			balance(t, app, ledger.AccountOfCamello(w.Camello.Id)), rep.PlatformRevenue}
		if id != "" {
			got.held = balance(t, app, ledger.AccountOfHeld(id))
		}
		if got != wt || rep.Total != 0 {
			t.Fatalf("%s: balances %+v, want %+v (total %d)", name, got, wt, rep.Total)
		}
	}
	step("before", want{})
	r := w.pay(t)
	testkit.Expect(t, r, http.StatusCreated, "")
	id = r.Str("payment.id")
	step("checkout", want{})
	pref := w.mp.PreferenceByRef(id)
	gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
	if got := w.deliver(w.mp.Notification(gid)); got != http.StatusOK {
		t.Fatalf("webhook %d", got)
	}
	step("held", want{clientPayments: price, held: -price})
	testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/start", w.CamCookie, nil), http.StatusOK, "")
	testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/complete", w.CamCookie, nil), http.StatusOK, "")
	step("completed", want{clientPayments: price, held: -price})
	testkit.Expect(t, k.Post(w.jobPath("/confirm"), w.ClientCookie, nil), http.StatusOK, "")
	step("confirmed", want{clientPayments: price, camello: -(price - fee), revenue: -fee})
	earn := k.Get("/api/me/earnings", w.CamCookie)
	if earn.Get("balance") != float64(price-fee) {
		t.Fatalf("earnings after the release: %s", earn.Raw)
	}
	batch := k.Post("/api/admin/payouts/batches", w.AdminCookie, nil)
	testkit.Expect(t, batch, http.StatusCreated, "")
	if batch.Get("total") != float64(price-fee) {
		t.Fatalf("batch: %s", batch.Raw)
	}
	step("paid out", want{clientPayments: fee, revenue: -fee})
	testkit.Expect(t, k.Post("/api/admin/payouts/"+batch.Str("payouts.0.id")+"/paid", w.AdminCookie, map[string]any{"reference": "BANCO-7"}), http.StatusOK, "")
	step("bank paid", want{clientPayments: fee, revenue: -fee})
	if earn := k.Get("/api/me/earnings", w.CamCookie); earn.Get("balance") != float64(0) {
		t.Fatalf("earnings after the payout: %s", earn.Raw)
	}
	for _, n := range []struct{ user, title string }{
		{w.Client.Id, "Pago recibido"}, {w.CamUser.Id, "Pago recibido"},
		{w.Client.Id, "Trabajo terminado: confirma el pago"},
		{w.Client.Id, "Pago liberado"}, {w.CamUser.Id, "Pago liberado"},
		{w.CamUser.Id, "Pago enviado a tu cuenta"},
	} {
		if got := countTitle(k, n.user, n.title); got != 1 {
			t.Errorf("%q to %s: %d notifications", n.title, n.user, got)
		}
	}
}
