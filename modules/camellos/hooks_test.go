package camellos_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
)

// The record hooks compare with the stored row, not PocketBase's
// Original(), which is stale on a record object saved more than once.
func TestHooksCompareWithTheStoredRow(t *testing.T) {
	k := testkit.New(t)
	user, cam, cookie := k.CreateCamello(testkit.CamelloOpts{Status: "ACTIVO"})

	cam.Set("status", "SUSPENDIDO") // same object as created: a valid move
	if err := k.App.Save(cam); err != nil {
		t.Fatalf("ACTIVO → SUSPENDIDO on a reused object: %v", err)
	}
	cam.Set("status", "PENDIENTE") // SUSPENDIDO → PENDIENTE is not allowed
	if err := k.App.Save(cam); err == nil || !strings.Contains(err.Error(), "status") {
		t.Fatalf("SUSPENDIDO → PENDIENTE accepted: %v", err)
	}

	// Saving the user object again without a password change keeps sessions.
	user.Set("name", "Otro Nombre")
	if err := k.App.Save(user); err != nil {
		t.Fatal(err)
	}
	if r := k.Get("/api/me", cookie); r.Status != 200 {
		t.Fatalf("session revoked by an unrelated save: %d", r.Status)
	}
}

func TestRenamedServiceRefreshesSearchText(t *testing.T) {
	k := testkit.New(t)
	svc := k.CreateService()
	_, cam, _ := k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	svc.Set("name", "Impermeabilización")
	if err := k.App.Save(svc); err != nil {
		t.Fatal(err)
	}
	fresh, _ := k.App.FindRecordById("camellos", cam.Id)
	if !strings.Contains(fresh.GetString("searchText"), "impermeabilizacion") {
		t.Fatalf("search text %q", fresh.GetString("searchText"))
	}
}
