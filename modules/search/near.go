package search

import (
	"slices"
	"strings"

	"camellos/internal/geo"
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
	msgLatLngTogether = geo.MsgLatLngTogether
	msgLat            = geo.MsgLat
	msgLng            = geo.MsgLng
)

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
