package readmodel_test

import (
	"fmt"
	"math/rand"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"camellos/internal/readmodel"
	"camellos/internal/testkit"
	"camellos/modules/users"
)

// The differential test of the read model (issue 22): a seeded, bounded
// random sequence of writes — API writes of clients and camellos, a
// superuser's writes through PocketBase's generic API (the dashboard),
// and raw SQL from a second connection on data.db (another process) —
// and after each step every cached view the service answers (listing,
// profiles, categories, slots, open board, quotes, messages, /api/me, the
// search vocabulary) is compared with the same request answered by a cold
// service booted on a copy of the database as it is then (testkit.Clone:
// VACUUM INTO, a new app, every projection empty).
//
// Bounded in `go test` (CAMELLOS_DIFF_STEPS, default 12 steps of 1–3
// writes; CAMELLOS_DIFF_SEED, default 22): run it longer with e.g.
// CAMELLOS_DIFF_STEPS=300.
func TestDifferentialCachedViewsEqualAColdService(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	steps := envInt("CAMELLOS_DIFF_STEPS", 12)
	seed := int64(envInt("CAMELLOS_DIFF_SEED", 22))
	rng := rand.New(rand.NewSource(seed))
	k := testkit.New(t)
	db := foreignDB(t, k)
	su, _ := k.Superuser()

	// The world: two services, four camellos, three clients, a few jobs.
	svcs := []string{k.CreateService().Id, k.CreateService().Id}
	type party struct{ user, id, cookie string }
	var cams, clients []party
	for i := 0; i < 4; i++ {
		u, c, ck := k.CreateCamello(testkit.CamelloOpts{Services: []string{svcs[i%2]}, Name: fmt.Sprintf("Camello %d", i)})
		cams = append(cams, party{u.Id, c.Id, ck})
	}
	for i := 0; i < 3; i++ {
		u, ck := k.UserWithSession(users.RoleClient)
		clients = append(clients, party{u.Id, u.Id, ck})
	}
	type job struct {
		id          string
		client, svc int
	}
	type quote struct {
		id       string
		job, cam int // indexes in jobs and cams
	}
	var jobs []job
	var quotes []quote
	postJob := func(c int) {
		s := rng.Intn(len(svcs))
		r := k.Post("/api/jobs", clients[c].cookie, map[string]any{"title": "Trabajo " + testkit.Unique(),
			"serviceId": svcs[s], "city": "Bogotá"})
		if id := r.Str("job.id"); id != "" {
			jobs = append(jobs, job{id, c, s})
		}
	}
	for c := range clients {
		postJob(c)
	}

	pick := func(n int) int { return rng.Intn(n) }
	raw := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("raw SQL %s: %v", q, err)
		}
	}
	generic := func(col, id string, body map[string]any) {
		k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/collections/" + col + "/records/" + id,
			Headers: map[string]string{"Authorization": su}, Body: body})
	}
	ops := []struct {
		name string
		run  func() string
	}{
		{"client posts a job", func() string { c := pick(len(clients)); postJob(c); return clients[c].id }},
		{"camello quotes", func() string {
			ji := pick(len(jobs))
			j := jobs[ji]
			c := j.svc + 2*pick(len(cams)/2) // a camello of the job's service
			r := k.Post("/api/jobs/"+j.id+"/quotes", cams[c].cookie, map[string]any{"amount": 10000 + pick(90)*1000, "message": "Puedo " + testkit.Unique()})
			if id := r.Str("quote.id"); id != "" {
				quotes = append(quotes, quote{id, ji, c})
			}
			return j.id + " " + strconv.Itoa(r.Status)
		}},
		{"client accepts a quote", func() string {
			if len(quotes) == 0 {
				return "none"
			}
			q := quotes[pick(len(quotes))]
			r := k.Post("/api/quotes/"+q.id+"/accept", clients[jobs[q.job].client].cookie, nil)
			return q.id + " " + strconv.Itoa(r.Status)
		}},
		{"client writes", func() string {
			if len(quotes) == 0 {
				return "none"
			}
			q := quotes[pick(len(quotes))]
			j := jobs[q.job]
			r := k.Post("/api/jobs/"+j.id+"/messages", clients[j.client].cookie, map[string]any{"body": "Hola " + testkit.Unique(),
				"toCamelloId": cams[q.cam].id})
			return j.id + " " + strconv.Itoa(r.Status)
		}},
		{"camello writes", func() string {
			if len(quotes) == 0 {
				return "none"
			}
			q := quotes[pick(len(quotes))]
			r := k.Post("/api/jobs/"+jobs[q.job].id+"/messages", cams[q.cam].cookie, map[string]any{"body": "Buenas " + testkit.Unique()})
			return jobs[q.job].id + " " + strconv.Itoa(r.Status)
		}},
		{"client cancels", func() string {
			j := jobs[pick(len(jobs))]
			r := k.Post("/api/jobs/"+j.id+"/cancel", clients[j.client].cookie, map[string]any{})
			return j.id + " " + strconv.Itoa(r.Status)
		}},
		{"camello edits its profile", func() string {
			c := pick(len(cams))
			r := k.Patch("/api/me/camello", cams[c].cookie, map[string]any{"description": "Perfil " + testkit.Unique()})
			return cams[c].id + " " + strconv.Itoa(r.Status)
		}},
		{"dashboard: camello", func() string {
			c := cams[pick(len(cams))]
			generic("camellos", c.id, map[string]any{"name": "Dash " + testkit.Unique(), "premium": rng.Intn(2) == 0,
				"status": []string{"ACTIVO", "SUSPENDIDO"}[pick(2)]})
			return c.id
		}},
		{"dashboard: user", func() string {
			u := append(cams, clients...)[pick(len(cams)+len(clients))]
			generic("users", u.user, map[string]any{"name": "Usuario " + testkit.Unique(), "verified": rng.Intn(2) == 0})
			return u.user
		}},
		{"dashboard: category", func() string {
			var cat string
			_ = k.App.DB().NewQuery("SELECT category FROM services WHERE id = {:s}").Bind(map[string]any{"s": svcs[pick(2)]}).Row(&cat)
			generic("categories", cat, map[string]any{"name": "Categoría " + testkit.Unique()})
			return cat
		}},
		{"raw SQL: camello", func() string {
			c := cams[pick(len(cams))]
			raw("UPDATE camellos SET name = ?, status = ? WHERE id = ?", "Crudo "+testkit.Unique(), []string{"ACTIVO", "SUSPENDIDO"}[pick(2)], c.id)
			return c.id
		}},
		{"raw SQL: job", func() string {
			j := jobs[pick(len(jobs))]
			raw("UPDATE jobs SET title = ? WHERE id = ?", "Título crudo "+testkit.Unique(), j.id)
			return j.id
		}},
		{"raw SQL: quote", func() string {
			if len(quotes) == 0 {
				return "none"
			}
			q := quotes[pick(len(quotes))]
			raw("UPDATE quotes SET message = ? WHERE id = ?", "Mensaje crudo "+testkit.Unique(), q.id)
			return q.id
		}},
		{"raw SQL: message", func() string {
			raw("UPDATE messages SET body = ? WHERE id = (SELECT id FROM messages ORDER BY random() LIMIT 1)", "Crudo "+testkit.Unique())
			return ""
		}},
		{"raw SQL: user", func() string {
			u := append(cams, clients...)[pick(len(cams)+len(clients))]
			raw("UPDATE users SET name = ?, verified = ? WHERE id = ?", "Crudo "+testkit.Unique(), pick(2), u.user)
			return u.user
		}},
		{"raw SQL: service", func() string {
			s := svcs[pick(len(svcs))]
			raw("UPDATE services SET name = ? WHERE id = ?", "Servicio crudo "+testkit.Unique(), s)
			return s
		}},
	}

	// views are the requests compared; each answered by k and the clone.
	type view struct {
		name, method, path, cookie string
		body                       any
	}
	views := func() []view {
		out := []view{
			{"listing", "GET", "/api/camellos?perPage=100", "", nil},
			{"listing by city and service", "GET", "/api/camellos?city=Bogot%C3%A1&service=" + svcs[0], "", nil},
			{"categories", "GET", "/api/categories", "", nil},
			{"vocabulary", "POST", "/api/search/interpret", "", map[string]any{"query": "plomero en bogotá mañana"}},
		}
		for i, c := range cams {
			out = append(out,
				view{"profile " + strconv.Itoa(i), "GET", "/api/camellos/" + c.id, "", nil},
				view{"slots " + strconv.Itoa(i), "GET", "/api/camellos/" + c.id + "/slots", "", nil},
				view{"board " + strconv.Itoa(i), "GET", "/api/jobs/open?perPage=50", c.cookie, nil},
				view{"me camello " + strconv.Itoa(i), "GET", "/api/me", c.cookie, nil})
		}
		for i, c := range clients {
			out = append(out, view{"me client " + strconv.Itoa(i), "GET", "/api/me", c.cookie, nil})
		}
		for _, j := range jobs {
			ck := clients[j.client].cookie
			out = append(out,
				view{"quotes " + j.id, "GET", "/api/jobs/" + j.id + "/quotes", ck, nil},
				view{"messages " + j.id, "GET", "/api/jobs/" + j.id + "/messages", ck, nil})
		}
		return out
	}
	ask := func(kit *testkit.Kit, v view) string {
		r := kit.Do(testkit.Req{Method: v.method, Path: v.path, Cookie: v.cookie, Body: v.body})
		return strconv.Itoa(r.Status) + " " + string(r.Raw)
	}

	start := time.Now()
	comparisons := 0
	var log []string
	for step := 0; step < steps; step++ {
		for n := 1 + pick(3); n > 0; n-- {
			op := ops[pick(len(ops))]
			log = append(log, fmt.Sprintf("step %d: %s %s", step, op.name, op.run()))
		}
		vs := views()
		warm := make([]string, len(vs))
		for i, v := range vs { // the cached answers, first
			warm[i] = ask(k, v)
		}
		cold := testkit.Clone(t, k)
		for i, v := range vs {
			c := ask(cold, v)
			if c != warm[i] {
				// The clock may have moved between the two (a slot, an
				// expiry): asked again, a real difference stays.
				if again, c2 := ask(k, v), ask(cold, v); again == c2 {
					continue
				} else {
					warm[i], c = again, c2
				}
				t.Fatalf("seed %d, step %d: %s (%s %s) differs from a cold service\ncached: %.600s\ncold:   %.600s\nwrites so far:\n%s",
					seed, step, v.name, v.method, v.path, warm[i], c, strings.Join(log, "\n"))
			}
			comparisons++
		}
		closeKit(cold)
	}
	if testing.Verbose() {
		t.Log("writes:\n" + strings.Join(log, "\n"))
	}
	t.Logf("seed %d: %d steps, %d writes, %d comparisons in %s; foreign drops %v", seed, steps, len(log), comparisons,
		time.Since(start).Round(time.Millisecond), readmodel.ForeignDrops(k.App))
}

// closeKit stops a clone before the test ends (its data dir goes with t).
func closeKit(k *testkit.Kit) {
	k.Server.Close()
	k.App.Cleanup()
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
