package messages

import (
	"camellos/internal/bus"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindDataRights contributes the user's conversations to an export: the
// messages the user wrote and those of the threads the user takes part in
// (as the job's client, or as the thread's camello). An erasure keeps them
// for the other party; the author then reads as "Usuario eliminado".
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		own, err := jobs.IDsOfClient(e.App, e.User.Id)
		if err != nil {
			return err
		}
		where := dbx.Or(dbx.HashExp{"author": e.User.Id}, dbx.In("job", own...))
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
		e.Data["messages"] = list
		var blocks []*core.Record
		if err := e.App.RecordQuery(Blocks).Where(dbx.HashExp{"blocker": e.User.Id}).OrderBy("created ASC").All(&blocks); err != nil {
			return err
		}
		if e.Data["conversationBlocks"], err = blockJSON(e.App, blocks); err != nil {
			return err
		}
		return e.Next()
	})
}
