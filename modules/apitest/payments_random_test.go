package apitest_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/payments"

	"github.com/pocketbase/pocketbase/core"
)

// TestPaymentsRandomWithFaults drives the money's state machine with a
// seeded random sequence of operations (pay, approve, duplicate
// notifications, complete, confirm, dispute, resolve, cancel under every
// policy, no-shows, the window's sweep, payout batches, failed payouts)
// while Mercado Pago fails at random (FailNext: the checkout, the lookups,
// the refunds). After the run `ledger verify` passes and every payment's
// books agree with its state: nothing held that should not be, every
// refund made at Mercado Pago exactly as decided and booked once.
// CAMELLOS_PAYMENTS_OPS=N runs N operations (default 1200), and
// CAMELLOS_PAYMENTS_SEED picks the seed.
func TestPaymentsRandomWithFaults(t *testing.T) {
	ops := 1200
	if n, err := strconv.Atoi(os.Getenv("CAMELLOS_PAYMENTS_OPS")); err == nil && n > 0 {
		ops = n
	}
	seed := uint64(23)
	if n, err := strconv.ParseUint(os.Getenv("CAMELLOS_PAYMENTS_SEED"), 10, 64); err == nil {
		seed = n
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w := newPayWorld(t, nil)
	app := w.K.App
	policies := []payments.Policy{payments.PolicyFlexible, payments.PolicyModerate, payments.PolicyStrict}
	type live struct{ job, pay string }
	var open []live
	counts := map[string]int{}
	pick := func() (live, bool) {
		if len(open) == 0 {
			return live{}, false
		}
		return open[rng.IntN(len(open))], true
	}
	for i := 0; i < ops; i++ {
		if rng.IntN(10) == 0 {
			w.mp.FailNext(1 + rng.IntN(3)) // an outage of a few calls
		}
		w.advance(time.Duration(rng.IntN(6)) * time.Hour)
		op := rng.IntN(13)
		switch op {
		case 0, 1: // a new priced job, paid
			if err := payments.SetPolicy(app, w.Camello.Id, policies[rng.IntN(3)]); err != nil {
				t.Fatal(err)
			}
			job := w.pricedJob(t)
			if rng.IntN(2) == 0 {
				// A visit 1–96 h ahead (a slot already taken is skipped).
				start := w.clock().Add(time.Duration(1+rng.IntN(96)) * time.Hour)
				col, _ := app.FindCollectionByNameOrId("appointments")
				a := core.NewRecord(col)
				a.Load(map[string]any{"job": job.Id, "camello": w.Camello.Id, "client": w.Client.Id, "status": "PROGRAMADA",
					"start": start.Format(payments.DBTime), "end": start.Add(time.Hour).Format(payments.DBTime)})
				_ = app.Save(a)
			}
			// The client retries a checkout Mercado Pago failed (same row, same key).
			var p *payments.Payment
			var err error
			for try := 0; try < 4; try++ {
				if p, _, err = payments.Start(app, job.Id, w.Client.Id); err == nil {
					break
				}
				counts["start failed"]++
			}
			if err != nil {
				continue
			}
			if pref := w.mp.PreferenceByRef(p.Id); pref != nil {
				status := []string{"approved", "approved", "approved", "pending", "rejected"}[rng.IntN(5)]
				w.mp.Pay(t, pref.ID, status, "")
				if rng.IntN(10) < 7 { // the webhook comes (else the return or the sweep, later)
					if _, err := payments.Check(app, p.Id); err != nil {
						counts["check failed"]++
					}
				}
			}
			open = append(open, live{job.Id, p.Id})
		case 2: // the return / the sweep / a (duplicated) webhook: Check applies what Mercado Pago has
			if l, ok := pick(); ok {
				if _, err := payments.Check(app, l.pay); err != nil {
					counts["check failed"]++
				}
			}
		case 3: // the camello marks the job done (HTTP is too slow here: the same record save)
			if l, ok := pick(); ok {
				if j, err := app.FindRecordById("jobs", l.job); err == nil {
					for _, st := range []string{jobs.StatusInProgress, jobs.StatusCompleted} {
						if j.GetString("status") == jobs.StatusAssigned || (st == jobs.StatusCompleted && j.GetString("status") == jobs.StatusInProgress) {
							j.Set("status", st)
							if err := app.Save(j); err != nil {
								break
							}
						}
					}
				}
			}
		case 4:
			if l, ok := pick(); ok {
				if p, err := payments.Find(app, l.pay); err == nil {
					if _, err := payments.Confirm(app, p); err == nil {
						counts["confirmed"]++
					}
				}
			}
		case 5:
			if l, ok := pick(); ok {
				if p, err := payments.Find(app, l.pay); err == nil {
					if _, err := payments.Dispute(app, p, "No quedó como lo acordamos"); err == nil {
						counts["disputed"]++
					}
				}
			}
		case 6:
			if l, ok := pick(); ok {
				outcome := []string{payments.ResolveRelease, payments.ResolveRefund, payments.ResolveSplit}[rng.IntN(3)]
				if _, err := payments.Resolve(app, l.pay, w.Admin.Id, outcome, int64(1+rng.IntN(price-1)), ""); err == nil {
					counts["resolved "+outcome]++
				}
			}
		case 7, 8: // a cancellation by someone
			if l, ok := pick(); ok {
				by := []string{w.Client.Id, w.CamUser.Id, w.Admin.Id}[rng.IntN(3)]
				if err := jobs.Cancel(app, l.job, by); err == nil {
					counts["cancelled"]++
				}
			}
		case 9:
			if l, ok := pick(); ok {
				by := []string{w.Client.Id, w.CamUser.Id}[rng.IntN(2)]
				if _, err := payments.NoShow(app, l.job, by); err == nil {
					counts["no-show"]++
				}
			}
		case 10:
			n, err := payments.ReleaseDue(app, w.clock())
			if err != nil {
				t.Fatal(err)
			}
			counts["released by the window"] += n
		case 11:
			if _, rows, err := payments.RunPayoutBatch(app, w.Admin.Id); err == nil {
				counts["payout batches"]++
				for _, r := range rows {
					status := payments.PayoutPaid
					if rng.IntN(4) == 0 {
						status = payments.PayoutFailed
					}
					if err := payments.SettlePayout(app, r.ID, w.Admin.Id, status, ""); err != nil {
						t.Fatal(err)
					}
				}
			}
		case 12:
			if _, err := payments.RefundsDue(app); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Mercado Pago back: every refund due is made, every open payment checked.
	w.mp.FailNext(0)
	for range 3 {
		if _, err := payments.RefundsDue(app); err != nil {
			t.Fatal(err)
		}
	}
	r := verified(t, app)
	recs, err := app.FindAllRecords(payments.Collection)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, rec := range recs {
		p := &payments.Payment{}
		p.SetProxyRecord(rec)
		states[p.Status()]++
		held := -balance(t, app, ledger.AccountOfHeld(p.Id))
		want := int64(0)
		if p.Status() == payments.StatusHeld || p.Status() == payments.StatusDisputed {
			want = int64(p.GetInt("heldAmount"))
		}
		if held != want {
			t.Fatalf("payment %s %s holds %d, want %d", p.Id, p.Status(), held, want)
		}
		refund := int64(p.GetInt("refundAmount"))
		if refund > 0 {
			gid, _ := strconv.Atoi(p.GetString("gatewayPaymentId"))
			if p.GetString("refundedAt") == "" || int64(w.mp.Refunded(gid)) != refund {
				t.Fatalf("payment %s: refund %d decided, %v made at Mercado Pago (refundedAt %q)", p.Id, refund, w.mp.Refunded(gid), p.GetString("refundedAt"))
			}
		}
		m := movements(t, app, p.Id)
		if m["release"] > 1 || m["commission"] > 1 || m["hold"] > 1 || m["refund"] > 2 {
			t.Fatalf("payment %s moved twice: %v", p.Id, m)
		}
	}
	if owed := balance(t, app, ledger.AccountOfClient(w.Client.Id)); owed != 0 {
		t.Fatalf("the client is still owed %d after every refund was made", -owed)
	}
	t.Logf("seed %d, %d operations: payments by state %v; %v; ledger %s", seed, ops, states, counts, testkit.Unique())
	_ = r
}
