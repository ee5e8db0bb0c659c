package jobs

import (
	"errors"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// storeKeyCancelListeners is the app.Store key of the functions told which
// camellos lost PROGRAMADA appointments to CancelAppointments.
const storeKeyCancelListeners = "camellos.jobs.cancelListeners"

// cancelListeners is the app's list of OnAppointmentsCancelled functions.
type cancelListeners struct {
	mu  sync.Mutex
	fns []func(camelloIDs []string)
}

func listenersOf(app core.App) *cancelListeners {
	return app.Store().GetOrSet(storeKeyCancelListeners, func() any {
		return &cancelListeners{}
	}).(*cancelListeners)
}

// OnAppointmentsCancelled registers fn, called with the camellos of the
// appointments CancelAppointments cancelled, once the write is committed
// (right away outside a transaction, after the transaction otherwise). The
// agenda drops those camellos' cached free slots with it: the cancellation
// is a raw UPDATE, which no record hook sees.
func OnAppointmentsCancelled(app core.App, fn func(camelloIDs []string)) {
	l := listenersOf(app)
	l.mu.Lock()
	l.fns = append(l.fns, fn)
	l.mu.Unlock()
}

// CancelAppointments is the one raw cancellation of appointments: it moves
// the PROGRAMADA appointments starting after now whose column ("id" or
// "job") equals value to CANCELADA in one conditional UPDATE, and returns
// how many it cancelled. The OnAppointmentsCancelled functions learn their
// camellos after the commit (also after a rollback: dropping a cache is
// harmless).
func CancelAppointments(app core.App, column, value string, now time.Time) (int, error) {
	if column != "id" && column != "job" {
		return 0, errors.New("jobs.CancelAppointments: unknown column " + column)
	}
	var camellos []string
	err := app.DB().NewQuery(
		"UPDATE " + AppointmentsCollection + " SET status = '" + AppointmentCancelled + "', updated = {:now} " +
			"WHERE " + column + " = {:value} AND status = '" + AppointmentScheduled + "' AND start > {:now} " +
			"RETURNING camello").
		Bind(dbx.Params{"value": value, "now": DBTimeOf(now)}).Column(&camellos)
	if len(camellos) > 0 {
		notify := func() {
			l := listenersOf(app)
			l.mu.Lock()
			fns := append([]func([]string){}, l.fns...)
			l.mu.Unlock()
			for _, fn := range fns {
				fn(camellos)
			}
		}
		if tx := app.TxInfo(); tx != nil {
			tx.OnComplete(func(error) error { notify(); return nil })
		} else {
			notify()
		}
	}
	if err != nil {
		return 0, err
	}
	return len(camellos), nil
}
