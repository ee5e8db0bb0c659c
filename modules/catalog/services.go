package catalog

import (
	"net/http"
	"regexp"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// MsgServiceNotFound is the 404 of an unknown service.
const MsgServiceNotFound = "Servicio no encontrado"

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// serviceInput is the body of POST and PATCH /api/admin/services.
type serviceInput struct {
	Name        *string `json:"name"`
	Slug        *string `json:"slug"`
	CategoryID  *string `json:"categoryId"`
	Description *string `json:"description"`
}

// validate checks the fields present; on create (id "") name and
// categoryId are required.
func (in *serviceInput) validate(app core.App, id string) error {
	create := id == ""
	v := httpapi.NewValidation()
	if in.Name != nil {
		*in.Name = strings.TrimSpace(*in.Name)
		httpapi.CheckLength(v, "name", *in.Name, bounds.ServiceNameMin, bounds.ServiceNameMax)
	} else if create {
		v.Add("name", "Es obligatorio")
	}
	if in.Slug != nil && *in.Slug != "" {
		if text.Chars(*in.Slug) > bounds.ServiceSlugMax || !slugPattern.MatchString(*in.Slug) {
			v.Add("slug", "Debe tener como máximo 140 caracteres a-z, 0-9 separados por guiones")
		}
	}
	switch {
	case in.CategoryID == nil || *in.CategoryID == "":
		if create || in.CategoryID != nil {
			v.Add("categoryId", "Es obligatorio")
		}
	case !httpapi.ValidID(*in.CategoryID):
		v.Add("categoryId", "Identificador inválido")
	default:
		if n, err := countWhere(app, Categories, dbx.HashExp{"id": *in.CategoryID}); err != nil {
			return err
		} else if n == 0 {
			v.Add("categoryId", "La categoría no existe")
		}
	}
	if in.Description != nil {
		httpapi.CheckLength(v, "description", *in.Description, 0, bounds.ServiceDescriptionMax)
	}
	return v.Err()
}

func (in *serviceInput) apply(rec *core.Record) {
	if in.Name != nil {
		rec.Set("name", *in.Name)
	}
	if in.Slug != nil {
		rec.Set("slug", *in.Slug) // "" derives it again from the name
	}
	if in.CategoryID != nil {
		rec.Set("category", *in.CategoryID)
	}
	if in.Description != nil {
		rec.Set("description", *in.Description)
	}
}

// Service is the JSON shape of a service with its category.
type Service struct {
	ID           string          `db:"id" json:"id"`
	Name         string          `db:"name" json:"name"`
	Slug         string          `db:"slug" json:"slug"`
	Description  string          `db:"description" json:"description"`
	CategoryID   string          `db:"category" json:"categoryId"`
	CategoryName string          `db:"categoryName" json:"-"`
	Category     serviceCategory `db:"-" json:"category"`
	stamps
}

type serviceCategory struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// serviceQuery selects services with their category's name, by name.
func serviceQuery(app core.App) *dbx.SelectQuery {
	return app.DB().Select("s.id", "s.name", "s.slug", "s.description", "s.category",
		"c.name AS categoryName", "s.created", "s.updated").
		From(Services+" s").LeftJoin(Categories+" c", dbx.NewExp("c.id = s.category")).
		OrderBy("s.name ASC", "s.id ASC")
}

func finishServices(rows []Service) []Service {
	if rows == nil {
		rows = []Service{}
	}
	for i := range rows {
		rows[i].Category = serviceCategory{ID: rows[i].CategoryID, Name: rows[i].CategoryName}
		rows[i].stamps.finish()
	}
	return rows
}

func loadService(app core.App, id string) (Service, error) {
	var rows []Service
	if err := serviceQuery(app).Where(dbx.HashExp{"s.id": id}).All(&rows); err != nil {
		return Service{}, err
	}
	if len(rows) == 0 {
		return Service{}, httpapi.NotFound(MsgServiceNotFound)
	}
	return finishServices(rows)[0], nil
}

// serviceFilter reads ?category= (and ?q= for admins) into one expression.
func serviceFilter(e *core.RequestEvent, withQ bool) (dbx.Expression, error) {
	q := e.Request.URL.Query()
	exps := []dbx.Expression{}
	if c := q.Get("category"); c != "" {
		if !httpapi.ValidID(c) {
			return nil, httpapi.FieldError("category", "Identificador inválido")
		}
		exps = append(exps, dbx.HashExp{"s.category": c})
	}
	if s := strings.TrimSpace(q.Get("q")); withQ && s != "" {
		exps = append(exps, dbx.NewExp(`(s.name LIKE {:q} ESCAPE '\' OR s.slug LIKE {:q} ESCAPE '\')`,
			dbx.Params{"q": httpapi.LikePattern(s)}))
	}
	if len(exps) == 0 {
		return dbx.NewExp("1=1"), nil
	}
	return dbx.And(exps...), nil
}

// servicesList answers every service, or those of ?category=.
func servicesList(e *core.RequestEvent) error {
	where, err := serviceFilter(e, false)
	if err != nil {
		return err
	}
	var rows []Service
	if err := serviceQuery(e.App).Where(where).All(&rows); err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"services": finishServices(rows)})
}

// servicesAdminList answers a page of services (?category=, ?q=).
func servicesAdminList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	where, err := serviceFilter(e, true)
	if err != nil {
		return err
	}
	return listPage(e, page, "services", Services+" s", where, serviceQuery(e.App), finishServices)
}

// saveServiceRecord saves in one transaction, so the slug chosen by the
// record hook cannot be taken between its check and the insert.
func saveServiceRecord(app core.App, rec *core.Record) error {
	return writer.Transaction(app, func(txApp core.App) error {
		return saveOrConflict(txApp, rec)
	})
}

// services is the admin create, update and delete of services.
var services = resource[Service]{
	collection: Services, key: "service", notFound: MsgServiceNotFound,
	save: saveServiceRecord, load: loadService,
}

// serviceCreate answers 201 {service}.
func serviceCreate(e *core.RequestEvent) error { return services.create(e, &serviceInput{}) }

// serviceUpdate changes the fields given: 200 {service}.
func serviceUpdate(e *core.RequestEvent) error { return services.update(e, &serviceInput{}) }

// serviceDelete deletes a service no job uses (it leaves the camellos'
// lists): 204.
func serviceDelete(e *core.RequestEvent) error { return services.remove(e) }

// KnownServices returns which of ids are services, in one query (for the
// modules that reference services).
func KnownServices(app core.App, ids []string) (map[string]bool, error) {
	known := map[string]bool{}
	if len(ids) == 0 {
		return known, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	var found []string
	if err := app.DB().Select("id").From(Services).Where(dbx.In("id", args...)).Column(&found); err != nil {
		return nil, err
	}
	for _, id := range found {
		known[id] = true
	}
	return known, nil
}

// ServiceRef is a service with its category's name, as other resources
// show the service they use (e.g. the Job object).
type ServiceRef struct {
	ID           string `db:"id" json:"id"`
	Name         string `db:"name" json:"name"`
	CategoryName string `db:"categoryName" json:"categoryName"`
}

// ServiceRefs returns the ServiceRef of each of ids that exists, in one query.
func ServiceRefs(app core.App, ids []string) (map[string]ServiceRef, error) {
	out := map[string]ServiceRef{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	var rows []ServiceRef
	err := app.DB().Select("s.id AS id", "s.name AS name", "COALESCE(c.name, '') AS categoryName").
		From(Services+" s").
		LeftJoin(Categories+" c", dbx.NewExp("c.id = s.category")).
		Where(dbx.In("s.id", args...)).All(&rows)
	if err != nil {
		return nil, err
	}
	for _, s := range rows {
		out[s.ID] = s
	}
	return out, nil
}
