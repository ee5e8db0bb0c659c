package docs

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/pocketbase/pocketbase/core"
)

// pageCSP lets the docs page use its inline style and nothing else.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

type operation struct {
	Method      string
	Path        string
	Summary     string
	Description string
	Auth        string
	Statuses    []string
	Tag         string
}

type spec struct {
	Info struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	} `json:"info"`
	Paths map[string]map[string]struct {
		Summary     string                `json:"summary"`
		Description string                `json:"description"`
		Tags        []string              `json:"tags"`
		Security    []map[string][]string `json:"security"`
		Responses   map[string]any        `json:"responses"`
	} `json:"paths"`
}

var methodOrder = map[string]int{"get": 0, "post": 1, "put": 2, "patch": 3, "delete": 4}

// pageHTML is rendered once, when first asked for: the document does not
// change while running.
var pageHTML = sync.OnceValue(mustRenderPage)

func mustRenderPage() []byte {
	var s spec
	if err := json.Unmarshal(documentJSON(), &s); err != nil {
		panic("docs: " + err.Error())
	}
	var ops []operation
	for path, item := range s.Paths {
		for method, op := range item {
			if _, ok := methodOrder[method]; !ok {
				continue
			}
			o := operation{Method: strings.ToUpper(method), Path: path, Summary: op.Summary, Description: op.Description, Auth: "pública"}
			for _, sec := range op.Security {
				if _, ok := sec["sessionCookie"]; ok {
					o.Auth = "sesión (cookie auth.session-token)"
				}
				if _, ok := sec["cronBearer"]; ok {
					o.Auth = "Authorization: Bearer CRON_SECRET"
				}
			}
			for code := range op.Responses {
				o.Statuses = append(o.Statuses, code)
			}
			sort.Strings(o.Statuses)
			if len(op.Tags) > 0 {
				o.Tag = op.Tags[0]
			}
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return methodOrder[strings.ToLower(ops[i].Method)] < methodOrder[strings.ToLower(ops[j].Method)]
	})
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, map[string]any{
		"Title": s.Info.Title, "Version": s.Info.Version, "Description": s.Info.Description, "Ops": ops,
	})
	if err != nil {
		panic("docs: " + err.Error())
	}
	return buf.Bytes()
}

var pageTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} {{.Version}}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:.2rem}.op{border:1px solid #ddd;border-radius:6px;margin:.6rem 0;padding:.5rem .8rem}
.m{display:inline-block;min-width:4.2rem;font-weight:700;font-family:monospace}.GET{color:#0a6}.POST{color:#06c}
.PUT{color:#a60}.PATCH{color:#85c}.DELETE{color:#c22}code{font-family:monospace}.meta{color:#666;font-size:13px}
pre{white-space:pre-wrap;font:inherit;margin:.3rem 0}
</style></head><body>
<h1>{{.Title}}</h1><p class="meta">versión {{.Version}} · <a href="/api/docs/openapi.json">openapi.json</a></p>
<pre>{{.Description}}</pre>
{{range .Ops}}<div class="op" id="{{.Method}} {{.Path}}"><span class="m {{.Method}}">{{.Method}}</span> <code>{{.Path}}</code>
<div>{{.Summary}}</div>{{if .Description}}<pre class="meta">{{.Description}}</pre>{{end}}
<div class="meta">acceso: {{.Auth}} · respuestas: {{range $i, $s := .Statuses}}{{if $i}}, {{end}}{{$s}}{{end}}</div></div>
{{end}}</body></html>
`))

// page answers the rendered operations list.
func page(e *core.RequestEvent) error {
	e.Response.Header().Set("Content-Security-Policy", pageCSP)
	return e.Blob(http.StatusOK, "text/html; charset=utf-8", pageHTML())
}
