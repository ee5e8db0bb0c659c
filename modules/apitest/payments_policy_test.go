package apitest_test

import (
	"sync"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/ledger"
	"camellos/modules/payments"

	"github.com/pocketbase/pocketbase/core"
)

// visit books a PROGRAMADA visit of the world's job starting at start.
func (w *payWorld) visit(t *testing.T, start time.Time) *core.Record {
	t.Helper()
	return w.K.CreateRecord("appointments", map[string]any{"job": w.job.Id, "camello": w.Camello.Id, "client": w.Client.Id,
		"start": start.UTC().Format(payments.DBTime), "end": start.Add(time.Hour).UTC().Format(payments.DBTime), "status": "PROGRAMADA"})
}

// settleRefunds runs the sweep until the refunds decided are made.
func (w *payWorld) settleRefunds(t *testing.T) {
	t.Helper()
	if _, err := payments.RefundsDue(w.K.App); err != nil {
		t.Fatal(err)
	}
}

// TestCancellationPolicy: each policy at the edge of its free window
// (one second outside, exactly at its start), each side cancelling, an
// admin, a job without a visit: what goes back and what the camello gets.
func TestCancellationPolicy(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	fee := func(n int64) int64 { return payments.Commission(n, 10) }
	for _, tc := range []struct {
		name    string
		policy  string
		visitIn time.Duration // 0: no visit booked
		by      string        // client, camello, admin
		refund  int64
		state   string
	}{
		{"flexible, one second before the late window", "FLEXIBLE", 24*time.Hour + time.Second, "client", price, payments.StatusRefunded},
		{"flexible, at the late window", "FLEXIBLE", 24 * time.Hour, "client", price - price*25/100, payments.StatusSplit},
		{"moderate, one second before the late window", "MODERADA", 48*time.Hour + time.Second, "client", price, payments.StatusRefunded},
		{"moderate, inside the late window", "MODERADA", 2 * time.Hour, "client", price / 2, payments.StatusSplit},
		{"strict, inside the late window", "ESTRICTA", 72 * time.Hour, "client", 0, payments.StatusReleased},
		{"strict, one second before", "ESTRICTA", 72*time.Hour + time.Second, "client", price, payments.StatusRefunded},
		{"the camello cancels late", "ESTRICTA", time.Hour, "camello", price, payments.StatusRefunded},
		{"an admin cancels late", "ESTRICTA", time.Hour, "admin", price, payments.StatusRefunded},
		{"no visit booked", "ESTRICTA", 0, "client", price, payments.StatusRefunded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.Expect(t, k.Put("/api/me/cancellation-policy", w.CamCookie, map[string]any{"policy": tc.policy}), 200, "")
			w.job = w.pricedJob(t)
			if tc.visitIn > 0 {
				w.visit(t, w.clock().Add(tc.visitIn))
			}
			id, gid := w.held(t)
			camBefore := -balance(t, app, ledger.AccountOfCamello(w.Camello.Id))
			cookie := map[string]string{"client": w.ClientCookie, "camello": w.CamCookie, "admin": w.AdminCookie}[tc.by]
			testkit.Expect(t, k.Post("/api/jobs/"+w.job.Id+"/cancel", cookie, nil), 200, "")
			w.settleRefunds(t)
			p := w.status(t, id)
			if p.Status() != tc.state || int64(p.GetInt("refundAmount")) != tc.refund {
				t.Fatalf("state %s refund %d, want %s %d", p.Status(), p.GetInt("refundAmount"), tc.state, tc.refund)
			}
			kept := int64(price) - tc.refund
			if got := -balance(t, app, ledger.AccountOfCamello(w.Camello.Id)) - camBefore; got != kept-fee(kept) {
				t.Fatalf("camello got %d, want %d", got, kept-fee(kept))
			}
			if got := int64(w.mp.Refunded(gid)); got != tc.refund {
				t.Fatalf("Mercado Pago refunded %d, want %d", got, tc.refund)
			}
			if balance(t, app, ledger.AccountOfHeld(id)) != 0 || balance(t, app, ledger.AccountOfClient(w.Client.Id)) != 0 {
				t.Fatal("money left held or owed")
			}
		})
	}
	verified(t, app)
}

// TestPolicyRoutes: the camello's choice (roles, bounds) and the terms the
// client sees before paying.
func TestPolicyRoutes(t *testing.T) {
	w := newPayWorld(t, nil)
	k := w.K
	r := k.Get("/api/me/cancellation-policy", w.CamCookie)
	testkit.Expect(t, r, 200, "")
	if r.Str("policy.name") != "MODERADA" || len(r.Get("policies").([]any)) != 3 {
		t.Fatalf("default: %s", r.Raw)
	}
	for _, tc := range []struct {
		name, cookie string
		body         any
		status       int
	}{
		{"anonymous", "", map[string]any{"policy": "FLEXIBLE"}, 401},
		{"client", w.ClientCookie, map[string]any{"policy": "FLEXIBLE"}, 403},
		{"admin", w.AdminCookie, map[string]any{"policy": "FLEXIBLE"}, 403},
		{"unknown", w.CamCookie, map[string]any{"policy": "GRATIS"}, 400},
		{"empty", w.CamCookie, map[string]any{"policy": ""}, 400},
		{"missing", w.CamCookie, map[string]any{}, 400},
		{"lower case", w.CamCookie, map[string]any{"policy": " estricta "}, 200},
	} {
		if r := k.Put("/api/me/cancellation-policy", tc.cookie, tc.body); r.Status != tc.status {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
		}
	}
	// Before paying: the terms of the job, with its next visit.
	w.visit(t, w.clock().Add(100*time.Hour))
	terms := k.Get("/api/jobs/"+w.job.Id+"/payment/policy", w.ClientCookie)
	testkit.Expect(t, terms, 200, "")
	if terms.Str("cancellation.policy.name") != "ESTRICTA" || terms.Get("cancellation.lateNow") != false || terms.Str("cancellation.freeUntil") == "" {
		t.Fatalf("terms: %s", terms.Raw)
	}
	testkit.Expect(t, k.Get("/api/jobs/"+w.job.Id+"/payment/policy", w.StrangerCookie), 403, "")
	testkit.Expect(t, k.Get("/api/jobs/"+w.job.Id+"/payment/policy", ""), 401, "")
	pay := w.pay(t)
	testkit.Expect(t, pay, 201, "")
	if pay.Str("payment.cancellation.policy.name") != "ESTRICTA" {
		t.Fatalf("the payment's answer shows the policy: %s", pay.Raw)
	}
	w.advance(30 * time.Hour)
	if terms = k.Get("/api/jobs/"+w.job.Id+"/payment/policy", w.ClientCookie); terms.Get("cancellation.lateNow") != true || terms.Get("cancellation.feeNow") != float64(price) {
		t.Fatalf("late terms: %s", terms.Raw)
	}
}

// TestLateWindowRefusesVisitMoves: inside the late window of a paid job a
// visit is neither cancelled nor rescheduled on its own; outside it, or on
// a job not paid, it is.
func TestLateWindowRefusesVisitMoves(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	unpaidLate := w.visit(t, w.clock().Add(time.Hour))
	testkit.Expect(t, k.Post("/api/appointments/"+unpaidLate.Id+"/cancel", w.ClientCookie, nil), 200, "")

	w.job = w.pricedJob(t)
	w.held(t)
	inside := w.visit(t, w.clock().Add(48*time.Hour)) // MODERADA: the window starts now
	outside := w.visit(t, w.clock().Add(48*time.Hour+2*time.Hour))
	for _, cookie := range []string{w.ClientCookie, w.CamCookie} {
		r := k.Post("/api/appointments/"+inside.Id+"/cancel", cookie, nil)
		testkit.Expect(t, r, 409, "Faltan menos de 48 horas para la visita: la política de cancelación (Moderada) no permite reprogramarla ni cancelarla por separado; cancela el trabajo y se aplica la política")
	}
	err := writer.Transaction(app, func(tx core.App) error {
		_, err := appointments.Reschedule(tx, inside.Id, w.clock().Add(96*time.Hour), w.clock())
		return err
	})
	if err == nil {
		t.Fatal("a reschedule inside the late window was allowed")
	}
	testkit.Expect(t, k.Post("/api/appointments/"+outside.Id+"/cancel", w.ClientCookie, nil), 200, "")
}

// TestNoShow: the camello reports the client's absence (the policy's fee),
// the client reports the camello's (everything back); before the visit
// begins, or by a stranger, it is refused.
func TestNoShow(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	for _, tc := range []struct {
		name      string
		cookie    func() string
		visitIn   time.Duration
		status    int
		refund    int64
		jobStatus string
	}{
		{"before the visit", func() string { return w.CamCookie }, time.Second, 409, 0, "ASIGNADO"},
		{"a stranger", func() string { return w.StrangerCookie }, -time.Minute, 403, 0, "ASIGNADO"},
		{"the client did not show up", func() string { return w.CamCookie }, 0, 200, price / 2, "CANCELADO"},
		{"the camello did not show up", func() string { return w.ClientCookie }, -time.Hour, 200, price, "CANCELADO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w.job = w.pricedJob(t)
			w.visit(t, w.clock().Add(tc.visitIn))
			id, gid := w.held(t)
			r := k.Post("/api/jobs/"+w.job.Id+"/payment/no-show", tc.cookie(), nil)
			testkit.Expect(t, r, tc.status, "")
			w.settleRefunds(t)
			if int64(w.status(t, id).GetInt("refundAmount")) != tc.refund || int64(w.mp.Refunded(gid)) != tc.refund {
				t.Fatalf("refund %d / %v, want %d", w.status(t, id).GetInt("refundAmount"), w.mp.Refunded(gid), tc.refund)
			}
			job, _ := app.FindRecordById("jobs", w.job.Id)
			if job.GetString("status") != tc.jobStatus {
				t.Fatalf("job %s", job.GetString("status"))
			}
		})
	}
	verified(t, app)
}

// TestCancelRacesPayment: a client's cancellation and Mercado Pago's
// approval arrive together: whichever commits first, the money is held
// and refunded once, the camello gets nothing, the ledger balances.
func TestCancelRacesPayment(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	for round := range 4 {
		w.job = w.pricedJob(t)
		id, pref := w.started(t)
		gid := w.mp.Pay(t, pref.ID, "approved", "accredited")
		var wg sync.WaitGroup
		var cancel, hook int
		wg.Add(2)
		go func() { defer wg.Done(); cancel = k.Post("/api/jobs/"+w.job.Id+"/cancel", w.ClientCookie, nil).Status }()
		go func() { defer wg.Done(); hook = w.deliver(w.mp.Notification(gid)) }()
		wg.Wait()
		if cancel != 200 || hook != 200 {
			t.Fatalf("round %d: cancel %d, webhook %d", round, cancel, hook)
		}
		w.deliver(w.mp.Notification(gid)) // a duplicate changes nothing
		w.settleRefunds(t)
		p := w.status(t, id)
		if p.Status() != payments.StatusRefunded || w.mp.Refunded(gid) != price {
			t.Fatalf("round %d: %s, refunded %v", round, p.Status(), w.mp.Refunded(gid))
		}
		if m := movements(t, app, id); m["hold"] != 1 || m["refund"] != 2 || m["release"] != 0 {
			t.Fatalf("movements %v", m)
		}
	}
	if got := balance(t, app, ledger.AccountOfCamello(w.Camello.Id)); got != 0 {
		t.Fatalf("camello balance %d", got)
	}
	verified(t, app)
}
