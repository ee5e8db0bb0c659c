// Package search interprets natural-language searches.
package search

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"camellos/internal/bounds"
	"camellos/internal/bus"
	"camellos/internal/config"
	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/modules/places"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Location is the app's time zone for relative dates (APP_TIMEZONE,
// default America/Bogota).
func Location(app core.App) *time.Location {
	if tz := config.Of(app).Timezone; tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			return loc
		}
	}
	if loc, err := time.LoadLocation("America/Bogota"); err == nil {
		return loc
	}
	return time.FixedZone("America/Bogota", -5*3600)
}

// Register binds the search area's record hooks and routes.
func Register(app core.App) {
	// The vocabulary is learned from the data: any change of a category,
	// service or camello forgets it.
	vocabulary.Declare(app)
	reviewText.Declare(app)
	forget := func(e *bus.Change) error {
		vocabulary.Drop(e.App, struct{}{})
		return e.Next()
	}
	ev := bus.Of(app)
	ev.CatalogChanged.BindFunc(forget)
	ev.CamelloChanged.BindFunc(forget)
	h := &interpreter{now: time.Now, loc: Location(app)}
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// POST /api/search/interpret: what a Spanish free-text search means (public).
		g.POST("/search/interpret", h.searchInterpret)
		// GET /api/search?query=&lat=&lng=&barrio=&page=&perPage=: the camellos a search finds, ranked (public);
		// "cerca de mí" with a position (or a barrio) keeps those who reach it, nearest first.
		g.GET("/search", h.searchFind).Bind(apis.SkipSuccessActivityLog())
		return se.Next()
	})
}

// interpreter answers POST /api/search/interpret with an injectable clock.
type interpreter struct {
	now func() time.Time
	loc *time.Location
}

type interpretInput struct {
	Query *string  `json:"query"`
	Lat   *float64 `json:"lat"` // the client's position, optional (with lng)
	Lng   *float64 `json:"lng"`
}

// searchInterpret answers 200 {interpretation}; query 1–300 characters.
func (h *interpreter) searchInterpret(e *core.RequestEvent) error {
	var in interpretInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	query := ""
	if in.Query == nil {
		v.Add("query", "Es obligatorio")
	} else {
		query = strings.TrimSpace(*in.Query)
		httpapi.CheckLength(v, "query", query, bounds.SearchQueryMin, bounds.SearchQueryMax)
	}
	var sent *geo.Point
	switch {
	case in.Lat == nil && in.Lng == nil:
	case in.Lat == nil || in.Lng == nil:
		v.Add(map[bool]string{true: "lat", false: "lng"}[in.Lat == nil], msgLatLngTogether)
	default:
		sent = &geo.Point{Lat: *in.Lat, Lng: *in.Lng}
		if sent.Lat < -90 || sent.Lat > 90 {
			v.Add("lat", msgLat)
		}
		if sent.Lng < -180 || sent.Lng > 180 {
			v.Add("lng", msgLng)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	vocab, _, err := vocabulary.Get(e.App, struct{}{})
	if err != nil {
		return err
	}
	it := Interpret(query, vocab, h.now(), h.loc)
	if err := locate(e.App, &it, sent); err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"interpretation": it})
}

// resultJSON is one camello a search found: its public object, the score,
// the words it matched and its free slots in the time applied (null when
// no time filter applies).
type resultJSON struct {
	Camello   json.RawMessage `json:"camello"`
	Score     int             `json:"score"`
	Matched   []string        `json:"matched"`
	FreeSlots *int            `json:"freeSlots"`
	// DistanceKm is the rounded distance from the position used (null
	// when the search is not by distance).
	DistanceKm *float64 `json:"distanceKm"`
}

// searchFind answers GET /api/search?query=&page=&perPage= (public):
// {interpretation, applied, relaxed, notice, results, page, perPage,
// total}. query 1–300 characters.
func (h *interpreter) searchFind(e *core.RequestEvent) error {
	v := httpapi.NewValidation()
	query := strings.TrimSpace(e.Request.URL.Query().Get("query"))
	if !e.Request.URL.Query().Has("query") {
		v.Add("query", "Es obligatorio")
	} else {
		httpapi.CheckLength(v, "query", query, bounds.SearchQueryMin, bounds.SearchQueryMax)
	}
	page := httpapi.ReadPage(e, v)
	q := e.Request.URL.Query()
	sent, err := places.ReadPosition(e.App, q.Get("lat"), q.Get("lng"), q.Get("barrio"), "", v)
	if err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	vocab, _, err := vocabulary.Get(e.App, struct{}{})
	if err != nil {
		return err
	}
	now := h.now()
	it := Interpret(query, vocab, now, h.loc)
	if err := locate(e.App, &it, sent); err != nil {
		return err
	}
	res, err := find(e.App, it, h.loc, now)
	if err != nil {
		return err
	}
	results := []resultJSON{}
	total := int64(len(res.list))
	for i := page.Offset(); i < total && len(results) < page.PerPage; i++ {
		r := res.list[i]
		out := resultJSON{Camello: r.Raw, Score: r.score, Matched: r.matched}
		if out.Matched == nil {
			out.Matched = []string{}
		}
		if r.free >= 0 {
			n := r.free
			out.FreeSlots = &n
		}
		if res.applied.Near != nil {
			d := geo.RoundKm(r.DistanceKm)
			out.DistanceKm = &d
		}
		results = append(results, out)
	}
	relaxed := res.relaxed
	if relaxed == nil {
		relaxed = []Relaxed{}
	}
	var notice *string
	if len(relaxed) > 0 {
		msgs := make([]string, len(relaxed))
		for i, r := range relaxed {
			msgs[i] = r.Message
		}
		s := strings.Join(msgs, " ")
		notice = &s
	}
	body := page.Answer("results", results, total)
	body["interpretation"] = it
	body["applied"] = res.applied
	body["relaxed"] = relaxed
	body["notice"] = notice
	return e.JSON(http.StatusOK, body)
}
