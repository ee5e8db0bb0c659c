package agenda

import (
	"camellos/internal/bus"
	"camellos/modules/appointments"
	"camellos/modules/camellos"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindDataRights contributes the user's appointments (as client or as
// camello) and the camello's availability to an export; an erasure drops
// the availability (the profile is no longer bookable) and the calendar
// feed (its URL dies), and keeps the appointments for the other party.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		where := dbx.Expression(dbx.HashExp{"client": e.User.Id})
		e.Data["availability"] = nil
		if cam, err := e.App.FindFirstRecordByData(camellos.Collection, "user", e.User.Id); err == nil {
			where = dbx.Or(where, dbx.HashExp{"camello": cam.Id})
			if rec := findAvailability(e.App, cam.Id); rec != nil {
				e.Data["availability"] = availabilityJSON(scheduleOf(rec), rec)
			}
		}
		recs, err := e.App.FindAllRecords(appointments.Collection, where)
		if err != nil {
			return err
		}
		list := make([]map[string]any, 0, len(recs))
		for _, r := range recs {
			list = append(list, AppointmentJSON(r))
		}
		e.Data["appointments"] = list
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		if feed, err := e.App.FindFirstRecordByData(CalendarFeedsCollection, "user", e.User.Id); err == nil {
			if err := e.App.Delete(feed); err != nil {
				return err
			}
		}
		if cam, err := e.App.FindFirstRecordByData(camellos.Collection, "user", e.User.Id); err == nil {
			if rec := findAvailability(e.App, cam.Id); rec != nil {
				if err := e.App.Delete(rec); err != nil {
					return err
				}
			}
		}
		return e.Next()
	})
}
