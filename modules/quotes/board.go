package quotes

import (
	"net/http"
	"strconv"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// boardList handles GET /api/jobs/open?page&perPage&city&service: the
// PENDIENTE jobs without provider of the services the ACTIVO caller offers,
// newest first, optionally in one city (accent- and case-insensitive) or of
// one service; without the client's address or contact data.
func boardList(e *core.RequestEvent) error {
	cam, err := activeCamello(e, MsgOnlyActiveBoard)
	if err != nil {
		return err
	}
	p, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	q := e.Request.URL.Query()
	v := httpapi.NewValidation()
	city := strings.TrimSpace(q.Get("city"))
	httpapi.CheckLength(v, "city", city, 0, 120)
	service := q.Get("service")
	if service != "" && !httpapi.ValidID(service) {
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
	recs, total, err := openJobs(e.App, services, city, p)
	if err != nil {
		return httpapi.Internal(err)
	}
	list, err := jobs.JSON(e.App, recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	for _, j := range list {
		delete(j, "address") // only the job's parties read it
	}
	return e.JSON(http.StatusOK, p.Answer("jobs", list, total))
}

// openJobs reads one page of the open jobs of some services (and a city)
// through the partial index idx_jobs_open, named explicitly: the planner
// would otherwise prefer the provider index, which holds every open job.
// The page is the merge of each service's newest offset+limit jobs (each
// an ordered walk of the index), not a sort of every open job of the
// services: a camello's board reads at most services × (offset+limit)
// rows, however many jobs are open.
func openJobs(app core.App, services []any, city string, p httpapi.Page) ([]*core.Record, int64, error) {
	params := dbx.Params{"limit": p.PerPage, "offset": p.Offset(), "n": p.Offset() + int64(p.PerPage)}
	cond := " AND status = 'PENDIENTE' AND provider = ''"
	if city != "" {
		cond += " AND cityKey = {:city}"
		params["city"] = text.Fold(city)
	}
	from := " FROM " + jobs.Collection + " INDEXED BY idx_jobs_open"
	in := make([]string, len(services))
	parts := make([]string, len(services))
	for i, s := range services {
		key := "{:s" + strconv.Itoa(i) + "}"
		params["s"+strconv.Itoa(i)] = s
		in[i] = key
		parts[i] = "SELECT * FROM (SELECT id, created" + from + " WHERE service = " + key + cond +
			" ORDER BY created DESC, id DESC LIMIT {:n})"
	}
	var total int64
	if err := app.DB().NewQuery("SELECT COUNT(*)" + from + " WHERE service IN (" + strings.Join(in, ", ") + ")" + cond).Bind(params).Row(&total); err != nil {
		return nil, 0, err
	}
	var ids []string
	err := app.DB().NewQuery("SELECT id FROM (" + strings.Join(parts, " UNION ALL ") + ") ORDER BY created DESC, id DESC LIMIT {:limit} OFFSET {:offset}").
		Bind(params).Column(&ids)
	if err != nil || len(ids) == 0 {
		return []*core.Record{}, total, err
	}
	found, err := app.FindRecordsByIds(jobs.Collection, ids)
	if err != nil {
		return nil, 0, err
	}
	byID := make(map[string]*core.Record, len(found))
	for _, r := range found {
		byID[r.Id] = r
	}
	recs := make([]*core.Record, 0, len(ids))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			recs = append(recs, r)
		}
	}
	return recs, total, nil
}
