package search

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/modules/places"

	"github.com/pocketbase/pocketbase/core"
)

// Near is a search that asks for camellos close to the client ("cerca de
// mí", "por aquí", "en mi barrio", "cerca"): the phrase read, and either
// the position used (sent by the client, or the point of a place of the
// gazetteer the search names: "cerca de Chapinero") or needsPosition —
// the client must send its position (lat and lng from the browser's
// geolocation, or a barrio) for the search to sort by distance.
type Near struct {
	Phrase        string     `json:"phrase"`
	NeedsPosition bool       `json:"needsPosition"`
	Position      *geo.Point `json:"position"`
}

// GazetteerPlace is a place of the gazetteer a search names ("plomero en
// Chapinero"), with its point: the position a client may send.
type GazetteerPlace struct {
	ID   string  `json:"id"`
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	City string  `json:"city"`
	Lat  float64 `json:"lat"`
	Lng  float64 `json:"lng"`
}

// nearPhrases are the ways of saying "close to me", folded, longest first
// (a phrase's words are taken: never keywords).
var nearPhrases = []phrase{
	{"cerca", "de", "mi", "casa"}, {"cerca", "de", "mi"}, {"cerca", "a", "mi"}, {"cerca", "de", "aqui"},
	{"en", "mi", "barrio"}, {"de", "mi", "barrio"}, {"en", "mi", "sector"}, {"en", "mi", "zona"},
	{"aqui", "cerca"}, {"por", "aqui"}, {"por", "aca"}, {"mi", "barrio"}, {"cerquita"}, {"cerca"},
}

// findNear reads a "close to me" phrase; nil when there is none.
func findNear(ts tokens, ws []string) *Near {
	for _, p := range nearPhrases {
		for i := range ws {
			if n := matchPhrase(ws, i, p, false); n > 0 && ts.free(i, n) {
				ts.use(i, n)
				orig := make([]string, 0, n)
				for _, t := range ts[i : i+n] {
					orig = append(orig, t.orig)
				}
				return &Near{Phrase: strings.Join(orig, " "), NeedsPosition: true}
			}
		}
	}
	return nil
}

// Spanish messages of a search's position.
const (
	msgLatLngTogether = "Envía lat y lng juntos"
	msgLat            = "Debe ser una latitud entre -90 y 90"
	msgLng            = "Debe ser una longitud entre -180 y 180"
	msgUnknownBarrio  = "No conocemos ese barrio o lugar"
)

// readPosition reads a position sent with a search: lat and lng, or a
// barrio of the gazetteer (id or name); nil when none. Errors go to v.
func readPosition(app core.App, lat, lng, barrio string, v *httpapi.Validation) (*geo.Point, error) {
	lat, lng, barrio = strings.TrimSpace(lat), strings.TrimSpace(lng), strings.TrimSpace(barrio)
	switch {
	case lat == "" && lng == "" && barrio == "":
		return nil, nil
	case lat == "" && lng == "":
		if len([]rune(barrio)) > 200 {
			v.Add("barrio", "Debe tener como máximo 200 caracteres")
			return nil, nil
		}
		p, ok, err := places.Resolve(app, barrio, "")
		if err != nil || !ok {
			if err == nil {
				v.Add("barrio", msgUnknownBarrio)
			}
			return nil, err
		}
		pt := p.Point()
		return &pt, nil
	case lat == "" || lng == "":
		v.Add(map[bool]string{true: "lat", false: "lng"}[lat == ""], msgLatLngTogether)
		return nil, nil
	}
	la, err1 := strconv.ParseFloat(lat, 64)
	ln, err2 := strconv.ParseFloat(lng, 64)
	if err1 != nil || math.IsNaN(la) || la < -90 || la > 90 {
		v.Add("lat", msgLat)
	}
	if err2 != nil || math.IsNaN(ln) || ln < -180 || ln > 180 {
		v.Add("lng", msgLng)
	}
	return &geo.Point{Lat: la, Lng: ln}, nil
}

// locate completes an interpretation with the gazetteer and the position
// sent (nil: none): the place the search names (its neighbourhood, else a
// barrio, comuna or localidad written in it) and, when the search asks
// for nearness or a position was sent, the position used.
func locate(app core.App, it *Interpretation, sent *geo.Point) error {
	city := ""
	if it.City != nil {
		city = *it.City
	}
	var p places.Info
	var ok bool
	var err error
	if it.Neighborhood != nil {
		p, ok, err = places.Resolve(app, *it.Neighborhood, city)
	}
	if err == nil && !ok {
		p, ok, err = places.Mention(app, strings.Fields(text.Fold(it.Query)), city)
	}
	if err != nil {
		return err
	}
	if ok {
		it.Place = &GazetteerPlace{ID: p.ID, Name: p.Name, Kind: p.Kind, City: p.City, Lat: p.Lat, Lng: p.Lng}
	}
	switch {
	case sent != nil:
		if it.Near == nil {
			it.Near = &Near{}
		}
		it.Near.Position, it.Near.NeedsPosition = sent, false
	case it.Near != nil && it.Place != nil:
		it.Near.Position = &geo.Point{Lat: it.Place.Lat, Lng: it.Place.Lng}
		it.Near.NeedsPosition = false
	}
	return nil
}

// byDistance orders ranked camellos nearest first (the rank among equal
// distances stays).
func byDistance(list []ranked) {
	slices.SortStableFunc(list, func(a, b ranked) int {
		switch {
		case a.DistanceKm < b.DistanceKm:
			return -1
		case a.DistanceKm > b.DistanceKm:
			return 1
		}
		return 0
	})
}
