package catalog

import (
	"net/http"

	"camellos/internal/httpapi"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// recordInput is the body of a catalog create or update.
type recordInput interface {
	// validate checks the fields present; id is "" on create, else the
	// id of the record being changed.
	validate(app core.App, id string) error
	// apply sets the fields present on the record.
	apply(rec *core.Record)
}

// resource is what the admin create, update and delete routes of a
// catalog collection need to know about it.
type resource[T any] struct {
	collection string
	key        string // the answer's key: {"category": …}
	notFound   string
	save       func(app core.App, rec *core.Record) error
	load       func(app core.App, id string) (T, error)
}

// create binds and validates the body, saves a new record and answers
// 201 {key: record}.
func (r resource[T]) create(e *core.RequestEvent, in recordInput) error {
	if err := httpapi.ReadJSON(e, in); err != nil {
		return err
	}
	if err := in.validate(e.App, ""); err != nil {
		return err
	}
	col, err := e.App.FindCachedCollectionByNameOrId(r.collection)
	if err != nil {
		return err
	}
	return r.write(e, http.StatusCreated, core.NewRecord(col), in)
}

// update changes the fields given of the path's record: 200 {key: record}.
func (r resource[T]) update(e *core.RequestEvent, in recordInput) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	if err := httpapi.ReadJSON(e, in); err != nil {
		return err
	}
	if err := in.validate(e.App, id); err != nil {
		return err
	}
	rec, err := e.App.FindRecordById(r.collection, id)
	if err != nil {
		return httpapi.NotFound(r.notFound)
	}
	return r.write(e, http.StatusOK, rec, in)
}

func (r resource[T]) write(e *core.RequestEvent, status int, rec *core.Record, in recordInput) error {
	in.apply(rec)
	if err := r.save(e.App, rec); err != nil {
		return err
	}
	out, err := r.load(e.App, rec.Id)
	if err != nil {
		return err
	}
	return e.JSON(status, map[string]any{r.key: out})
}

// remove deletes the path's record (the record hooks refuse what is in
// use): 204.
func (r resource[T]) remove(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	rec, err := e.App.FindRecordById(r.collection, id)
	if err != nil {
		return httpapi.NotFound(r.notFound)
	}
	if err := e.App.Delete(rec); err != nil {
		return err
	}
	return e.NoContent(http.StatusNoContent)
}

// listPage answers {key: rows, page, perPage, total}: the rows of query
// matching where on the page, and the count of them in table.
func listPage[T any](e *core.RequestEvent, page httpapi.Page, key, table string, where dbx.Expression,
	query *dbx.SelectQuery, finish func([]T) []T) error {
	var total int64
	if err := e.App.DB().Select("COUNT(*)").From(table).Where(where).Row(&total); err != nil {
		return err
	}
	var rows []T
	if err := query.Where(where).Limit(int64(page.PerPage)).Offset(page.Offset()).All(&rows); err != nil {
		return err
	}
	return e.JSON(http.StatusOK, page.Answer(key, finish(rows), total))
}

// saveOrConflict saves a record, answering a "taken" hook error as 409.
func saveOrConflict(app core.App, rec *core.Record) error {
	if err := app.Save(rec); err != nil {
		if msg, ok := takenMessage(err); ok {
			return httpapi.Conflict(msg)
		}
		return err
	}
	return nil
}
