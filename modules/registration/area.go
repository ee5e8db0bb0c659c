package registration

import (
	"math"
	"net/http"
	"strconv"

	"camellos/internal/bounds"
	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/camellos"
	"camellos/modules/places"

	"github.com/pocketbase/pocketbase/core"
)

// areaInput is the body of PUT /api/me/camello/area: a base point from a
// map tap (lat and lng) or a place of the gazetteer (placeId), and how far
// the camello travels (radiusKm, whole km).
type areaInput struct {
	Lat      *float64 `json:"lat"`
	Lng      *float64 `json:"lng"`
	PlaceID  *string  `json:"placeId"`
	RadiusKm *float64 `json:"radiusKm"`
}

// Spanish messages of the work area.
var (
	msgRadius      = "Debe ser un número entero de " + strconv.Itoa(bounds.TravelRadiusMinKm) + " a " + strconv.Itoa(bounds.TravelRadiusMaxKm) + " km"
	msgPointOrGaz  = "Elige un barrio o un punto en el mapa (lat y lng), no ambos"
	msgNoPoint     = "Elige un barrio o un punto en el mapa (lat y lng)"
	msgUnknownGaz  = "No conocemos ese barrio o lugar"
	msgLatTogether = "Envía lat y lng juntos"
)

// areaOf checks in and resolves its place: the work area to set.
func areaOf(e *core.RequestEvent, in *areaInput) (camellos.WorkArea, error) {
	v := httpapi.NewValidation()
	var a camellos.WorkArea
	switch {
	case in.RadiusKm == nil:
		v.Add("radiusKm", "Es obligatorio")
	case *in.RadiusKm != math.Trunc(*in.RadiusKm) || *in.RadiusKm < bounds.TravelRadiusMinKm || *in.RadiusKm > bounds.TravelRadiusMaxKm:
		v.Add("radiusKm", msgRadius)
	default:
		a.RadiusKm = int(*in.RadiusKm)
	}
	tapped := in.Lat != nil || in.Lng != nil
	switch {
	case in.PlaceID != nil && tapped:
		v.Add("placeId", msgPointOrGaz)
	case in.PlaceID != nil:
		p, ok, err := places.Lookup(e.App, *in.PlaceID)
		if err != nil {
			return a, err
		}
		if !ok {
			v.Add("placeId", msgUnknownGaz)
			break
		}
		a.Point, a.PlaceID, a.PlaceName = p.Point(), p.ID, p.Name
	case tapped:
		if in.Lat == nil || in.Lng == nil {
			v.Add(map[bool]string{true: "lat", false: "lng"}[in.Lat == nil], msgLatTogether)
			break
		}
		a.Point = geo.Point{Lat: *in.Lat, Lng: *in.Lng}
		if a.Point.Lat < -90 || a.Point.Lat > 90 {
			v.Add("lat", places.MsgLat)
		}
		if a.Point.Lng < -180 || a.Point.Lng > 180 {
			v.Add("lng", places.MsgLng)
		}
	default:
		v.Add("placeId", msgNoPoint)
	}
	return a, v.Err()
}

// camelloAreaSet sets where the camello works from and how far it travels;
// answers its private profile (with area).
func camelloAreaSet(e *core.RequestEvent) error {
	var in areaInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	a, err := areaOf(e, &in)
	if err != nil {
		return err
	}
	c, err := camellos.SetWorkArea(e.App, session.AuthUser(e).Id, a)
	if err != nil {
		return err
	}
	return camellos.Respond(e, http.StatusOK, c.Record, camellos.PrivateFor(session.AuthUser(e), c.Record))
}

// camelloAreaClear removes the work area: the camello leaves the searches
// by distance.
func camelloAreaClear(e *core.RequestEvent) error {
	c, err := camellos.ClearWorkArea(e.App, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	return camellos.Respond(e, http.StatusOK, c.Record, camellos.PrivateFor(session.AuthUser(e), c.Record))
}
