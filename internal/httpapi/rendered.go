package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/pocketbase/pocketbase/core"
)

// WriteRendered writes an already rendered JSON 200 answer (a cached or
// hand-built body) as e.JSON would, including its ?fields= picking.
func WriteRendered(e *core.RequestEvent, body []byte) error {
	if e.Request.URL.Query().Get("fields") != "" {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return err
		}
		return e.JSON(http.StatusOK, v)
	}
	return e.Blob(http.StatusOK, "application/json", body)
}
