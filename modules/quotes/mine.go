package quotes

import (
	"camellos/internal/clock"
	"camellos/internal/timefmt"
	"net/http"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// MsgOnlyCamelloQuotes answers another role on GET /api/me/quotes.
const MsgOnlyCamelloQuotes = "Solo los camellos tienen cotizaciones"

// myQuoteStatuses are the states ?status= may filter on, as they read.
var myQuoteStatuses = []string{StatusPending, StatusAccepted, StatusRejected, StatusWithdrawn, StatusExpired}

// quotesMine handles GET /api/me/quotes?status&job&page&perPage: the
// signed-in camello's own quotes, newest first, each with its job as a
// camello may read it while quoting ({id, title, status, service, city,
// neighborhood}: no address, no client contact). status filters on the
// state as it reads now (a PENDIENTE quote past its expiry is VENCIDA);
// job narrows to one job (the job page of a quoting camello).
func quotesMine(e *core.RequestEvent) error {
	user := session.AuthUser(e)
	cam, ok, err := camellos.CachedOfUser(e.App, user.Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	if !ok {
		return httpapi.Forbidden(MsgOnlyCamelloQuotes)
	}
	v := httpapi.NewValidation()
	p := httpapi.ReadPage(e, v)
	q := e.Request.URL.Query()
	status := q.Get("status")
	if status != "" {
		known := false
		for _, s := range myQuoteStatuses {
			known = known || s == status
		}
		if !known {
			v.Add("status", "Debe ser uno de: PENDIENTE, ACEPTADA, RECHAZADA, RETIRADA, VENCIDA")
		}
	}
	job := q.Get("job")
	if job != "" && !httpapi.ValidID(job) {
		v.Add("job", "Identificador inválido")
	}
	if err := v.Err(); err != nil {
		return err
	}
	now := timefmt.DB(clock.Now(e.App))
	where := []dbx.Expression{dbx.HashExp{"camello": cam.ID}}
	if job != "" {
		where = append(where, dbx.HashExp{"job": job})
	}
	switch status {
	case "":
	case StatusPending:
		where = append(where, dbx.NewExp("status = 'PENDIENTE' AND expiresAt > {:now}", dbx.Params{"now": now}))
	case StatusExpired:
		where = append(where, dbx.NewExp("(status = 'VENCIDA' OR (status = 'PENDIENTE' AND expiresAt <= {:now}))", dbx.Params{"now": now}))
	default:
		where = append(where, dbx.HashExp{"status": status})
	}
	cond := dbx.And(where...)
	var total int64
	if err := e.App.RecordQuery(Collection).Select("COUNT(*)").Where(cond).Row(&total); err != nil {
		return httpapi.Internal(err)
	}
	var recs []*core.Record
	if err := e.App.RecordQuery(Collection).Where(cond).OrderBy("created DESC", "id DESC").
		Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs); err != nil {
		return httpapi.Internal(err)
	}
	list, err := JSON(e.App, recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, r.GetString("job"))
	}
	jobRecs, err := e.App.FindRecordsByIds(jobs.Collection, ids)
	if err != nil {
		return httpapi.Internal(err)
	}
	rendered, err := jobs.JSON(e.App, jobRecs)
	if err != nil {
		return httpapi.Internal(err)
	}
	byID := make(map[string]map[string]any, len(rendered))
	for _, j := range rendered {
		byID[j["id"].(string)] = map[string]any{"id": j["id"], "title": j["title"], "status": j["status"],
			"service": j["service"], "city": j["city"], "neighborhood": j["neighborhood"]}
	}
	for _, item := range list {
		item["job"] = byID[item["jobId"].(string)]
	}
	return e.JSON(http.StatusOK, p.Answer("quotes", list, total))
}
