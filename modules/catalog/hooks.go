package catalog

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/text"

	validation "github.com/go-ozzo/ozzo-validation/v4"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Spanish messages of the catalog's conflicts.
const (
	MsgCategoryNameTaken = "Ya existe una categoría con ese nombre"
	MsgCategoryIDTaken   = "Ya existe una categoría con ese id"
	MsgCategoryInUse     = "La categoría tiene servicios y no se puede eliminar"
	MsgServiceSlugTaken  = "Ya existe un servicio con ese slug"
	MsgServiceInUse      = "El servicio tiene trabajos asociados y no se puede eliminar"
)

// codeTaken marks record-hook errors that mean "this value is taken": the
// admin routes answer them 409, the dashboard shows them on the field.
const codeTaken = "camellos_taken"

func takenError(field, message string) error {
	return validation.Errors{field: validation.NewError(codeTaken, message)}
}

// takenMessage returns the message of a "taken" error, if err is one.
func takenMessage(err error) (string, bool) {
	var verrs validation.Errors
	if !errors.As(err, &verrs) {
		return "", false
	}
	for _, fe := range verrs {
		var ve validation.Error
		if errors.As(fe, &ve) && ve.Code() == codeTaken {
			return ve.Message(), true
		}
	}
	return "", false
}

// bindHooks keeps the catalog's invariants wherever a record is saved
// (our routes, the dashboard): the folded, unique category name; the
// unique service slug derived from the name; no deletion of what is in use.
func bindHooks(app core.App) {
	app.OnRecordCreate(Categories).BindFunc(saveCategory)
	app.OnRecordUpdate(Categories).BindFunc(saveCategory)
	app.OnRecordDelete(Categories).BindFunc(func(e *core.RecordEvent) error {
		n, err := countWhere(e.App, Services, dbx.HashExp{"category": e.Record.Id})
		if err != nil {
			return err
		}
		if n > 0 {
			return httpapi.Conflict(MsgCategoryInUse)
		}
		return e.Next()
	})

	app.OnRecordCreate(Services).BindFunc(saveService)
	app.OnRecordUpdate(Services).BindFunc(saveService)
	// The modules that use services refuse the deletion of one in use
	// (jobs: MsgServiceInUse).
	app.OnRecordDelete(Services).BindFunc(func(e *core.RecordEvent) error {
		err := bus.Of(e.App).ServiceDeleting.Trigger(&bus.Saving{App: e.App, Record: e.Record, Before: e.Record})
		if err != nil {
			return err
		}
		return e.Next()
	})
}

func countWhere(app core.App, table string, where dbx.Expression) (int, error) {
	var n int
	err := app.DB().Select("COUNT(*)").From(table).Where(where).Row(&n)
	return n, err
}

// saveCategory sets the hidden nameKey (folded name) and turns a clash of
// the unique id or nameKey into a "taken" error on id or name.
func saveCategory(e *core.RecordEvent) error {
	e.Record.Set("name", strings.TrimSpace(e.Record.GetString("name")))
	e.Record.Set("nameKey", text.Fold(e.Record.GetString("name")))
	err := e.Next()
	var verrs validation.Errors
	if errors.As(err, &verrs) {
		if _, ok := verrs["nameKey"]; ok {
			return takenError("name", MsgCategoryNameTaken)
		}
		if ve, ok := verrs["id"].(validation.Error); ok && ve.Code() == "validation_pk_invalid" {
			return takenError("id", MsgCategoryIDTaken)
		}
	}
	return err
}

var slugJunk = regexp.MustCompile(`[^a-z0-9]+`)

// maxSlugBase leaves room for a "-NNN" suffix within the field's 140.
const maxSlugBase = 120

// Slugify turns a name into a slug: folded (no accents, lower case), runs of
// anything else than a-z and 0-9 become one "-" ("Plomería & Gas" →
// "plomeria-gas"); an empty result is "servicio".
func Slugify(name string) string {
	s := strings.Trim(slugJunk.ReplaceAllString(text.Fold(name), "-"), "-")
	if len(s) > maxSlugBase {
		s = strings.TrimRight(s[:maxSlugBase], "-")
	}
	if s == "" {
		s = "servicio"
	}
	return s
}

// saveService derives an empty slug from the name, unique with a -2, -3, …
// suffix; a slug given by hand that another service has is "taken". (The
// camellos module refreshes the search text of camellos when a service is
// renamed.)
func saveService(e *core.RecordEvent) error {
	rec := e.Record
	rec.Set("name", strings.TrimSpace(rec.GetString("name")))
	slug := rec.GetString("slug")
	if slug == "" {
		base := Slugify(rec.GetString("name"))
		var taken []string
		err := e.App.DB().Select("slug").From(Services).
			Where(dbx.Or(dbx.HashExp{"slug": base}, dbx.Like("slug", base+"-").Match(false, true))).
			AndWhere(dbx.Not(dbx.HashExp{"id": rec.Id})).Column(&taken)
		if err != nil {
			return err
		}
		used := make(map[string]bool, len(taken))
		for _, s := range taken {
			used[s] = true
		}
		slug = base
		for n := 2; used[slug]; n++ {
			slug = base + "-" + strconv.Itoa(n)
		}
		rec.Set("slug", slug)
	}
	err := e.Next()
	var verrs validation.Errors
	if errors.As(err, &verrs) {
		if ve, ok := verrs["slug"].(validation.Error); ok && ve.Code() == "validation_not_unique" {
			return takenError("slug", MsgServiceSlugTaken)
		}
	}
	return err
}
