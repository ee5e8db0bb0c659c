package catalog

import (
	"bytes"
	"encoding/json"

	"camellos/internal/bus"
	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// storeKeyCategories is the app.Store key of the rendered GET /api/categories.
const storeKeyCategories = "camellos.catalog.publicCategories"

// categoriesCache is the app's cache of the rendered public categories.
func categoriesCache(app core.App) *memo.Cache[[]byte] {
	return app.Store().GetOrSet(storeKeyCategories, func() any {
		return &memo.Cache[[]byte]{}
	}).(*memo.Cache[[]byte])
}

// bindCacheHooks drops the rendered categories after every committed write
// of a category or a service (the answer counts services per category).
func bindCacheHooks(app core.App) {
	c := categoriesCache(app)
	readmodel.Declare(app, readmodel.Projection{
		Name: "categories", Tables: []string{Categories, Services},
		Bound: "one rendered answer",
		Drop:  c.Invalidate,
		Check: func(app core.App) (int, error) {
			built, ok := c.Peek()
			if !ok {
				return 0, nil
			}
			fresh, err := renderCategories(app)
			if err != nil || bytes.Equal(built, fresh) {
				return 0, err
			}
			return 1, nil
		},
	})
	// The catalog's events: CatalogChanged after every committed write of a
	// category or a service; ServiceSaving while a service is updated.
	bus.EmitChanges(app, Categories, func(h *bus.Hooks) *hook.Hook[*bus.Change] { return h.CatalogChanged })
	bus.EmitChanges(app, Services, func(h *bus.Hooks) *hook.Hook[*bus.Change] { return h.CatalogChanged })
	app.OnRecordUpdate(Services).BindFunc(func(e *core.RecordEvent) error {
		before := records.Stored(e.App, e.Record)
		if err := e.Next(); err != nil {
			return err
		}
		return bus.Of(e.App).ServiceSaving.Trigger(&bus.Saving{App: e.App, Record: e.Record, Before: before})
	})

	drop := func(e *core.RecordEvent) error {
		categoriesCache(e.App).Invalidate()
		return e.Next()
	}
	for _, c := range []string{Categories, Services} {
		app.OnRecordAfterCreateSuccess(c).BindFunc(drop)
		app.OnRecordAfterUpdateSuccess(c).BindFunc(drop)
		app.OnRecordAfterDeleteSuccess(c).BindFunc(drop)
	}
}

// encode renders v as e.JSON does (HTML-escaped, with a final newline).
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
