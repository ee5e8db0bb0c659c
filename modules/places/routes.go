package places

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/internal/session"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Register binds the gazetteer's hooks, projection and routes.
func Register(app core.App) {
	bindHooks(app)
	declareIndex(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		g := httpapi.API(se)
		// GET /api/places?q=&city=&kind=&limit=: places whose name starts with (or contains) q — the barrio picker.
		g.GET("/places", placesList).Bind(apis.SkipSuccessActivityLog())
		// GET /api/places/{id}: one place.
		g.GET("/places/{id}", placeView).Bind(apis.SkipSuccessActivityLog())

		admin := g.Group("/admin")
		admin.Bind(session.RequireAdmin(httpapi.MsgUnauthenticated))
		// GET /api/admin/places?q=&city=&kind=&page=&perPage=: the gazetteer, paged, with each row's source.
		admin.GET("/places", placesAdminList)
		// POST /api/admin/places: add a place.
		admin.POST("/places", placeCreate)
		// PATCH /api/admin/places/{id}: correct a place (name, kind, city, point, source).
		admin.PATCH("/places/{id}", placeUpdate)
		// DELETE /api/admin/places/{id}: remove a place (camellos keep the point they picked from it).
		admin.DELETE("/places/{id}", placeDelete)
		return se.Next()
	})
}

// Spanish messages of the gazetteer's inputs.
const (
	MsgLat          = geo.MsgLat
	MsgLng          = geo.MsgLng
	MsgKind         = "Debe ser CIUDAD, LOCALIDAD, COMUNA o BARRIO"
	MsgUnknownPlace = "No conocemos ese barrio o lugar" // a place id or name sent by a client
)

// validate checks the fields present; create requires every one but the
// department.
func (in *Input) validate(create bool) error {
	v := httpapi.NewValidation()
	str := func(field string, p *string, lo, hi int) {
		if p == nil {
			if create && lo > 0 {
				v.Add(field, "Es obligatorio")
			}
			return
		}
		*p = strings.TrimSpace(*p)
		httpapi.CheckLength(v, field, *p, lo, hi)
	}
	str("name", in.Name, bounds.PlaceNameMin, bounds.PlaceNameMax)
	str("city", in.City, bounds.CityMin, bounds.CityMax)
	str("department", in.Department, 0, bounds.PlaceDepartmentMax)
	str("source", in.Source, bounds.PlaceSourceMin, bounds.PlaceSourceMax)
	if in.Kind != nil && !slices.Contains(Kinds, *in.Kind) {
		v.Add("kind", MsgKind)
	} else if in.Kind == nil && create {
		v.Add("kind", "Es obligatorio")
	}
	coord := func(field string, p *float64, lim float64, msg string) {
		if p == nil {
			if create {
				v.Add(field, "Es obligatorio")
			}
			return
		}
		if math.IsNaN(*p) || *p < -lim || *p > lim {
			v.Add(field, msg)
		}
	}
	coord("lat", in.Lat, 90, MsgLat)
	coord("lng", in.Lng, 180, MsgLng)
	return v.Err()
}

// infoOf is the answer of a saved place.
func infoOf(p *Place) Info {
	return Info{ID: p.Id, Name: p.Name(), Kind: p.Kind(), City: p.City(), Department: p.GetString(FieldDepartment),
		Lat: p.GetFloat(FieldLat), Lng: p.GetFloat(FieldLng), Source: p.GetString(FieldSource)}
}

// placesList answers {places}: at most limit (1–50, default 20).
func placesList(e *core.RequestEvent) error {
	q := e.Request.URL.Query()
	v := httpapi.NewValidation()
	for _, name := range []string{"q", "city"} {
		httpapi.CheckLength(v, name, q.Get(name), 0, 200)
	}
	kind := q.Get("kind")
	if kind != "" && !slices.Contains(Kinds, kind) {
		v.Add("kind", MsgKind)
	}
	limit := 20
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 50 {
			v.Add("limit", "Debe ser un número entero entre 1 y 50")
		}
		limit = n
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, err := Find(e.App, q.Get("q"), q.Get("city"), kind, limit)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"places": list})
}

// placeView answers {place}; 404 when unknown.
func placeView(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, ok, err := Lookup(e.App, id)
	if err != nil {
		return err
	}
	if !ok {
		return httpapi.NotFound(MsgPlaceNotFound)
	}
	return e.JSON(http.StatusOK, map[string]any{"place": p})
}

// placesAdminList answers {places, page, perPage, total}.
func placesAdminList(e *core.RequestEvent) error {
	v := httpapi.NewValidation()
	page := httpapi.ReadPage(e, v)
	q := e.Request.URL.Query()
	for _, name := range []string{"q", "city"} {
		httpapi.CheckLength(v, name, q.Get(name), 0, 200)
	}
	kind := q.Get("kind")
	if kind != "" && !slices.Contains(Kinds, kind) {
		v.Add("kind", MsgKind)
	}
	if err := v.Err(); err != nil {
		return err
	}
	g, err := indexOf(e.App)
	if err != nil {
		return err
	}
	list := g.find(q.Get("q"), q.Get("city"), kind, page.PerPage, int(page.Offset()))
	return e.JSON(http.StatusOK, page.Answer("places", list, int64(g.count(q.Get("q"), q.Get("city"), kind))))
}

// placeCreate answers 201 {place}.
func placeCreate(e *core.RequestEvent) error {
	var in Input
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	if err := in.validate(true); err != nil {
		return err
	}
	p, err := Create(e.App, in)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"place": infoOf(p)})
}

// placeUpdate answers {place}.
func placeUpdate(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	var in Input
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	if err := in.validate(false); err != nil {
		return err
	}
	p, err := Update(e.App, id, in)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"place": infoOf(p)})
}

// placeDelete answers 204.
func placeDelete(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	if err := Delete(e.App, id); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

// ReadPosition reads a client's position as the listing and the search take
// it: lat and lng (degrees, both or neither), or barrio (a place of the
// gazetteer by id or name, looked up in city when one is given). nil when
// none is sent; every refusal (one coordinate alone, a bad coordinate, an
// unknown or over-long barrio) is added to v with its Spanish message.
func ReadPosition(app core.App, lat, lng, barrio, city string, v *httpapi.Validation) (*geo.Point, error) {
	lat, lng, barrio = strings.TrimSpace(lat), strings.TrimSpace(lng), strings.TrimSpace(barrio)
	switch {
	case lat == "" && lng == "" && barrio == "":
		return nil, nil
	case lat == "" && lng == "":
		if len([]rune(barrio)) > 200 {
			if !v.Has("barrio") { // the caller may have checked the length already
				v.Add("barrio", "Debe tener como máximo 200 caracteres")
			}
			return nil, nil
		}
		p, ok, err := Resolve(app, barrio, city)
		if err != nil {
			return nil, err
		}
		if !ok {
			v.Add("barrio", MsgUnknownPlace)
			return nil, nil
		}
		pt := p.Point()
		return &pt, nil
	case lat == "" || lng == "":
		v.Add(map[bool]string{true: "lat", false: "lng"}[lat == ""], geo.MsgLatLngTogether)
		return nil, nil
	}
	p, badLat, badLng := geo.ParseQuery(lat, lng)
	if badLat {
		v.Add("lat", MsgLat)
	}
	if badLng {
		v.Add("lng", MsgLng)
	}
	return &p, nil
}
