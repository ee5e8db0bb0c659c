package legal

import (
	"camellos/internal/bus"
	"camellos/internal/timefmt"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// bindDataRights contributes the user's consents to an export; an erasure
// keeps the record of what was accepted (slug, version, time) and drops
// the IP address and user agent.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		recs, err := e.App.FindRecordsByFilter(Acceptances, "user = {:u}", "created", 0, 0, dbx.Params{"u": e.User.Id})
		if err != nil {
			return err
		}
		list := make([]map[string]any, 0, len(recs))
		for _, r := range recs {
			list = append(list, map[string]any{
				"slug": r.GetString("slug"), "version": r.GetInt("version"), "ip": r.GetString("ip"),
				"userAgent": r.GetString("userAgent"), "acceptedAt": timefmt.ISO(r.GetDateTime("created").Time()),
			})
		}
		e.Data["consents"] = list
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		_, err := e.App.DB().Update(Acceptances, dbx.Params{"ip": "", "userAgent": ""}, dbx.HashExp{"user": e.User.Id}).Execute()
		if err != nil {
			return err
		}
		return e.Next()
	})
}
