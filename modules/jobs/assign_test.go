package jobs_test

import (
	"net/http"
	"sync"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
)

func TestAssign(t *testing.T) {
	w := newWorld(t)
	k := w.k
	_, pending, _ := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"})
	_, suspended, _ := k.CreateCamello(testkit.CamelloOpts{Status: "SUSPENDIDO"})
	open := w.job("PENDIENTE")
	path := func(id string) string { return "/api/admin/jobs/" + id + "/assign" }
	body := map[string]any{"camelloId": w.camello.Id}

	t.Run("errors", func(t *testing.T) {
		cases := []struct {
			name, path, cookie string
			body               any
			status             int
			msg                string
		}{
			{"no session", path(open.Id), "", body, 401, "No autorizado"},
			{"client", path(open.Id), w.clientCookie, body, 403, "Sin permisos de administrador"},
			{"camello", path(open.Id), w.camCookie, body, 403, "Sin permisos de administrador"},
			{"unknown job", path("nosuchjob00001"), w.adminCookie, body, 404, jobs.MsgJobNotFound},
			{"unknown camello", path(open.Id), w.adminCookie, map[string]any{"camelloId": "nosuchcamello1"}, 404, jobs.MsgCamelloNotFound},
			{"pending camello", path(open.Id), w.adminCookie, map[string]any{"camelloId": pending.Id}, 409, jobs.MsgCamelloInactive},
			{"suspended camello", path(open.Id), w.adminCookie, map[string]any{"camelloId": suspended.Id}, 409, jobs.MsgCamelloInactive},
			{"malformed", path(open.Id), w.adminCookie, "{", 400, httpapi.MsgInvalidJSON},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expect(t, k.Post(c.path, c.cookie, c.body), c.status, c.msg)
			})
		}
		for name, b := range map[string]any{"missing": map[string]any{}, "empty body": nil, "number": map[string]any{"camelloId": 7},
			"list": map[string]any{"camelloId": []string{w.camello.Id}}, "empty": map[string]any{"camelloId": ""},
			"not an id": map[string]any{"camelloId": "a b"}} {
			t.Run("body "+name, func(t *testing.T) {
				r := k.Post(path(open.Id), w.adminCookie, b)
				expectField(t, r, "camelloId", "")
				if r.Get("issues.formErrors") == nil {
					t.Fatalf("issues without formErrors: %s", r.Raw)
				}
			})
		}
		expectField(t, k.Post(path("bad.id"), w.adminCookie, body), "id", "Identificador")
		for _, st := range []string{"ASIGNADO", "EN_PROGRESO", "COMPLETADO", "CANCELADO"} {
			expect(t, k.Post(path(w.job(st).Id), w.adminCookie, body), 409, jobs.MsgNotPending)
		}
		direct := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Source: "PERFIL"})
		expect(t, k.Post(path(direct.Id), w.adminCookie, body), 409, jobs.MsgHasProvider)
		if got := reload(t, k, open); got.GetString("status") != "PENDIENTE" || got.GetString("provider") != "" {
			t.Fatal("a refused assign changed the job")
		}
	})

	t.Run("success", func(t *testing.T) {
		r := k.Post(path(open.Id), w.adminCookie, body)
		expect(t, r, http.StatusOK, "")
		if r.Str("job.status") != "ASIGNADO" || r.Str("job.provider.id") != w.camello.Id || r.Str("job.id") != open.Id {
			t.Fatalf("assigned job: %s", r.Raw)
		}
		if w.notifications(w.client, "JOB_ASSIGNED") != 1 || w.notifications(w.camUser, "JOB_ASSIGNED") != 1 {
			t.Fatal("both parties must be notified once")
		}
		expect(t, k.Post(path(open.Id), w.adminCookie, body), 409, jobs.MsgNotPending)
		// The camello now sees and works the job.
		expect(t, k.Post("/api/jobs/"+open.Id+"/start", w.camCookie, nil), 200, "")
	})
}

// TestAssignConcurrent sends 20 assigns of one job at once, each naming a
// different camello: exactly one wins, the rest are 409.
func TestAssignConcurrent(t *testing.T) {
	w := newWorld(t)
	k := w.k
	job := w.job("PENDIENTE")
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		_, c, _ := k.CreateCamello()
		ids[i] = c.Id
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			statuses[i] = k.Post("/api/admin/jobs/"+job.Id+"/assign", w.adminCookie, map[string]any{"camelloId": ids[i]}).Status
		}(i)
	}
	close(start)
	wg.Wait()
	won, winner := 0, ""
	for i, s := range statuses {
		switch s {
		case 200:
			won++
			winner = ids[i]
		case 409:
		default:
			t.Fatalf("assign %d answered %d", i, s)
		}
	}
	if won != 1 {
		t.Fatalf("%d winners, want 1 (%v)", won, statuses)
	}
	if got := reload(t, k, job); got.GetString("provider") != winner || got.GetString("status") != "ASIGNADO" {
		t.Fatalf("job provider %s, winner %s", got.GetString("provider"), winner)
	}
	if got := k.Count("notifications", "kind = 'JOB_ASSIGNED'"); got != 2 {
		t.Fatalf("%d JOB_ASSIGNED notifications, want 2", got)
	}
}
