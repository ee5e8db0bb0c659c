package quotes

import (
	"net/http"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/list"
)

// boardList handles GET /api/jobs/open?page&perPage&city&service: the
// PENDIENTE jobs without provider of the services the ACTIVO caller offers,
// newest first, optionally in one city (accent- and case-insensitive) or of
// one service; without the client's address or contact data. The caller's
// camello and the page come from the jobs area's in-memory open board
// (camellos.CachedOfUser, jobs.BoardPage): no SQL per request once built.
func boardList(e *core.RequestEvent) error {
	me, ok, err := camellos.CachedOfUser(e.App, session.AuthUser(e).Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	if !ok || me.Status != camellos.StatusActive {
		return httpapi.Forbidden(MsgOnlyActiveBoard)
	}
	mine := list.ToUniqueStringSlice(me.Services)
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
	services := make([]string, 0, len(mine))
	for _, s := range mine {
		if service == "" || s == service {
			services = append(services, s)
		}
	}
	if len(services) == 0 {
		return e.JSON(http.StatusOK, p.Answer("jobs", []any{}, 0))
	}
	body, release, err := jobs.BoardPage(e.App, services, city, p)
	if err != nil {
		return httpapi.Internal(err)
	}
	defer release()
	return httpapi.WriteRendered(e, body)
}
