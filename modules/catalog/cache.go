package catalog

import (
	"bytes"
	"encoding/json"
	"net/http"

	"camellos/internal/dbwatch"
	"camellos/internal/memo"

	"github.com/pocketbase/pocketbase/core"
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
	// A commit by another process can change categories and services.
	dbwatch.OnExternalCommit(app, categoriesCache(app).Invalidate)
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

// writeJSON writes a rendered 200 answer as e.JSON would, including its
// ?fields= picking.
func writeJSON(e *core.RequestEvent, body []byte) error {
	if e.Request.URL.Query().Get("fields") != "" {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return err
		}
		return e.JSON(http.StatusOK, v)
	}
	return e.Blob(http.StatusOK, "application/json", body)
}
