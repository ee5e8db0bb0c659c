package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/pocketbase/pocketbase/core"
)

// WriteRendered writes an already rendered JSON 200 answer (a cached or
// hand-built body) as e.JSON would, including its ?fields= picking.
func WriteRendered(e *core.RequestEvent, body []byte) error {
	if strings.Contains(e.Request.URL.RawQuery, "fields") && e.Request.URL.Query().Get("fields") != "" {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return err
		}
		return e.JSON(http.StatusOK, v)
	}
	return WriteJSONBytes(e, body)
}

var hdrJSON = []string{"application/json"}

// WriteJSONBytes writes body as a 200 application/json answer with its
// Content-Length: net/http then sends it in one piece instead of in
// chunks, and the client reads it without chunk framing.
func WriteJSONBytes(e *core.RequestEvent, body []byte) error {
	h := e.Response.Header()
	h["Content-Type"] = hdrJSON
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	e.Response.WriteHeader(http.StatusOK)
	_, err := e.Response.Write(body)
	return err
}
