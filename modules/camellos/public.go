package camellos

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"camellos/hooks"
	"camellos/modules/search"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/pocketbase/pocketbase/tools/types"
)

// MsgCamelloNotFound is the 404 of an unknown (or not public) camello.
const MsgCamelloNotFound = "Camello no encontrado"

// bindPublic binds the public provider routes: GET /camellos,
// GET /camellos/{id}, GET /camellos/{id}/reviews.
func bindPublic(g *router.RouterGroup[*core.RequestEvent]) {
	// GET /api/camellos?q=&category=&service=&city=&trade=&page=&perPage=: active camellos, public fields.
	g.GET("/camellos", listPublic)
	// GET /api/camellos/{id}: one active camello, public fields.
	g.GET("/camellos/{id}", viewPublic)
	// GET /api/camellos/{id}/reviews: reviews of an active camello, with average and count.
	g.GET("/camellos/{id}/reviews", listReviews)
}

// MatchText is the filter "every word of q appears in the camello's folded
// search text" (accent- and case-insensitive); nil when q has no words.
func MatchText(q string) dbx.Expression {
	words := strings.Fields(hooks.Fold(q))
	if len(words) == 0 {
		return nil
	}
	exps := make([]dbx.Expression, 0, len(words))
	for i, w := range words {
		p := "text" + strconv.Itoa(i)
		exps = append(exps, dbx.NewExp(`[[searchText]] LIKE {:`+p+`} ESCAPE '\'`, dbx.Params{p: hooks.LikePattern(w)}))
	}
	return dbx.And(exps...)
}

// servicesJSON reads the camello's services relation as a JSON array even
// when it holds a single bare id.
const servicesJSON = "json_each(CASE WHEN json_valid([[camellos.services]]) THEN [[camellos.services]] ELSE json_array([[camellos.services]]) END)"

// publicFilter turns the listing's query parameters into one condition on
// ACTIVO camellos; a parameter longer than 200 characters or an invalid
// category id is a 400.
func publicFilter(e *core.RequestEvent) (dbx.Expression, error) {
	q := e.Request.URL.Query()
	v := hooks.NewValidation()
	for _, name := range []string{"q", "category", "service", "city", "trade"} {
		hooks.CheckLength(v, name, q.Get(name), 0, 200)
	}
	if c := q.Get("category"); c != "" && !hooks.ValidID(c) {
		v.Add("category", "Identificador inválido")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	exps := []dbx.Expression{dbx.HashExp{"camellos.status": StatusActive}}
	if m := MatchText(q.Get("q")); m != nil {
		exps = append(exps, m)
	}
	if forms := search.TradeForms(q.Get("trade")); len(forms) > 0 {
		// any form of the trade: "plomero" also finds "Plomería" and "fontanero"
		alts := make([]dbx.Expression, 0, len(forms))
		for i, f := range forms {
			p := "trade" + strconv.Itoa(i)
			alts = append(alts, dbx.NewExp(`[[searchText]] LIKE {:`+p+`} ESCAPE '\'`, dbx.Params{p: hooks.LikePattern(f)}))
		}
		exps = append(exps, dbx.Or(alts...))
	}
	if c := hooks.Fold(q.Get("city")); c != "" {
		// "bogota" also finds "Bogotá D.C."
		exps = append(exps, dbx.NewExp(`([[cityKey]] = {:city} OR [[cityKey]] LIKE {:cityPrefix} ESCAPE '\')`,
			dbx.Params{"city": c, "cityPrefix": strings.TrimSuffix(hooks.LikePattern(c), "%")[1:] + " %"}))
	}
	if c := q.Get("category"); c != "" {
		exps = append(exps, dbx.NewExp(`EXISTS (SELECT 1 FROM `+servicesJSON+` j
			JOIN services s ON s.id = j.value WHERE s.category = {:category})`, dbx.Params{"category": c}))
	}
	if s := strings.TrimSpace(q.Get("service")); s != "" {
		// by id or by slug
		exps = append(exps, dbx.NewExp(`EXISTS (SELECT 1 FROM `+servicesJSON+` j
			JOIN services s ON s.id = j.value WHERE s.id = {:service} OR s.slug = {:service})`, dbx.Params{"service": s}))
	}
	return dbx.And(exps...), nil
}

// listPublic answers {camellos, page, perPage, total}: ACTIVO camellos only,
// premium first, then by rating, then newest (the order of the listing
// index); one query for the page, one for the count, one for their services.
func listPublic(e *core.RequestEvent) error {
	page, err := hooks.Paging(e)
	if err != nil {
		return err
	}
	where, err := publicFilter(e)
	if err != nil {
		return err
	}
	var total int64
	if err := e.App.DB().Select("COUNT(*)").From(Collection).Where(where).Row(&total); err != nil {
		return err
	}
	recs := []*core.Record{}
	if page.Offset() < total {
		err = e.App.RecordQuery(Collection).AndWhere(where).
			OrderBy("premium DESC", "ratingAvg DESC", "created DESC").
			Limit(int64(page.PerPage)).Offset(page.Offset()).All(&recs)
		if err != nil {
			return err
		}
	}
	list, err := JSON(e.App, recs, false)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, page.Answer("camellos", list, total))
}

// findActive returns the ACTIVO camello of the path id, else a 404.
func findActive(e *core.RequestEvent) (*core.Record, error) {
	id, err := hooks.PathID(e, "id")
	if err != nil {
		return nil, err
	}
	rec, err := e.App.FindRecordById(Collection, id)
	if err != nil || rec.GetString("status") != StatusActive {
		return nil, hooks.NotFound(MsgCamelloNotFound)
	}
	return rec, nil
}

// viewPublic answers {camello} with public fields; 404 unless ACTIVO.
func viewPublic(e *core.RequestEvent) error {
	rec, err := findActive(e)
	if err != nil {
		return err
	}
	return Respond(e, http.StatusOK, rec, false)
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

// listReviews answers {reviews, average, count, page, perPage, total}, newest
// first; 404 unless the camello is ACTIVO.
func listReviews(e *core.RequestEvent) error {
	rec, err := findActive(e)
	if err != nil {
		return err
	}
	page, err := hooks.Paging(e)
	if err != nil {
		return err
	}
	var stats struct {
		Count   int64   `db:"n"`
		Average float64 `db:"average"`
	}
	err = e.App.DB().Select("COUNT(*) AS n", "COALESCE(AVG(rating), 0) AS average").From("reviews").
		Where(dbx.HashExp{"camello": rec.Id}).One(&stats)
	if err != nil {
		return err
	}
	reviews := []Review{}
	err = e.App.DB().Select("r.id", "r.rating", "r.comment", "r.created", "COALESCE(u.name, '') AS authorName").
		From("reviews r").LeftJoin("users u", dbx.NewExp("u.id = r.client")).
		Where(dbx.HashExp{"r.camello": rec.Id}).OrderBy("r.created DESC", "r.id DESC").
		Limit(int64(page.PerPage)).Offset(page.Offset()).All(&reviews)
	if err != nil {
		return err
	}
	for i := range reviews {
		reviews[i].Author = map[string]any{"name": firstName(reviews[i].AuthorName)}
		if dt, err := types.ParseDateTime(reviews[i].Created); err == nil {
			reviews[i].CreatedAt = hooks.ISO(dt.Time())
		}
	}
	body := page.Answer("reviews", reviews, stats.Count)
	body["average"] = math.Round(stats.Average*100) / 100
	body["count"] = stats.Count
	return e.JSON(http.StatusOK, body)
}
