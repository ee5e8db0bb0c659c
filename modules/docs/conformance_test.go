package docs_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"camellos/hardening"
	"camellos/internal/testkit"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

func init() {
	asText := func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		raw, err := io.ReadAll(body)
		return string(raw), err
	}
	for _, ct := range []string{"text/html", "text/event-stream", "text/calendar", "image/png", "image/jpeg", "image/webp"} {
		openapi3filter.RegisterBodyDecoder(ct, asText)
	}
}

// TestResponsesMatchDocument calls every registered route of the contract
// (the authorisation matrix's calls: once as a caller the guards let in,
// once anonymously, once with a malformed id) and validates each real
// answer — status, headers and body — against the OpenAPI document.
// Routes not merged yet are skipped by name.
func TestResponsesMatchDocument(t *testing.T) {
	doc := loadDoc(t)
	registered := map[string]bool{}
	for _, r := range hardening.OwnedRoutes(t) {
		registered[r.Key()] = true
	}
	w := hardening.NewWorld(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			rt := hardening.Route{Method: method, Path: path}
			exp, inTable := hardening.Table[rt.Key()]
			t.Run(rt.Key(), func(t *testing.T) {
				if !registered[rt.Key()] {
					if builtinDocumented[rt.Key()] {
						res := w.K.Get(path, "")
						validate(t, doc, rt, item, op, "", res)
						return
					}
					if hardening.Strict() {
						t.Fatalf("%s is documented but not registered", rt.Key())
					}
					t.Skipf("%s not registered: its branch is not merged on main yet", rt.Key())
				}
				if !inTable {
					t.Fatalf("%s has no row in hardening.Table", rt.Key())
				}
				calls := []hardening.Role{hardening.Anonymous}
				for i := len(hardening.Roles) - 1; i >= 0; i-- {
					if r := hardening.Roles[i]; (exp.Outcome(r) == hardening.Allowed || exp.Outcome(r) == hardening.Optional) && r != hardening.Anonymous {
						calls = append(calls, r)
						break
					}
				}
				for _, role := range calls {
					c := exp.Build(w, role)
					res := w.Send(t, rt, role, c)
					validate(t, doc, rt, item, op, c.Query, res)
				}
				if strings.Contains(path, "{id}") {
					role := calls[len(calls)-1]
					res := w.K.Do(testkit.Req{Method: method, Path: strings.ReplaceAll(path, "{id}", "no%20es%20un%20id"), Cookie: w.Cookies[role], Body: exp.Build(w, role).Body})
					validate(t, doc, rt, item, op, "", res)
					if res.Status != http.StatusBadRequest && res.Status != http.StatusForbidden {
						t.Errorf("malformed id as %s: %d, want 400", role, res.Status)
					}
				}
			})
		}
	}
}

func validate(t *testing.T, doc *openapi3.T, rt hardening.Route, item *openapi3.PathItem, op *openapi3.Operation, query string, res *testkit.Response) {
	t.Helper()
	target := rt.Path
	if query != "" {
		target += "?" + query
	}
	req := httptest.NewRequest(rt.Method, target, nil)
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: doc, Path: rt.Path, PathItem: item, Method: rt.Method, Operation: op},
			Options: opts,
		},
		Status:  res.Status,
		Header:  res.Header,
		Options: opts,
	}
	in.SetBodyBytes(res.Raw)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		body := string(res.Raw)
		if len(body) > 400 {
			body = body[:400] + "…"
		}
		t.Errorf("%s answered %d, not as documented: %v\nbody: %s", rt.Key(), res.Status, err, body)
	}
}
