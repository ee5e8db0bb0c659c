package jobs_test

import (
	"strings"
	"testing"
)

// TestAddressNotToCamelloWithoutTheJob reproduces issue 21's address leak:
// a camello that never got the job read the address in its export while
// a direct request was PENDIENTE, and in GET /api/jobs/{id} (and its list)
// after it declined or once the job was cancelled. The client keeps
// reading it everywhere; the camello reads it while the job is its own.
func TestAddressNotToCamelloWithoutTheJob(t *testing.T) {
	w := newWorld(t)
	k := w.k
	svc := k.CreateService()
	post := func(addr string) string {
		r := k.Post("/api/jobs", w.clientCookie, map[string]any{"title": "Pintar la sala", "serviceId": svc.Id,
			"city": "Bogotá", "address": addr, "camelloId": w.camello.Id})
		expect(t, r, 201, "")
		return r.Str("job.id")
	}
	reads := func(cookie, path, addr string) bool {
		t.Helper()
		r := k.Get(path, cookie)
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Raw)
		}
		return strings.Contains(string(r.Raw), addr)
	}

	pending := post("Calle Pendiente 1")
	declined := post("Calle Declinada 2")
	expect(t, k.Post("/api/jobs/"+declined+"/cancel", w.camCookie, nil), 200, "")
	cancelled := post("Calle Cancelada 3")
	expect(t, k.Post("/api/jobs/"+cancelled+"/accept", w.camCookie, nil), 200, "")
	if !reads(w.camCookie, "/api/jobs/"+cancelled, "Calle Cancelada 3") {
		t.Fatal("the camello does not read the address of its assigned job")
	}
	expect(t, k.Post("/api/jobs/"+cancelled+"/cancel", w.clientCookie, nil), 200, "")

	for _, c := range []struct{ id, addr string }{{pending, "Calle Pendiente 1"}, {declined, "Calle Declinada 2"}, {cancelled, "Calle Cancelada 3"}} {
		for _, path := range []string{"/api/jobs/" + c.id, "/api/jobs?perPage=100", "/api/me/export"} {
			if reads(w.camCookie, path, c.addr) {
				t.Errorf("the camello reads %q in %s", c.addr, path)
			}
			if !reads(w.clientCookie, path, c.addr) {
				t.Errorf("the client does not read %q in %s", c.addr, path)
			}
		}
		if !reads(w.adminCookie, "/api/jobs/"+c.id, c.addr) {
			t.Errorf("the admin does not read %q", c.addr)
		}
	}
}
