package catalog

import (
	"math"
	"regexp"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/timefmt"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

var (
	categoryIDPattern = regexp.MustCompile(`^[a-z0-9_-]{3,50}$`)
	colorPattern      = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)
)

// categoryInput is the body of POST and PATCH /api/admin/categories.
type categoryInput struct {
	ID          *string `json:"id"`
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	Icon        *string `json:"icon"`
	SortOrder   *int64  `json:"sortOrder"`
}

// validate checks the bounds of the fields present; on create (id "") the
// name is required and an id may be chosen; an update may repeat its id.
func (in *categoryInput) validate(_ core.App, id string) error {
	create := id == ""
	if !create && in.ID != nil && *in.ID == id {
		in.ID = nil
	}
	v := httpapi.NewValidation()
	if in.ID != nil {
		if !create {
			v.Add("id", "No se puede cambiar")
		} else if !categoryIDPattern.MatchString(*in.ID) {
			v.Add("id", "Debe tener de 3 a 50 caracteres entre a-z, 0-9, _ y -")
		}
	}
	if in.Name != nil {
		*in.Name = strings.TrimSpace(*in.Name)
		httpapi.CheckLength(v, "name", *in.Name, bounds.CategoryNameMin, bounds.CategoryNameMax)
	} else if create {
		v.Add("name", "Es obligatorio")
	}
	if in.Description != nil {
		httpapi.CheckLength(v, "description", *in.Description, 0, bounds.CategoryDescriptionMax)
	}
	if in.Color != nil && *in.Color != "" && !colorPattern.MatchString(*in.Color) {
		v.Add("color", "Debe ser un color #RRGGBB")
	}
	if in.Icon != nil {
		httpapi.CheckLength(v, "icon", *in.Icon, 0, bounds.CategoryIconMax)
	}
	if in.SortOrder != nil && (*in.SortOrder < 0 || *in.SortOrder > math.MaxInt32) {
		v.Add("sortOrder", "Debe ser un número entero mayor o igual a 0")
	}
	return v.Err()
}

func (in *categoryInput) apply(rec *core.Record) {
	if in.ID != nil {
		rec.Id = *in.ID
	}
	if in.Name != nil {
		rec.Set("name", *in.Name)
	}
	if in.Description != nil {
		rec.Set("description", *in.Description)
	}
	if in.Color != nil {
		rec.Set("color", *in.Color)
	}
	if in.Icon != nil {
		rec.Set("icon", *in.Icon)
	}
	if in.SortOrder != nil {
		rec.Set("sortOrder", *in.SortOrder)
	}
}

// Category is the interface's Category object.
type Category struct {
	ID          string        `db:"id" json:"id"`
	Name        string        `db:"name" json:"name"`
	Description string        `db:"description" json:"description"`
	Color       string        `db:"color" json:"color"`
	Icon        string        `db:"icon" json:"icon"`
	SortOrder   int           `db:"sortOrder" json:"sortOrder"`
	Count       categoryCount `db:"-" json:"_count"`
	Services    int           `db:"services" json:"-"`
	stamps
}

type categoryCount struct {
	Services int `json:"services"`
}

// categoryQuery selects categories with their number of services, in one query.
func categoryQuery(app core.App) *dbx.SelectQuery {
	return app.DB().Select("c.id", "c.name", "c.description", "c.color", "c.icon", "c.sortOrder",
		"c.created", "c.updated", "(SELECT COUNT(*) FROM services s WHERE s.category = c.id) AS services").
		From(Categories+" c").OrderBy("c.sortOrder ASC", "c.name ASC")
}

func finishCategories(rows []Category) []Category {
	if rows == nil {
		rows = []Category{}
	}
	for i := range rows {
		rows[i].Count.Services = rows[i].Services
		rows[i].stamps.finish()
	}
	return rows
}

// stamps are a catalog row's stored dates and their ISO answers.
type stamps struct {
	Created   string `db:"created" json:"-"`
	Updated   string `db:"updated" json:"-"`
	CreatedAt string `db:"-" json:"createdAt"`
	UpdatedAt string `db:"-" json:"updatedAt"`
}

// finish fills createdAt and updatedAt from the stored dates.
func (s *stamps) finish() {
	s.CreatedAt = isoText(s.Created)
	s.UpdatedAt = isoText(s.Updated)
}

// isoText turns a stored PocketBase date into our ISO format.
func isoText(s string) string {
	dt, err := types.ParseDateTime(s)
	if err != nil || dt.IsZero() {
		return ""
	}
	return timefmt.ISO(dt.Time())
}

// loadCategory renders one category by id (sql.ErrNoRows when unknown).
func loadCategory(app core.App, id string) (Category, error) {
	var rows []Category
	err := categoryQuery(app).Where(dbx.HashExp{"c.id": id}).All(&rows)
	if err == nil && len(rows) == 0 {
		return Category{}, httpapi.NotFound(MsgCategoryNotFound)
	}
	if err != nil {
		return Category{}, err
	}
	return finishCategories(rows)[0], nil
}

// MsgCategoryNotFound is the 404 of an unknown category.
const MsgCategoryNotFound = "Categoría no encontrada"

// categoriesList answers every category, by sortOrder then name. The
// rendered answer is kept in memory until a category or service changes
// (see bindCacheHooks).
func categoriesList(e *core.RequestEvent) error {
	body, _, err := publicCategories.Get(e.App, struct{}{})
	if err != nil {
		return err
	}
	return httpapi.WriteRendered(e, body)
}

// renderCategories renders the public answer from the database.
func renderCategories(app core.App) ([]byte, error) {
	var rows []Category
	if err := categoryQuery(app).All(&rows); err != nil {
		return nil, err
	}
	return encode(map[string]any{"categories": finishCategories(rows)})
}

// categoriesAdminList answers a page of categories, optionally filtered by q.
func categoriesAdminList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	var where dbx.Expression = dbx.NewExp("1=1")
	if q := text.Fold(e.Request.URL.Query().Get("q")); q != "" {
		where = dbx.NewExp(`c.nameKey LIKE {:q} ESCAPE '\'`, dbx.Params{"q": httpapi.LikePattern(q)})
	}
	return listPage(e, page, "categories", Categories+" c", where, categoryQuery(e.App), finishCategories)
}

// categories is the admin create, update and delete of categories.
var categories = resource[Category]{
	collection: Categories, key: "category", notFound: MsgCategoryNotFound,
	save: saveOrConflict, load: loadCategory,
}

// categoryCreate is endpoint 3: 201 {category}.
func categoryCreate(e *core.RequestEvent) error { return categories.create(e, &categoryInput{}) }

// categoryUpdate changes the fields given: 200 {category}.
func categoryUpdate(e *core.RequestEvent) error { return categories.update(e, &categoryInput{}) }

// categoryDelete deletes a category without services: 204.
func categoryDelete(e *core.RequestEvent) error { return categories.remove(e) }
