package quotes

import (
	"net/http"
	"strings"

	"camellos/hooks"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// openBoard handles GET /api/jobs/open?page&perPage&city&service: the
// PENDIENTE jobs without provider of the services the ACTIVO caller offers,
// newest first, optionally in one city (accent- and case-insensitive) or of
// one service; without the client's address or contact data.
func openBoard(e *core.RequestEvent) error {
	cam, err := activeCamello(e, MsgOnlyActiveBoard)
	if err != nil {
		return err
	}
	p, err := hooks.Paging(e)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	v := hooks.NewValidation()
	city := strings.TrimSpace(q.Get("city"))
	hooks.CheckLength(v, "city", city, 0, 120)
	service := q.Get("service")
	if service != "" && !hooks.ValidID(service) {
		v.Add("service", "Identificador inválido")
	}
	if err := v.Err(); err != nil {
		return err
	}
	services := []any{}
	for _, s := range cam.GetStringSlice("services") {
		if service == "" || s == service {
			services = append(services, s)
		}
	}
	if len(services) == 0 {
		return e.JSON(http.StatusOK, p.Answer("jobs", []any{}, 0))
	}
	where := dbx.And(dbx.In("service", services...), dbx.HashExp{"status": jobs.StatusPending, "provider": ""})
	if city != "" {
		where = dbx.And(where, dbx.HashExp{"cityKey": hooks.Fold(city)})
	}
	var total int64
	if err := e.App.DB().Select("COUNT(*)").From(jobs.Collection).Where(where).Row(&total); err != nil {
		return hooks.Internal(err)
	}
	recs := []*core.Record{}
	err = e.App.RecordQuery(jobs.Collection).Where(where).
		OrderBy("created DESC", "id DESC").Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs)
	if err != nil {
		return hooks.Internal(err)
	}
	list, err := jobs.JSON(e.App, recs)
	if err != nil {
		return hooks.Internal(err)
	}
	for _, j := range list {
		delete(j, "address") // only the job's parties read it
	}
	return e.JSON(http.StatusOK, p.Answer("jobs", list, total))
}
