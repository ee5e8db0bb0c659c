package quotes

import (
	"camellos/internal/bus"
	"camellos/internal/clock"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindDataRights contributes the quotes sent by the user's camello and the
// quotes received on the user's jobs to an export; an erasure withdraws the
// camello's live quotes (the profile is leaving) and keeps the others for
// the clients' history.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		own, err := jobs.IDsOfClient(e.App, e.User.Id)
		if err != nil {
			return err
		}
		where := dbx.Expression(dbx.In("job", own...))
		if cam, err := camellos.OfUser(e.App, e.User.Id); err == nil {
			where = dbx.Or(where, dbx.HashExp{"camello": cam.Id})
		}
		recs, err := e.App.FindAllRecords(Collection, where)
		if err != nil {
			return err
		}
		list, err := JSON(e.App, recs)
		if err != nil {
			return err
		}
		e.Data["quotes"] = list
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		cam, err := e.App.FindFirstRecordByData(camellos.Collection, "user", e.User.Id)
		if err != nil {
			return e.Next()
		}
		live, err := e.App.FindAllRecords(Collection, dbx.HashExp{"camello": cam.Id, "status": StatusPending})
		if err != nil {
			return err
		}
		now := clock.Now(e.App)
		for _, q := range live {
			if (&Quote{q}).Status(now) != StatusPending {
				continue // expired: the sweep marks it
			}
			if err := transition(e.App, q.Id, (&Quote{q}).JobID(), StatusWithdrawn, now); err != nil {
				return err
			}
		}
		return e.Next()
	})
}
