package docs_test

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"camellos/hardening"
	"camellos/internal/testkit"
	"camellos/modules/docs"

	"github.com/getkin/kin-openapi/openapi3"
)

// builtinDocumented are PocketBase's own routes the document describes
// because the contract names them (GET /api/health).
var builtinDocumented = map[string]bool{
	"GET /api/health": true,
	// Guarded by modules/files (issue 21): what it answers is ours.
	"GET /api/files/{collection}/{recordId}/{filename}": true,
}

func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(docs.JSON())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	return doc
}

func TestDocumentIsValidOpenAPI303(t *testing.T) {
	doc := loadDoc(t)
	if doc.OpenAPI != "3.0.3" {
		t.Fatalf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Summary == "" {
				t.Errorf("%s %s has no summary", method, path)
			}
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
			for code, ref := range op.Responses.Map() {
				if code[0] >= '4' {
					ct := ref.Value.Content.Get("application/json")
					if ct == nil || ct.Schema == nil || ct.Schema.Ref != "#/components/schemas/Error" {
						t.Errorf("%s %s %s is not the error envelope", method, path, code)
					}
				}
			}
		}
	}
}

// TestEveryRouteDocumented walks the live route table: every /api route the
// service registers must be in the document, and every documented operation
// must be registered (or be one of PocketBase's documented built-ins).
func TestEveryRouteDocumented(t *testing.T) {
	doc := loadDoc(t)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	registered := map[string]bool{}
	for _, r := range hardening.OwnedRoutes(t) {
		registered[r.Key()] = true
		if r.CatchAll() {
			continue // the 404 fallback of unknown /api paths, no operation
		}
		if !documented[r.Key()] {
			t.Errorf("route %s is registered but not documented in modules/docs/openapi.yaml", r.Key())
		}
	}
	var missing []string
	for key := range documented {
		if !registered[key] && !builtinDocumented[key] {
			missing = append(missing, key)
		}
	}
	sort.Strings(missing)
	for _, key := range missing {
		t.Run(key, func(t *testing.T) {
			if hardening.Strict() {
				t.Fatalf("%s is documented but not registered", key)
			}
			t.Skipf("%s is documented but not registered: not merged on main yet (CAMELLOS_STRICT_ROUTES=1 fails instead)", key)
		})
	}
}

func TestServedDocumentAndPage(t *testing.T) {
	k := testkit.New(t)
	res := k.Get("/api/docs/openapi.json", "")
	if res.Status != http.StatusOK || res.JSON["openapi"] != "3.0.3" {
		t.Fatalf("openapi.json: %d %s", res.Status, res.Raw[:min(len(res.Raw), 200)])
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q", ct)
	}
	page := k.Get("/api/docs", "")
	if page.Status != http.StatusOK || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("docs page: %d %s", page.Status, page.Header.Get("Content-Type"))
	}
	body := string(page.Raw)
	for _, want := range []string{"/api/register/camello", "/api/admin/jobs/{id}/assign", "/api/camellos/{id}/slots", "openapi.json"} {
		if !strings.Contains(body, want) {
			t.Errorf("docs page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script") || strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("docs page must not load scripts or remote assets")
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("docs page CSP = %q", csp)
	}
}
