package admin_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// setAvailability gives a camello 06:00–22:00 on the weekdays (Bogotá).
func setAvailability(t *testing.T, k *testkit.Kit, cookie string, days ...int) {
	t.Helper()
	weekly := []map[string]any{}
	for _, d := range days {
		weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
	}
	if r := k.Put("/api/agenda/availability", cookie, map[string]any{"weekly": weekly}); r.Status != 200 {
		t.Fatalf("availability: %d %s", r.Status, r.Raw)
	}
}

func setRating(t *testing.T, k *testkit.Kit, cam *core.Record, rating float64) {
	t.Helper()
	cam.Set("ratingAvg", rating)
	cam.Set("ratingCount", 1)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
}

func candidateNames(r *testkit.Response) string {
	var out []string
	list, _ := r.Get("camellos").([]any)
	for _, x := range list {
		out = append(out, x.(map[string]any)["name"].(string))
	}
	return strings.Join(out, ",")
}

// The assignment candidates of a job: its city (any spelling) and its
// service, soonest free first, then by rating, over every camello (not the
// first 100), paged.
func TestJobCandidates(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	client, clientCookie := k.UserWithSession(users.RoleClient)
	svc := k.CreateService()
	other := k.CreateService()
	job := k.CreateJob(testkit.JobOpts{Client: client, Service: svc}) // Bogotá
	every := []int{0, 1, 2, 3, 4, 5, 6}
	loc, _ := time.LoadLocation("America/Bogota")
	inThree := int(time.Now().In(loc).AddDate(0, 0, 3).Weekday())

	mk := func(name, city, status string, service *core.Record, rating float64, days []int) *core.Record {
		_, cam, cookie := k.CreateCamello(testkit.CamelloOpts{Name: name, City: city, Status: "ACTIVO", Services: []string{service.Id}})
		if days != nil {
			setAvailability(t, k, cookie, days...)
		}
		setRating(t, k, cam, rating)
		if status != "ACTIVO" {
			cam.Set("status", status)
			if err := k.App.Save(cam); err != nil {
				t.Fatal(err)
			}
		}
		return cam
	}
	mk("Ana", "Bogotá D.C.", "ACTIVO", svc, 3, every)
	mk("Beto", "bogota", "ACTIVO", svc, 5, every)
	mk("Ciro", "BOGOTÁ", "ACTIVO", svc, 5, []int{inThree})
	mk("Dora", "Bogotá", "ACTIVO", svc, 4.9, nil)
	mk("Eva", "Medellín", "ACTIVO", svc, 5, every)      // another city
	mk("Fabio", "Bogotá", "ACTIVO", other, 5, every)    // another service
	mk("Gina", "Bogotá", "SUSPENDIDO", svc, 5, every)   // not ACTIVO
	mk("Hugo", "Barranquilla", "ACTIVO", svc, 5, every) // the wrong preselection
	path := "/api/admin/jobs/" + job.Id + "/candidates"

	r := k.Get(path, admin)
	if r.Status != 200 || candidateNames(r) != "Beto,Ana,Ciro,Dora" || r.Get("total") != 4.0 {
		t.Fatalf("candidates: %d %s", r.Status, r.Raw)
	}
	if r.Str("job.id") != job.Id || r.Str("job.serviceId") != svc.Id || r.Str("job.city") == "" {
		t.Errorf("job: %s", r.Raw)
	}
	next0, next2 := r.Str("camellos.0.nextFree"), r.Str("camellos.2.nextFree")
	if next0 == "" || next2 == "" || next2 <= next0 || r.Get("camellos.3.nextFree") != nil {
		t.Errorf("nextFree: %s", r.Raw)
	}
	if _, ok := r.JSON["camellos"].([]any)[0].(map[string]any)["phone"]; ok {
		t.Errorf("candidates carry private fields: %s", r.Raw)
	}

	// Roles and a missing job.
	_, _, camCookie := k.CreateCamello()
	for _, c := range []struct {
		who, cookie, path string
		status            int
	}{
		{"anonymous", "", path, 401}, {"client", clientCookie, path, 403}, {"camello", camCookie, path, 403},
		{"unknown job", admin, "/api/admin/jobs/nosuchjob00001/candidates", 404},
		{"bad page", admin, path + "?page=0", 400}, {"bad perPage", admin, path + "?perPage=101", 400},
	} {
		if r := k.Get(c.path, c.cookie); r.Status != c.status {
			t.Errorf("%s: %d %s", c.who, r.Status, r.Raw)
		}
	}

	// Past 100: 100 more camellos of the city and service, none free; every
	// one is a candidate, on the pages after the free ones.
	for i := range 100 {
		_, cam, _ := k.CreateCamello(testkit.CamelloOpts{Name: "Extra " + strconv.Itoa(i), City: "Bogotá", Services: []string{svc.Id}})
		setRating(t, k, cam, 1)
	}
	seen := map[string]bool{}
	for page := 1; page <= 3; page++ {
		r := k.Get(path+"?perPage=50&page="+strconv.Itoa(page), admin)
		if r.Status != 200 || r.Get("total") != 104.0 {
			t.Fatalf("page %d: %d %.300s", page, r.Status, r.Raw)
		}
		for _, x := range r.Get("camellos").([]any) {
			seen[x.(map[string]any)["id"].(string)] = true
		}
		if page == 1 && !strings.HasPrefix(candidateNames(r), "Beto,Ana,Ciro,Dora,Extra") {
			t.Errorf("page 1: %s", candidateNames(r))
		}
	}
	if len(seen) != 104 {
		t.Errorf("%d distinct candidates over the pages, want 104", len(seen))
	}
}

// Rejecting a camello needs a reason; it is stored, shown to admins and
// mailed to the camello.
func TestRejectWithReason(t *testing.T) {
	mb := testkit.NewMailbox(t)
	mb.Env(t, "off")
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	reason := "La foto del documento no se lee; súbela de nuevo."
	cases := []struct {
		name   string
		body   map[string]any
		status int
		field  string
		msg    string
	}{
		{"no reason", map[string]any{"status": "RECHAZADO"}, 400, "reason", "Escribe el motivo"},
		{"blank reason", map[string]any{"status": "RECHAZADO", "reason": "   "}, 400, "reason", "Escribe el motivo"},
		{"4 characters", map[string]any{"status": "RECHAZADO", "reason": "ñañá"}, 400, "reason", ""},
		{"1001 characters", map[string]any{"status": "RECHAZADO", "reason": strings.Repeat("ñ", 1001)}, 400, "reason", ""},
		{"reason without rejecting", map[string]any{"status": "ACTIVO", "reason": reason}, 400, "reason", "Solo se indica"},
		{"reason alone", map[string]any{"reason": reason}, 400, "reason", "Solo se indica"},
		{"5 characters", map[string]any{"status": "RECHAZADO", "reason": "ñañáé"}, 200, "", ""},
		{"1000 characters", map[string]any{"status": "RECHAZADO", "reason": strings.Repeat("ñ", 1000)}, 200, "", ""},
		{"a reason", map[string]any{"status": "RECHAZADO", "reason": "  " + reason + "  "}, 200, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, cam, _ := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"})
			r := k.Patch("/api/admin/camellos/"+cam.Id, admin, c.body)
			if c.status == 400 {
				testkit.ExpectField(t, r, c.field, c.msg)
				if got, _ := k.App.FindRecordById("camellos", cam.Id); got.GetString("status") != "PENDIENTE" {
					t.Errorf("a refused rejection changed the status")
				}
				return
			}
			testkit.Expect(t, r, 200, "")
			want := strings.TrimSpace(c.body["reason"].(string))
			if r.Str("camello.status") != "RECHAZADO" || r.Str("camello.rejectionReason") != want {
				t.Fatalf("answer: %.300s", r.Raw)
			}
			if g := k.Get("/api/admin/camellos/"+cam.Id, admin); g.Str("camello.rejectionReason") != want {
				t.Errorf("stored: %.300s", g.Raw)
			}
			if c.name == "a reason" {
				m := mb.Wait(u.Email(), 1, 20*time.Second)[0]
				if !strings.Contains(m.Text, reason) || !strings.Contains(m.HTML, "súbela de nuevo") ||
					!strings.Contains(m.Subject+m.Text, "rechazado") {
					t.Errorf("mail: %q / %q", m.Subject, m.Text)
				}
			}
		})
	}
}
