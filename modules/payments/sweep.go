package payments

import (
	"context"
	"errors"
	"time"

	"camellos/internal/clock"
	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Reconciliation (a webhook that never comes): the sweep asks Mercado Pago
// for the payments of every open payment (INICIADO or PENDIENTE) not
// checked for SweepMinAge, searching by external_reference, and applies
// what it finds; the client's return to the job page does the same for
// one payment at once (Check).
const (
	SweepSchedule = "*/10 * * * *"
	SweepMinAge   = 5 * time.Minute
	// SweepMaxAge: older open payments are no longer asked about (a
	// checkout that was never paid).
	SweepMaxAge = 30 * 24 * time.Hour
	// SweepBatch bounds the payments asked about per sweep.
	SweepBatch = 200
)

// Check reconciles one payment with the gateway now.
func Check(app core.App, paymentID string) (Outcome, error) {
	gw, err := gatewayOf(app)
	if err != nil {
		return OutcomeNone, err
	}
	err = markChecked(app, paymentID)
	if err != nil {
		return OutcomeNone, err
	}
	found, err := gw.paymentsOf(context.Background(), paymentID)
	if err != nil {
		return OutcomeNone, err
	}
	// Approved attempts first: an older rejection must not hide them.
	best := OutcomeNone
	for _, approvedFirst := range []bool{true, false} {
		for _, gp := range found {
			if (gp.Status == gwApproved) != approvedFirst {
				continue
			}
			out, err := Apply(app, gp)
			if err != nil && !errors.Is(err, errNotOurs) {
				return best, err
			}
			if best == OutcomeNone {
				best = out
			}
		}
	}
	return best, nil
}

func markChecked(app core.App, id string) error {
	return writer.Transaction(app, func(tx core.App) error {
		_, err := tx.DB().NewQuery("UPDATE payments SET checkedAt = {:now} WHERE id = {:id}").
			Bind(dbx.Params{"now": dbTime(clock.Now(tx)), "id": id}).Execute()
		return err
	})
}

// Reconcile runs one sweep at now: every open payment last checked before
// now - SweepMinAge (and started within SweepMaxAge) is checked with the
// gateway. It answers how many payments changed.
func Reconcile(app core.App, now time.Time) (int, error) {
	var ids []string
	err := app.DB().NewQuery("SELECT id FROM payments WHERE status IN ('INICIADO', 'PENDIENTE') " +
		"AND checkedAt < {:checked} AND createdAt > {:since} ORDER BY checkedAt LIMIT {:limit}").
		Bind(dbx.Params{"checked": dbTime(now.Add(-SweepMinAge)), "since": dbTime(now.Add(-SweepMaxAge)), "limit": SweepBatch}).
		Column(&ids)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, id := range ids {
		out, err := Check(app, id)
		if err != nil {
			app.Logger().Warn("payments: sweep could not check a payment", "payment", id, "error", err.Error())
			continue
		}
		if out != OutcomeNone {
			changed++
		}
	}
	return changed, nil
}
