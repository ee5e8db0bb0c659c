package pb_migrations

import (
	"camellos/internal/cities"
	foldtext "camellos/internal/text"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Issue 24: every stored city folded to its one spelling (internal/cities:
// "bogota", "Bogotá D.C." and "BOGOTA" become "Bogotá"), as the record
// hooks of camellos, jobs and users now write it; the folded copy
// (cityKey) follows. Rows already in their spelling are left alone; the
// down migration keeps the folded spelling (the typed one is gone).
func init() {
	m.Register(func(app core.App) error {
		for _, t := range []struct {
			table  string
			hasKey bool
		}{{"camellos", true}, {"jobs", true}, {"users", false}} {
			var rows []struct {
				ID   string `db:"id"`
				City string `db:"city"`
			}
			if err := app.DB().NewQuery("SELECT id, city FROM " + t.table + " WHERE city != ''").All(&rows); err != nil {
				return err
			}
			for _, r := range rows {
				c := cities.Canonical(r.City)
				if c == r.City {
					continue
				}
				set := "city = {:city}"
				params := dbx.Params{"id": r.ID, "city": c}
				if t.hasKey {
					set += ", cityKey = {:key}"
					params["key"] = foldtext.Fold(c)
				}
				if _, err := app.DB().NewQuery("UPDATE " + t.table + " SET " + set + " WHERE id = {:id}").Bind(params).Execute(); err != nil {
					return err
				}
			}
		}
		return nil
	}, func(app core.App) error { return nil })
}
