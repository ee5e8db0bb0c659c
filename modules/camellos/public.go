package camellos

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"camellos/internal/cities"
	"camellos/internal/geo"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/modules/places"
	"camellos/modules/search"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/pocketbase/pocketbase/tools/types"
)

// MsgCamelloNotFound is the 404 of an unknown (or not public) camello.
const MsgCamelloNotFound = "Camello no encontrado"

// bindPublic binds the public provider routes: GET /camellos,
// GET /camellos/{id}, GET /camellos/{id}/reviews.
func bindPublic(g *router.RouterGroup[*core.RequestEvent], x *publicIndex) {
	// GET /api/camellos?q=&category=&service=&city=&trade=&lat=&lng=&barrio=&page=&perPage=: active camellos, public fields;
	// with a position (lat and lng, or a barrio of the gazetteer) only those whose radius reaches it, nearest first, with distanceKm.
	g.GET("/camellos", x.camellosList).Bind(apis.SkipSuccessActivityLog())
	// GET /api/camellos/{id}: one active camello, public fields.
	g.GET("/camellos/{id}", x.camelloView).Bind(apis.SkipSuccessActivityLog())
	// GET /api/camellos/{id}/reviews: reviews of an active camello, with average and count.
	g.GET("/camellos/{id}/reviews", reviewsList)
}

// MatchText is the filter "every word of q appears in the camello's folded
// search text" (accent- and case-insensitive); nil when q has no words.
func MatchText(q string) dbx.Expression {
	words := strings.Fields(text.Fold(q))
	if len(words) == 0 {
		return nil
	}
	exps := make([]dbx.Expression, 0, len(words))
	for i, w := range words {
		p := "text" + strconv.Itoa(i)
		exps = append(exps, dbx.NewExp(`[[searchText]] LIKE {:`+p+`} ESCAPE '\'`, dbx.Params{p: httpapi.LikePattern(w)}))
	}
	return dbx.And(exps...)
}

// statusActive is the condition "the camello is ACTIVO".
func statusActive() dbx.Expression {
	return dbx.HashExp{"status": StatusActive}
}

// parseFilter reads the listing's query parameters, with the client's
// position (lat and lng, or a barrio: never both); a parameter longer than
// 200 characters, an invalid category id or a bad position is a 400.
func parseFilter(e *core.RequestEvent) (*filter, error) {
	q := e.Request.URL.Query()
	v := httpapi.NewValidation()
	for _, name := range []string{"q", "category", "service", "city", "trade", "barrio"} {
		httpapi.CheckLength(v, name, q.Get(name), 0, 200)
	}
	if strings.TrimSpace(q.Get("barrio")) != "" && (strings.TrimSpace(q.Get("lat")) != "" || strings.TrimSpace(q.Get("lng")) != "") {
		v.Add("barrio", MsgOnePosition)
	}
	// lat and lng, or a barrio of the gazetteer in the city asked
	near, err := places.ReadPosition(e.App, q.Get("lat"), q.Get("lng"), q.Get("barrio"), q.Get("city"), v)
	if err != nil {
		return nil, err
	}
	if c := q.Get("category"); c != "" && !httpapi.ValidID(c) {
		v.Add("category", "Identificador inválido")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	f := &filter{
		words:    strings.Fields(text.Fold(q.Get("q"))),
		city:     text.Fold(cities.Canonical(q.Get("city"))), // any spelling: "Bogotá D.C." finds "Bogotá"
		category: q.Get("category"),
		service:  strings.TrimSpace(q.Get("service")), // by id or by slug
		near:     near,
	}
	f.cityPrefix = f.city + " "
	// any form of the trade: "plomero" also finds "Plomería" and "fontanero"
	for _, t := range search.TradeForms(q.Get("trade")) {
		f.trades = append(f.trades, strings.ToLower(t))
	}
	return f, nil
}

// Spanish messages of the listing's position.
const (
	MsgLatLngTogether = geo.MsgLatLngTogether
	MsgLat            = geo.MsgLat
	MsgLng            = geo.MsgLng
	MsgUnknownBarrio  = places.MsgUnknownPlace
	MsgOnePosition    = "Envía lat y lng o un barrio, no ambos"
)

// camellosList answers {camellos, page, perPage, total}: ACTIVO camellos only,
// premium first, then by rating, then newest. It filters the in-memory
// listing index and writes the camellos' pre-rendered JSON.
func (x *publicIndex) camellosList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	f, err := parseFilter(e)
	if err != nil {
		return err
	}
	l, err := x.get(e.App)
	if err != nil {
		return err
	}
	offset := page.Offset()
	if f.near != nil {
		found, total := l.near(f, *f.near, int(offset)+page.PerPage)
		var shown []nearby
		if n := int64(len(found)); offset < n {
			shown = found[offset:min(n, offset+int64(page.PerPage))]
		}
		return httpapi.WriteRendered(e, l.appendPage(len(shown), page, int64(total), func(k int) (int32, float64) { return shown[k].idx, shown[k].km }))
	}
	list, _, exact := l.candidates(f)
	// The page's entries, and the total.
	var total int64
	var shown []int32
	if exact {
		total = int64(len(list))
		if offset < total {
			shown = list[offset:min(total, offset+int64(page.PerPage))]
		}
	} else {
		for _, i := range list {
			if !l.match(f, i) {
				continue
			}
			if total >= offset && len(shown) < page.PerPage {
				shown = append(shown, i)
			}
			total++
		}
	}
	return httpapi.WriteRendered(e, l.appendPage(len(shown), page, total, func(k int) (int32, float64) { return shown[k], -1 }))
}

// renderedSize is about the size of a camello's public JSON (a buffer's
// first capacity).
const renderedSize = 640

// appendPage renders a page of n camellos (the k-th: at(k), its entry and
// its distance, or -1 without one): {"camellos":[…],"page":…,"perPage":…,"total":…}.
func (l *listing) appendPage(n int, page httpapi.Page, total int64, at func(k int) (int32, float64)) []byte {
	buf := make([]byte, 0, 96+n*(renderedSize+24))
	buf = append(buf, `{"camellos":[`...)
	l.touch(n, at)
	for k := 0; k < n; k++ {
		if k > 0 {
			buf = append(buf, ',')
		}
		i, km := at(k)
		buf = l.appendJSON(buf, i, km)
	}
	buf = append(buf, `],"page":`...)
	buf = strconv.AppendInt(buf, int64(page.Page), 10)
	buf = append(buf, `,"perPage":`...)
	buf = strconv.AppendInt(buf, int64(page.PerPage), 10)
	buf = append(buf, `,"total":`...)
	buf = strconv.AppendInt(buf, total, 10)
	return append(buf, "}\n"...)
}

// findActive returns the ACTIVO camello of the path id, else a 404.
func findActive(e *core.RequestEvent) (*core.Record, error) {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return nil, err
	}
	rec, err := e.App.FindRecordById(Collection, id)
	if err != nil || rec.GetString("status") != StatusActive {
		return nil, httpapi.NotFound(MsgCamelloNotFound)
	}
	return rec, nil
}

// camelloView answers {camello} with public fields (from the listing
// index); 404 unless ACTIVO.
func (x *publicIndex) camelloView(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	l, err := x.get(e.App)
	if err != nil {
		return err
	}
	i, ok := l.find(id)
	if !ok {
		return httpapi.NotFound(MsgCamelloNotFound)
	}
	body := make([]byte, 0, renderedSize+16)
	body = append(body, `{"camello":`...)
	body = l.appendJSON(body, i, -1)
	body = append(body, "}\n"...)
	return httpapi.WriteRendered(e, body)
}

// Review is a public review: the author is shown by first name only.
type Review struct {
	ID         string         `db:"id" json:"id"`
	Rating     int            `db:"rating" json:"rating"`
	Comment    string         `db:"comment" json:"comment"`
	AuthorName string         `db:"authorName" json:"-"`
	Author     map[string]any `db:"-" json:"author"`
	Created    string         `db:"created" json:"-"`
	CreatedAt  string         `db:"-" json:"createdAt"`
}

// firstName is the first word of a name ("Ana María Pérez" → "Ana").
func firstName(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return ""
}

// reviewsList answers {reviews, average, count, page, perPage, total}, newest
// first; 404 unless the camello is ACTIVO.
func reviewsList(e *core.RequestEvent) error {
	rec, err := findActive(e)
	if err != nil {
		return err
	}
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	var stats struct {
		Count   int64   `db:"n"`
		Average float64 `db:"average"`
	}
	err = e.App.DB().Select("COUNT(*) AS n", "COALESCE(AVG(rating), 0) AS average").From(ReviewsCollection).
		Where(dbx.HashExp{"camello": rec.Id, FieldReviewSealed: false}).One(&stats)
	if err != nil {
		return err
	}
	reviews := []Review{}
	err = e.App.DB().Select("r.id", "r.rating", "r.comment", "r.created", "COALESCE(u.name, '') AS authorName").
		From(ReviewsCollection+" r").LeftJoin(users.Collection+" u", dbx.NewExp("u.id = r.client")).
		Where(dbx.HashExp{"r.camello": rec.Id, "r." + FieldReviewSealed: false}).OrderBy("r.created DESC", "r.id DESC").
		Limit(int64(page.PerPage)).Offset(page.Offset()).All(&reviews)
	if err != nil {
		return err
	}
	for i := range reviews {
		reviews[i].Author = map[string]any{"name": firstName(reviews[i].AuthorName)}
		if dt, err := types.ParseDateTime(reviews[i].Created); err == nil {
			reviews[i].CreatedAt = timefmt.ISO(dt.Time())
		}
	}
	body := page.Answer("reviews", reviews, stats.Count)
	body["average"] = math.Round(stats.Average*100) / 100
	body["count"] = stats.Count
	return e.JSON(http.StatusOK, body)
}
