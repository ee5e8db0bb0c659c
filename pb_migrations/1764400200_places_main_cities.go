package pb_migrations

import (
	"camellos/modules/places"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The comunas, localidades and some barrios of Cali, Barranquilla,
// Cartagena and Bucaramanga (issue 26), owned by modules/places: placed by
// hand at approximate centres, each row's source saying so
// (main_cities.csv, docs/gazetteer.md). A place an admin already added
// (same name, same city) is left as it is.
func init() {
	m.Register(func(app core.App) error {
		return places.SeedMainCities(app)
	}, func(app core.App) error {
		return places.UnseedMainCities(app)
	})
}
