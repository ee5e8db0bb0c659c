package apitest_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"
)

func TestPatchOwnCamello(t *testing.T) {
	k := testkit.New(t)
	_, cam, cookie := k.CreateCamello(testkit.CamelloOpts{Status: "ACTIVO"})
	_, client := k.UserWithSession(users.RoleClient)

	r := k.Patch("/api/me/camello", cookie, map[string]any{"description": "Arreglos rápidos", "trades": []string{"cerrajería", " pintura "},
		"status": "SUSPENDIDO", "premium": true, "notes": "hack"})
	if r.Status != 200 || r.Str("camello.description") != "Arreglos rápidos" || r.Get("camello.trades.1") != "pintura" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	fresh, _ := k.App.FindRecordById("camellos", cam.Id)
	if fresh.GetString("status") != "ACTIVO" || fresh.GetBool("premium") || fresh.GetString("notes") != "" {
		t.Fatal("self-service changed admin-only fields")
	}
	if !strings.Contains(fresh.GetString("searchText"), "cerrajeria") {
		t.Fatalf("search text not refreshed: %q", fresh.GetString("searchText"))
	}
	cases := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "A"}, "name"},
		{map[string]any{"phone": "12"}, "phone"},
		{map[string]any{"phone": "llámame ya"}, "phone"},
		{map[string]any{"phone": ""}, "phone"},
		{map[string]any{"trades": []string{}}, "trades"},
		{map[string]any{"description": strings.Repeat("d", 5001)}, "description"},
		{map[string]any{"serviceIds": []string{"desconocido1"}}, "serviceIds"},
	}
	for _, c := range cases {
		if r := k.Patch("/api/me/camello", cookie, c.body); r.Status != 400 || len(r.FieldErrors(c.field)) == 0 {
			t.Fatalf("%v: %d %s", c.body, r.Status, r.Raw)
		}
	}
	multi := testkit.NewMultipart().Field("city", "Cali").File("file", "x.png", pngBytes(t)).Close()
	if r := k.Patch("/api/me/camello", cookie, multi); r.Status != 200 || r.Str("camello.city") != "Cali" || !strings.HasPrefix(r.Str("camello.photo"), "/uploads/camellos/") {
		t.Fatalf("multipart: %d %s", r.Status, r.Raw)
	}
	if r := k.Patch("/api/me/camello", client, map[string]any{"city": "Cali"}); r.Status != 403 {
		t.Fatalf("client: %d", r.Status)
	}
	if r := k.Patch("/api/me/camello", "", map[string]any{"city": "Cali"}); r.Status != 401 {
		t.Fatalf("anonymous: %d", r.Status)
	}
}
