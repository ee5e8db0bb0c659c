package jobs_test

import (
	"fmt"
	"strings"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

func TestCreateJob(t *testing.T) {
	w := newWorld(t)
	k := w.k
	svc := k.CreateService()
	_, pending, _ := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"})
	valid := func(over map[string]any) map[string]any {
		b := map[string]any{"title": "Arreglar la ducha", "description": "Gotea", "serviceId": svc.Id, "city": "Bogotá"}
		for key, v := range over {
			if v == nil {
				delete(b, key)
			} else {
				b[key] = v
			}
		}
		return b
	}

	t.Run("roles", func(t *testing.T) {
		expect(t, k.Post("/api/jobs", "", valid(nil)), 401, "No autorizado")
		expect(t, k.Post("/api/jobs", w.camCookie, valid(nil)), 403, jobs.MsgOnlyClients)
		expect(t, k.Post("/api/jobs", w.adminCookie, valid(nil)), 403, jobs.MsgOnlyClients)
	})

	t.Run("invalid", func(t *testing.T) {
		cases := []struct {
			name, field, msg string
			body             any
		}{
			{"title missing", "title", "obligatorio", valid(map[string]any{"title": nil})},
			{"title 2", "title", "al menos 3", valid(map[string]any{"title": "ab"})},
			{"title 121", "title", "como máximo 120", valid(map[string]any{"title": strings.Repeat("ñ", 121)})},
			{"title number", "title", "texto", valid(map[string]any{"title": 5})},
			{"description 5001", "description", "como máximo 5000", valid(map[string]any{"description": strings.Repeat("a", 5001)})},
			{"city 1", "city", "al menos 2", valid(map[string]any{"city": "B"})},
			{"city 121", "city", "como máximo 120", valid(map[string]any{"city": strings.Repeat("c", 121)})},
			{"neighborhood 121", "neighborhood", "como máximo 120", valid(map[string]any{"neighborhood": strings.Repeat("n", 121)})},
			{"service missing", "serviceId", "obligatorio", valid(map[string]any{"serviceId": nil})},
			{"service bad id", "serviceId", "Identificador", valid(map[string]any{"serviceId": "no/id"})},
			{"service unknown", "serviceId", "Servicio no encontrado", valid(map[string]any{"serviceId": "nosuchservice1"})},
			{"camello unknown", "camelloId", "Camello no encontrado", valid(map[string]any{"camelloId": "nosuchcamello1"})},
			{"camello pending", "camelloId", "Camello no encontrado", valid(map[string]any{"camelloId": pending.Id})},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectField(t, k.Post("/api/jobs", w.clientCookie, c.body), c.field, c.msg)
			})
		}
		expect(t, k.Post("/api/jobs", w.clientCookie, "{nope"), 400, httpapi.MsgInvalidJSON)
		if n := k.Count("jobs", ""); n != 0 {
			t.Fatalf("%d jobs written by invalid requests", n)
		}
	})

	t.Run("explore", func(t *testing.T) {
		r := k.Post("/api/jobs", w.clientCookie, valid(map[string]any{"title": strings.Repeat("ñ", 120), "neighborhood": "Chapinero"}))
		expect(t, r, 201, "")
		for path, want := range map[string]any{
			"job.status": "PENDIENTE", "job.source": "EXPLORE", "job.city": "Bogotá", "job.neighborhood": "Chapinero",
			"job.service.id": svc.Id, "job.service.name": svc.GetString("name"), "job.clientId": w.client.Id,
			"job.description": "Gotea",
		} {
			if got := r.Get(path); got != want {
				t.Errorf("%s = %v, want %v", path, got, want)
			}
		}
		if !strings.HasPrefix(r.Str("job.service.categoryName"), "Categoría") {
			t.Errorf("categoryName %q", r.Str("job.service.categoryName"))
		}
		if p, ok := r.JSON["job"].(map[string]any)["provider"]; !ok || p != nil {
			t.Errorf("provider = %v, want null", p)
		}
		if !strings.HasSuffix(r.Str("job.createdAt"), "Z") || r.Str("job.id") == "" {
			t.Errorf("bad id/createdAt: %s", r.Raw)
		}
	})

	t.Run("perfil", func(t *testing.T) {
		before := w.notifications(w.camUser, "JOB_STATUS")
		r := k.Post("/api/jobs", w.clientCookie, valid(map[string]any{"camelloId": w.camello.Id}))
		expect(t, r, 201, "")
		if r.Str("job.status") != "PENDIENTE" || r.Str("job.source") != "PERFIL" || r.Str("job.provider.id") != w.camello.Id {
			t.Fatalf("direct request: %s", r.Raw)
		}
		if r.Str("job.provider.name") != w.camello.GetString("name") || r.Get("job.provider.trades.0") != "plomería" {
			t.Fatalf("provider summary: %s", r.Raw)
		}
		if got := w.notifications(w.camUser, "JOB_STATUS"); got != before+1 {
			t.Fatalf("camello notifications %d, want %d", got, before+1)
		}
	})
}

func TestJobViewAndLists(t *testing.T) {
	w := newWorld(t)
	k := w.k
	open := w.job("PENDIENTE")
	assigned := w.job("ASIGNADO")
	done := w.job("COMPLETADO")
	other := k.CreateJob(testkit.JobOpts{Client: w.stranger})

	t.Run("view", func(t *testing.T) {
		for _, c := range []struct {
			name, cookie string
			status       int
		}{
			{"client", w.clientCookie, 200}, {"provider", w.camCookie, 200}, {"admin", w.adminCookie, 200},
			{"stranger", w.strangerCookie, 404}, {"other camello", w.otherCamCookie, 404}, {"guest", "", 401},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := k.Get("/api/jobs/"+assigned.Id, c.cookie)
				expect(t, r, c.status, "")
				if c.status == 200 && (r.Str("job.id") != assigned.Id || r.Str("job.provider.id") != w.camello.Id) {
					t.Fatalf("job: %s", r.Raw)
				}
				if c.status == 404 && r.Error() != jobs.MsgJobNotFound {
					t.Fatalf("stranger must see an unknown job: %s", r.Raw)
				}
			})
		}
		// The provider of an open job is not its camello.
		expect(t, k.Get("/api/jobs/"+open.Id, w.camCookie), 404, jobs.MsgJobNotFound)
		expect(t, k.Get("/api/jobs/nosuchjob00001", w.adminCookie), 404, jobs.MsgJobNotFound)
		r := k.Get("/api/jobs/bad.id", w.adminCookie)
		expect(t, r, 400, httpapi.MsgInvalidData)
		if r.Get("issues") == nil {
			t.Fatal("bad id without issues")
		}
	})

	ids := func(r *testkit.Response) string {
		list, _ := r.Get("jobs").([]any)
		out := []string{}
		for _, j := range list {
			out = append(out, j.(map[string]any)["id"].(string))
		}
		return strings.Join(out, ",")
	}

	t.Run("mine", func(t *testing.T) {
		r := k.Get("/api/jobs", w.clientCookie)
		expect(t, r, 200, "")
		if got, want := ids(r), strings.Join([]string{done.Id, assigned.Id, open.Id}, ","); got != want {
			t.Fatalf("client jobs %s, want %s", got, want)
		}
		if r.Get("total") != 3.0 || r.Get("page") != 1.0 || r.Get("perPage") != 20.0 {
			t.Fatalf("pagination: %s", r.Raw)
		}
		r = k.Get("/api/jobs", w.camCookie)
		if got, want := ids(r), done.Id+","+assigned.Id; got != want {
			t.Fatalf("camello jobs %s, want %s", got, want)
		}
		if got := ids(k.Get("/api/jobs?status=ASIGNADO", w.clientCookie)); got != assigned.Id {
			t.Fatalf("status filter: %s", got)
		}
		r = k.Get("/api/jobs?page=2&perPage=2", w.clientCookie)
		if got := ids(r); got != open.Id || r.Get("total") != 3.0 || r.Get("perPage") != 2.0 {
			t.Fatalf("page 2: %s", r.Raw)
		}
		if got := ids(k.Get("/api/jobs", w.strangerCookie)); got != other.Id {
			t.Fatalf("stranger jobs: %s", got)
		}
		expect(t, k.Get("/api/jobs", ""), 401, "No autorizado")
		for _, q := range []string{"page=0", "page=x", "perPage=0", "perPage=101", "status=HECHO"} {
			r := k.Get("/api/jobs?"+q, w.clientCookie)
			expect(t, r, 400, httpapi.MsgInvalidData)
		}
		expect(t, k.Get("/api/jobs?perPage=100", w.clientCookie), 200, "")
	})

	t.Run("admin", func(t *testing.T) {
		expect(t, k.Get("/api/admin/jobs", ""), 401, httpapi.MsgUnauthenticated)
		expect(t, k.Get("/api/admin/jobs", w.clientCookie), 403, httpapi.MsgNotAdmin)
		expect(t, k.Get("/api/admin/jobs", w.camCookie), 403, httpapi.MsgNotAdmin)
		r := k.Get("/api/admin/jobs", w.adminCookie)
		expect(t, r, 200, "")
		if r.Get("total") != 4.0 {
			t.Fatalf("admin total: %s", r.Raw)
		}
		if got := ids(k.Get("/api/admin/jobs?status=PENDIENTE", w.adminCookie)); got != other.Id+","+open.Id {
			t.Fatalf("admin PENDIENTE: %s", got)
		}
		expect(t, k.Get("/api/admin/jobs?status=nope", w.adminCookie), 400, httpapi.MsgInvalidData)
	})
}

func TestCamelloTransitions(t *testing.T) {
	w := newWorld(t)
	k := w.k
	post := func(id, action, cookie string) *testkit.Response {
		return k.Post("/api/jobs/"+id+"/"+action, cookie, nil)
	}

	t.Run("full path", func(t *testing.T) {
		r := k.Post("/api/jobs", w.clientCookie, map[string]any{
			"title": "Pintar la sala", "serviceId": k.CreateService().Id, "city": "Medellín", "camelloId": w.camello.Id,
		})
		expect(t, r, 201, "")
		id := r.Str("job.id")
		expect(t, post(id, "start", w.camCookie), 409, "Solo se inicia un trabajo asignado")
		expect(t, post(id, "complete", w.camCookie), 409, "Solo se completa un trabajo en progreso")
		expect(t, post(id, "accept", w.clientCookie), 403, jobs.MsgOnlyProvider)
		expect(t, post(id, "accept", w.otherCamCookie), 404, jobs.MsgJobNotFound)
		expect(t, post(id, "accept", ""), 401, "No autorizado")
		before := w.notifications(w.client, "JOB_STATUS")
		for _, step := range []struct{ action, status string }{
			{"accept", "ASIGNADO"}, {"start", "EN_PROGRESO"}, {"complete", "COMPLETADO"},
		} {
			r := post(id, step.action, w.camCookie)
			expect(t, r, 200, "")
			if r.Str("job.status") != step.status || r.Str("job.provider.id") != w.camello.Id {
				t.Fatalf("%s: %s", step.action, r.Raw)
			}
			// Doing it again is a conflict: no reversing, no repeating.
			expect(t, post(id, step.action, w.camCookie), 409, "")
		}
		if got := w.notifications(w.client, "JOB_STATUS"); got != before+3 {
			t.Fatalf("client notified %d times, want 3", got-before)
		}
		expect(t, post(id, "accept", w.camCookie), 409, "Solo se acepta un trabajo pendiente")
	})

	t.Run("refusals by state", func(t *testing.T) {
		cases := map[string][]string{ // state → actions refused with 409
			"PENDIENTE": {"start", "complete"}, "ASIGNADO": {"accept", "complete"},
			"EN_PROGRESO": {"accept", "start"}, "COMPLETADO": {"accept", "start", "complete"},
			"CANCELADO": {"accept", "start", "complete"},
		}
		for state, actions := range cases {
			job := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: state, Source: "PERFIL"})
			for _, a := range actions {
				expect(t, post(job.Id, a, w.camCookie), 409, "")
			}
		}
	})

	t.Run("open job is nobody's", func(t *testing.T) {
		open := w.job("PENDIENTE")
		expect(t, post(open.Id, "accept", w.camCookie), 404, jobs.MsgJobNotFound)
		expect(t, post(open.Id, "accept", w.adminCookie), 403, jobs.MsgOnlyProvider)
	})

	t.Run("suspended camello cannot accept", func(t *testing.T) {
		job := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Source: "PERFIL"})
		setCamelloStatus(t, k, w.camello.Id, "SUSPENDIDO")
		defer setCamelloStatus(t, k, w.camello.Id, "ACTIVO")
		expect(t, post(job.Id, "accept", w.camCookie), 409, jobs.MsgCamelloInactive)
	})
}

// TestStateMachineHook saves job records directly, as the dashboard or the
// generic API would: every pair of states is tried.
func TestStateMachineHook(t *testing.T) {
	w := newWorld(t)
	k := w.k
	allowed := map[string]bool{
		"PENDIENTE>ASIGNADO": true, "ASIGNADO>EN_PROGRESO": true, "EN_PROGRESO>COMPLETADO": true,
		"PENDIENTE>CANCELADO": true, "ASIGNADO>CANCELADO": true, "EN_PROGRESO>CANCELADO": true,
	}
	for _, from := range jobs.Statuses {
		for _, to := range jobs.Statuses {
			if from == to {
				continue
			}
			t.Run(from+">"+to, func(t *testing.T) {
				job := w.job(from)
				job.Set("status", to)
				if to == "ASIGNADO" && job.GetString("provider") == "" {
					job.Set("provider", w.camello.Id)
				}
				err := k.App.Save(job)
				if allowed[from+">"+to] != (err == nil) {
					t.Fatalf("save %s → %s: err %v", from, to, err)
				}
				if err != nil && !strings.Contains(detailOf(err), "status") {
					t.Fatalf("error does not name status: %v", err)
				}
			})
		}
	}

	t.Run("new job must be PENDIENTE", func(t *testing.T) {
		col, err := k.App.FindCollectionByNameOrId("jobs")
		if err != nil {
			t.Fatal(err)
		}
		svc := k.CreateService()
		for _, st := range []string{"ASIGNADO", "EN_PROGRESO", "COMPLETADO", "CANCELADO"} {
			rec := core.NewRecord(col)
			for f, v := range map[string]any{"title": "Nuevo", "status": st, "source": "ADMIN", "city": "Cali",
				"service": svc.Id, "client": w.client.Id, "provider": w.camello.Id} {
				rec.Set(f, v)
			}
			if err := k.App.Save(rec); err == nil || !strings.Contains(detailOf(err), "status") {
				t.Fatalf("new job saved as %s: %v", st, err)
			}
		}
	})

	t.Run("provider rules", func(t *testing.T) {
		_, other, _ := k.CreateCamello()
		_, suspended, _ := k.CreateCamello(testkit.CamelloOpts{Status: "SUSPENDIDO"})
		assigned := w.job("ASIGNADO")
		assigned.Set("provider", other.Id)
		if err := k.App.Save(assigned); err == nil {
			t.Fatal("provider changed on an assigned job")
		}
		assigned = reload(t, k, assigned)
		assigned.Set("provider", "")
		if err := k.App.Save(assigned); err == nil {
			t.Fatal("provider removed from an assigned job")
		}
		open := w.job("PENDIENTE")
		open.Set("status", "ASIGNADO")
		if err := k.App.Save(open); err == nil {
			t.Fatal("ASIGNADO without provider")
		}
		open = reload(t, k, open)
		open.Set("provider", suspended.Id)
		if err := k.App.Save(open); err == nil {
			t.Fatal("suspended camello set as provider")
		}
		open = reload(t, k, open)
		open.Set("provider", other.Id) // assign on a free job: fine
		if err := k.App.Save(open); err != nil {
			t.Fatalf("assign on a free job: %v", err)
		}
		open.Set("provider", w.camello.Id)
		if err := k.App.Save(open); err == nil {
			t.Fatal("provider replaced on a pending job")
		}
		cancelled := w.job("CANCELADO")
		cancelled.Set("provider", other.Id)
		if err := k.App.Save(cancelled); err == nil {
			t.Fatal("provider set on a cancelled job")
		}
		job := w.job("PENDIENTE")
		job.Set("client", w.stranger.Id)
		if err := k.App.Save(job); err == nil {
			t.Fatal("client changed")
		}
	})
}

func detailOf(err error) string {
	e := httpapi.ToError(err)
	if e.Detail == nil {
		return fmt.Sprint(err)
	}
	return *e.Detail
}

func reload(t *testing.T, k *testkit.Kit, rec *core.Record) *core.Record {
	t.Helper()
	fresh, err := k.App.FindRecordById(rec.Collection(), rec.Id)
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}

func setCamelloStatus(t *testing.T, k *testkit.Kit, id, status string) {
	t.Helper()
	c, err := k.App.FindRecordById("camellos", id)
	if err != nil {
		t.Fatal(err)
	}
	c.Set("status", status)
	if err := k.App.Save(c); err != nil {
		t.Fatal(err)
	}
}
