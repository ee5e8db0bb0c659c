package jobs_test

import (
	"strings"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/internal/text"
	"camellos/modules/jobs"
)

// TestJobAddressAndEdit: the address is optional at creation (≤ 200
// characters), editable by the client while the job is not final, and read
// only by the client, admins and the camello once assigned.
func TestJobAddressAndEdit(t *testing.T) {
	w := newWorld(t)
	k := w.k
	svc := k.CreateService()
	post := func(addr any) *testkit.Response {
		return k.Post("/api/jobs", w.clientCookie, map[string]any{"title": "Pintar la sala", "serviceId": svc.Id,
			"city": "Bogotá", "address": addr, "camelloId": w.camello.Id})
	}
	expect(t, post(strings.Repeat("ñ", 201)), 400, httpapi.MsgInvalidData)
	r := post(strings.Repeat("ñ", 200))
	expect(t, r, 201, "")
	if text.Chars(r.Str("job.address")) != 200 || r.Get("job.price") != nil {
		t.Fatalf("created: %s", r.Raw)
	}
	id := r.Str("job.id")
	path := "/api/jobs/" + id

	// A requested camello does not read the address until it accepts.
	if r := k.Get(path, w.camCookie); r.Status != 200 || strings.Contains(string(r.Raw), `"address"`) {
		t.Fatalf("requested camello: %s", r.Raw)
	}
	if r := k.Get("/api/jobs", w.camCookie); strings.Contains(string(r.Raw), "ñññ") {
		t.Fatalf("requested camello's list: %s", r.Raw)
	}
	if r := k.Get(path, w.adminCookie); r.Str("job.address") == "" {
		t.Fatalf("admin: %s", r.Raw)
	}

	// Edits.
	expect(t, k.Patch(path, "", map[string]any{"address": "Calle 1"}), 401, "No autorizado")
	expect(t, k.Patch(path, w.camCookie, map[string]any{"address": "Calle 1"}), 403, jobs.MsgOnlyClientEdits)
	expect(t, k.Patch(path, w.adminCookie, map[string]any{"address": "Calle 1"}), 403, jobs.MsgOnlyClientEdits)
	expect(t, k.Patch(path, w.strangerCookie, map[string]any{"address": "Calle 1"}), 404, jobs.MsgJobNotFound)
	expect(t, k.Patch(path, w.clientCookie, map[string]any{"address": strings.Repeat("a", 201)}), 400, httpapi.MsgInvalidData)
	expect(t, k.Patch(path, w.clientCookie, map[string]any{"description": strings.Repeat("a", 5001)}), 400, httpapi.MsgInvalidData)
	expect(t, k.Patch(path, w.clientCookie, map[string]any{"address": 5}), 400, httpapi.MsgInvalidData)
	expect(t, k.Patch(path, w.clientCookie, "{"), 400, httpapi.MsgInvalidJSON)
	r = k.Patch(path, w.clientCookie, map[string]any{"address": "  Carrera 7 # 45-10  ", "description": strings.Repeat("d", 5000)})
	expect(t, r, 200, "")
	if r.Str("job.address") != "Carrera 7 # 45-10" || text.Chars(r.Str("job.description")) != 5000 || r.Str("job.title") != "Pintar la sala" {
		t.Fatalf("edited: %s", r.Raw)
	}
	if r := k.Patch(path, w.clientCookie, map[string]any{"description": "Solo la sala"}); r.Str("job.address") != "Carrera 7 # 45-10" {
		t.Fatalf("partial edit lost the address: %s", r.Raw)
	}

	// Accepted: the camello reads it now.
	expect(t, k.Post(path+"/accept", w.camCookie, nil), 200, "")
	if r := k.Get(path, w.camCookie); r.Str("job.address") != "Carrera 7 # 45-10" {
		t.Fatalf("assigned camello: %s", r.Raw)
	}
	expect(t, k.Patch(path, w.clientCookie, map[string]any{"address": "Calle 2"}), 200, "")

	for _, st := range []string{"COMPLETADO", "CANCELADO"} {
		j := w.job(st)
		expect(t, k.Patch("/api/jobs/"+j.Id, w.clientCookie, map[string]any{"address": "Calle 3"}), 409, jobs.MsgFinalJob)
	}
	expect(t, k.Patch("/api/jobs/a.b", w.clientCookie, map[string]any{}), 400, httpapi.MsgInvalidData)
	expect(t, k.Patch("/api/jobs/nosuchjob12345", w.clientCookie, map[string]any{}), 404, jobs.MsgJobNotFound)
}
