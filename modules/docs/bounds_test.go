package docs_test

import (
	"testing"

	"camellos/internal/bounds"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDocumentedBoundsAreTheBounds: every length the document states for a
// request field is the one of internal/bounds (which the schema migration
// and the input validation use): a bound changed in one place only fails.
func TestDocumentedBoundsAreTheBounds(t *testing.T) {
	doc := loadDoc(t)
	cases := []struct {
		method, path, field string
		min, max            int
	}{
		{"POST", "/api/auth/register", "name", bounds.NameMin, bounds.NameMax},
		{"POST", "/api/auth/register", "city", bounds.CityMin, bounds.CityMax},
		{"POST", "/api/auth/register", "phone", bounds.PhoneMin, bounds.PhoneMax},
		{"POST", "/api/auth/register", "email", 0, bounds.EmailMax},
		{"POST", "/api/auth/register", "password", bounds.PasswordMin, bounds.PasswordMax},
		{"PATCH", "/api/me", "name", bounds.NameMin, bounds.NameMax},
		{"PATCH", "/api/me", "phone", bounds.PhoneMin, bounds.PhoneMax},
		{"PATCH", "/api/me", "city", bounds.CityMin, bounds.CityMax},
		{"PATCH", "/api/me", "password", bounds.PasswordMin, bounds.PasswordMax},
		{"PATCH", "/api/me/camello", "name", bounds.NameMin, bounds.NameMax},
		{"PATCH", "/api/me/camello", "phone", bounds.PhoneMin, bounds.PhoneMax},
		{"PATCH", "/api/me/camello", "city", bounds.CityMin, bounds.CityMax},
		{"PATCH", "/api/me/camello", "documentId", 0, bounds.DocumentIDMax},
		{"PATCH", "/api/me/camello", "neighborhood", 0, bounds.NeighborhoodMax},
		{"PATCH", "/api/me/camello", "professionalCard", 0, bounds.ProfessionalCardMax},
		{"PATCH", "/api/me/camello", "description", 0, bounds.CamelloDescriptionMax},
		{"POST", "/api/jobs", "title", bounds.JobTitleMin, bounds.JobTitleMax},
		{"POST", "/api/jobs", "description", 0, bounds.JobDescriptionMax},
		{"POST", "/api/jobs", "city", bounds.CityMin, bounds.CityMax},
		{"POST", "/api/jobs", "neighborhood", 0, bounds.NeighborhoodMax},
		{"POST", "/api/jobs/{id}/review", "comment", 0, bounds.ReviewCommentMax},
		{"POST", "/api/admin/categories", "name", bounds.CategoryNameMin, bounds.CategoryNameMax},
		{"POST", "/api/admin/categories", "description", 0, bounds.CategoryDescriptionMax},
		{"POST", "/api/admin/categories", "icon", 0, bounds.CategoryIconMax},
		{"POST", "/api/admin/services", "name", bounds.ServiceNameMin, bounds.ServiceNameMax},
		{"POST", "/api/admin/services", "slug", 0, bounds.ServiceSlugMax},
		{"POST", "/api/admin/services", "description", 0, bounds.ServiceDescriptionMax},
		{"PATCH", "/api/admin/users/{id}", "name", bounds.NameMin, bounds.NameMax},
		{"PATCH", "/api/admin/camellos/{id}", "notes", 0, bounds.CamelloNotesMax},
		{"POST", "/api/search/interpret", "query", bounds.SearchQueryMin, bounds.SearchQueryMax},
		{"POST", "/api/admin/notifications", "title", bounds.NotificationTitleMin, bounds.NotificationTitleMax},
		{"POST", "/api/admin/notifications", "body", 0, bounds.NotificationBodyMax},
		{"POST", "/api/admin/notifications", "url", 0, bounds.URLMax},
	}
	stated := 0
	for _, c := range cases {
		prop := requestProperty(doc, c.method, c.path, c.field)
		if prop == nil {
			continue // not in this operation's body: nothing stated
		}
		if prop.MaxLength != nil {
			stated++
			if int(*prop.MaxLength) != c.max {
				t.Errorf("%s %s %s: maxLength %d, bound %d", c.method, c.path, c.field, *prop.MaxLength, c.max)
			}
		}
		if prop.MinLength > 1 || (prop.MinLength == 1 && c.min > 0) {
			stated++
			if int(prop.MinLength) != c.min {
				t.Errorf("%s %s %s: minLength %d, bound %d", c.method, c.path, c.field, prop.MinLength, c.min)
			}
		}
	}
	if stated < 20 {
		t.Fatalf("only %d bounds found in the document: the lookup is broken", stated)
	}
}

// requestProperty is a property of the JSON (or multipart) request body of
// an operation, nil when absent.
func requestProperty(doc *openapi3.T, method, path, field string) *openapi3.Schema {
	item := doc.Paths.Find(path)
	if item == nil {
		return nil
	}
	op := item.GetOperation(method)
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	for _, mt := range op.RequestBody.Value.Content {
		if mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		if p := findProperty(mt.Schema.Value, field); p != nil {
			return p
		}
	}
	return nil
}

func findProperty(s *openapi3.Schema, field string) *openapi3.Schema {
	if p, ok := s.Properties[field]; ok && p.Value != nil {
		return p.Value
	}
	for _, group := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range group {
			if sub.Value != nil {
				if p := findProperty(sub.Value, field); p != nil {
					return p
				}
			}
		}
	}
	return nil
}
