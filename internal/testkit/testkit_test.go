package testkit_test

import (
	"net/http"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"
)

func TestKitBootsAndRecognisesSessions(t *testing.T) {
	k := testkit.New(t)
	if r := k.Get("/api/health", ""); r.Status != http.StatusOK {
		t.Fatalf("health: %d %s", r.Status, r.Raw)
	}
	for _, name := range []string{"sessions", "camellos", "categories", "services", "jobs", "appointments",
		"availability", "reviews", "notifications", "notification_preferences", "push_subscriptions",
		"legal_documents", "legal_document_versions", "legal_acceptances", "app_kv"} {
		if _, err := k.App.FindCollectionByNameOrId(name); err != nil {
			t.Errorf("collection %s missing: %v", name, err)
		}
	}
	u, cookie := k.UserWithSession(users.RoleClient)
	if u.Id == "" || cookie == "" {
		t.Fatal("no user or session")
	}
	_, _, camCookie := k.CreateCamello()
	if camCookie == "" {
		t.Fatal("no camello session")
	}
	// The generic collection API is closed to everyone but superusers.
	for _, col := range []string{"users", "sessions", "camellos", "jobs"} {
		r := k.Get("/api/collections/"+col+"/records", "")
		if r.Status == http.StatusOK {
			if items, _ := r.JSON["items"].([]any); len(items) > 0 {
				t.Errorf("%s leaked records to anonymous", col)
			}
		}
	}
}

func TestUnknownAPIPathsAnswerInTheEnvelope(t *testing.T) {
	k := testkit.New(t)
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		r := k.Do(testkit.Req{Method: m, Path: "/api/no-existe/de/verdad"})
		if r.Status != http.StatusNotFound || r.Error() != "Ruta no encontrada" {
			t.Fatalf("%s: %d %s", m, r.Status, r.Raw)
		}
	}
	// Built-in and our own routes keep precedence over the catch-all.
	if r := k.Get("/api/health", ""); r.Status != http.StatusOK {
		t.Fatalf("health: %d", r.Status)
	}
	if r := k.Get("/api/categories", ""); r.Status != http.StatusOK {
		t.Fatalf("categories: %d", r.Status)
	}
}
