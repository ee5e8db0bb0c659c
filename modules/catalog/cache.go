package catalog

import (
	"bytes"
	"encoding/json"

	"camellos/internal/bus"
	"camellos/internal/readmodel"
	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// publicCategories keeps GET /api/categories rendered, dropped after every
// committed write of a category or a service (the answer counts services
// per category).
var publicCategories = readmodel.Keyed[struct{}, []byte]{
	Name: "categories", Tables: []string{Categories, Services}, Bound: "one rendered answer", MaxCost: 1,
	Load: func(app core.App, _ struct{}) ([]byte, bool, error) {
		body, err := renderCategories(app)
		return body, err == nil, err
	},
}

func bindCacheHooks(app core.App) {
	publicCategories.Declare(app)
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

	for _, t := range []string{Categories, Services} {
		readmodel.OnWrite(app, t, func(w readmodel.Write) { publicCategories.Drop(w.App, struct{}{}) })
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
