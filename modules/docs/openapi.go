package docs

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/oasdiff/yaml"
	"github.com/pocketbase/pocketbase/core"
)

// SourceYAML is the hand-written OpenAPI 3.0.3 document of every /api route.
//
//go:embed openapi.yaml
var SourceYAML []byte

// documentJSON is SourceYAML as JSON, converted once, when first asked
// for: at start-up it cost every process (each CLI command, each test
// binary) about 0.1 s of CPU and 9 MB of garbage for a page few ask for.
// The docs tests convert it, so a build whose YAML does not convert fails
// them.
var documentJSON = sync.OnceValue(func() []byte { return mustJSON(SourceYAML) })

func mustJSON(src []byte) []byte {
	raw, err := yaml.YAMLToJSON(src)
	if err != nil {
		panic("docs: openapi.yaml is not valid YAML: " + err.Error())
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		panic("docs: openapi.yaml does not convert to JSON: " + err.Error())
	}
	return raw
}

// JSON returns the OpenAPI document as JSON bytes.
func JSON() []byte { return documentJSON() }

// openapiGet answers the OpenAPI document.
func openapiGet(e *core.RequestEvent) error {
	e.Response.Header().Set("Cache-Control", "no-cache")
	return e.Blob(http.StatusOK, "application/json; charset=utf-8", documentJSON())
}
