package quotes_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/quotes"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// sqlQuotes is the answer GET /api/jobs/{id}/quotes gave before it was
// served from memory: the quotes read from the database (only camello's
// when not ""), newest first, rendered through maps by quotes.JSON.
func sqlQuotes(t *testing.T, k *testkit.Kit, job, camello string) []byte {
	t.Helper()
	where := dbx.HashExp{"job": job}
	if camello != "" {
		where["camello"] = camello
	}
	var recs []*core.Record
	if err := k.App.RecordQuery(quotes.Collection).Where(where).OrderBy("created DESC", "id DESC").All(&recs); err != nil {
		t.Fatal(err)
	}
	list, err := quotes.JSON(k.App, recs)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(map[string]any{"quotes": list}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameAsSQL asks the route twice (the second answer from memory) and
// compares both, byte for byte, with the database's answer.
func sameAsSQL(t *testing.T, k *testkit.Kit, job, cookie, camello, when string) {
	t.Helper()
	want := sqlQuotes(t, k, job, camello)
	for i := 0; i < 2; i++ {
		r := k.Get("/api/jobs/"+job+"/quotes", cookie)
		if r.Status != 200 || !bytes.Equal(r.Raw, want) {
			t.Fatalf("%s (read %d): %d\n got %s\nwant %s", when, i+1, r.Status, r.Raw, want)
		}
	}
}

// externalExec runs SQL on data.db through a connection of its own, as
// another process (the CLI, sqlite3) would.
func externalExec(t *testing.T, k *testkit.Kit, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(k.App.DataDir(), "data.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("external %q: %v", query, err)
	}
}

// Every kind of write shows on the next read of a cached quote list, for
// the client, the admin and each quoting camello: the owner's routes, the
// expiry (computed at read, then the sweep), record saves and deletes as
// the dashboard makes them, the camello's profile and rating, the job's
// assignment, an erasure, and raw SQL from another connection.
func TestQuotesListCoherence(t *testing.T) {
	m := newMarket(t, 4)
	k := m.k
	job := m.openJob(t, "Bogotá")
	check := func(when string) {
		t.Helper()
		sameAsSQL(t, k, job, m.clientCookie, "", when+" (client)")
		sameAsSQL(t, k, job, m.adminCookie, "", when+" (admin)")
		for i, c := range m.cams {
			sameAsSQL(t, k, job, m.camCookies[i], c.Id, when+" (camello)")
		}
	}
	check("no quotes")
	q0 := m.quote(t, 0, job, 50000)
	check("first quote")
	r := k.Post("/api/jobs/"+job+"/quotes", m.camCookies[1], map[string]any{"amount": 60000, "message": `<b>"Voy" & llego</b>`, "validDays": 1})
	expect(t, r, 201, "")
	q1 := r.Str("quote.id")
	q2 := m.quote(t, 2, job, 70000)
	check("three quotes")

	// Time: camello 1's quote expires without any write (read VENCIDA), then
	// the sweep stores it.
	later := time.Now().Add(25 * time.Hour)
	clock.Set(k.App, func() time.Time { return later })
	// q1 and q2 can share a millisecond (then the list orders them by id):
	// q1 is found by its id, not by its place.
	if got := k.Get("/api/jobs/"+job+"/quotes", m.clientCookie); statusOf(got, q1) != quotes.StatusExpired {
		t.Fatalf("expired quote not VENCIDA at read: %s", got.Raw)
	}
	check("expired at read")
	if n, err := quotes.ExpireDue(k.App, later); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	check("after the sweep")
	clock.Set(k.App, nil)

	// The owner's routes.
	expect(t, k.Post("/api/quotes/"+q2+"/withdraw", m.camCookies[2], nil), 200, "")
	check("withdrawn")
	q2b := m.quote(t, 2, job, 65000)
	check("quoted again")
	expect(t, k.Post("/api/quotes/"+q2b+"/reject", m.clientCookie, nil), 200, "")
	check("rejected")

	// The camello's profile and a raw SQL write from another process.
	cam := reload(t, k, "camellos", m.cams[0].Id)
	cam.Set("name", "Nombre Nuevo")
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	check("camello renamed")
	externalExec(t, k, "UPDATE camellos SET ratingAvg = 4.5 WHERE id = ?", m.cams[0].Id)
	externalExec(t, k, "UPDATE quotes SET message = 'cambiado por otro proceso' WHERE id = ?", q0)
	if got := k.Get("/api/jobs/"+job+"/quotes", m.clientCookie); !bytes.Contains(got.Raw, []byte(`"ratingAvg":4.5`)) ||
		!bytes.Contains(got.Raw, []byte("cambiado por otro proceso")) {
		t.Fatalf("another process's commit not seen: %s", got.Raw)
	}
	check("external commit")

	// Record saves and deletes, as the dashboard makes them.
	col, err := k.App.FindCollectionByNameOrId(quotes.Collection)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecord(col, map[string]any{"job": job, "camello": m.cams[3].Id, "amount": 80000, "currency": "COP",
		"status": quotes.StatusPending, "expiresAt": time.Now().Add(48 * time.Hour)})
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	check("record created")
	rec.Set("status", quotes.StatusRejected)
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	check("record updated")
	if err := k.App.Delete(rec); err != nil {
		t.Fatal(err)
	}
	check("record deleted")

	// The accept assigns the job (the other live quotes are rejected), then
	// the job's camello works it and the client's review changes its rating.
	expect(t, k.Post("/api/quotes/"+q0+"/accept", m.clientCookie, nil), 200, "")
	sameAsSQL(t, k, job, m.clientCookie, "", "accepted")
	sameAsSQL(t, k, job, m.camCookies[0], m.cams[0].Id, "accepted (its camello)")
	expect(t, k.Post("/api/jobs/"+job+"/start", m.camCookies[0], nil), 200, "")
	expect(t, k.Post("/api/jobs/"+job+"/complete", m.camCookies[0], nil), 200, "")
	if r := k.Post("/api/jobs/"+job+"/review", m.clientCookie, map[string]any{"rating": 3}); r.Status != 201 && r.Status != 200 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}
	if got := k.Get("/api/jobs/"+job+"/quotes", m.clientCookie); !bytes.Contains(got.Raw, []byte(`"ratingAvg":3`)) {
		t.Fatalf("rating not updated: %s", got.Raw)
	}
	sameAsSQL(t, k, job, m.clientCookie, "", "reviewed")

	// An erasure: the camello's profile is renamed and its live quotes withdrawn.
	job2 := m.openJob(t, "Bogotá")
	m.quote(t, 3, job2, 90000)
	sameAsSQL(t, k, job2, m.clientCookie, "", "before the erasure")
	expect(t, k.Delete("/api/me", m.camCookies[3], map[string]any{"password": testkit.DefaultPassword}), 200, "")
	got := k.Get("/api/jobs/"+job2+"/quotes", m.clientCookie)
	if got.Str("quotes.0.status") != quotes.StatusWithdrawn || got.Str("quotes.0.camello.name") != "Usuario eliminado" {
		t.Fatalf("erasure not seen: %s", got.Raw)
	}
	sameAsSQL(t, k, job2, m.clientCookie, "", "erased")
}

// Who may read a job's quotes, and what each sees, is what the database
// answer was; the job's state and assignment change it on the next read.
func TestQuotesListAccessEveryRole(t *testing.T) {
	m := newMarket(t, 3)
	k := m.k
	_, _, outsiderCk := k.CreateCamello(testkit.CamelloOpts{Services: []string{k.CreateService().Id}})
	_, _, inactiveCk := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE", Services: []string{m.service.Id}})
	job := m.openJob(t, "Bogotá")
	m.quote(t, 0, job, 50000)
	m.quote(t, 1, job, 60000)
	path := "/api/jobs/" + job + "/quotes"

	expect(t, k.Get(path, ""), 401, "No autorizado")
	expect(t, k.Get("/api/jobs/a.b/quotes", m.clientCookie), 400, "")
	expect(t, k.Get("/api/jobs/nosuchjob123456/quotes", m.clientCookie), 404, jobs.MsgJobNotFound)
	expect(t, k.Get(path, m.strangerCk), 403, "No autorizado")
	expect(t, k.Get(path, outsiderCk), 403, "No autorizado")
	expect(t, k.Get(path, inactiveCk), 403, "No autorizado")
	sameAsSQL(t, k, job, m.clientCookie, "", "client")
	sameAsSQL(t, k, job, m.adminCookie, "", "admin")
	sameAsSQL(t, k, job, m.camCookies[0], m.cams[0].Id, "quoting camello")
	sameAsSQL(t, k, job, m.camCookies[2], m.cams[2].Id, "camello that may quote")
	if r := k.Get(path, m.camCookies[2]); string(r.Raw) != "{\"quotes\":[]}\n" {
		t.Fatalf("a camello sees another's quotes: %s", r.Raw)
	}

	// An admin assignment to camello 1 (a raw conditional UPDATE of the job):
	// camello 2 may no longer quote, camello 0 still sees its own quote,
	// camello 1 is the provider.
	expect(t, k.Post("/api/admin/jobs/"+job+"/assign", m.adminCookie, map[string]any{"camelloId": m.cams[1].Id}), 200, "")
	expect(t, k.Get(path, m.camCookies[2]), 403, "No autorizado")
	sameAsSQL(t, k, job, m.camCookies[0], m.cams[0].Id, "assigned: a rejected camello")
	sameAsSQL(t, k, job, m.camCookies[1], m.cams[1].Id, "assigned: the provider")
	sameAsSQL(t, k, job, m.clientCookie, "", "assigned: client")

	// A cancelled open job: who only could quote loses it.
	job2 := m.openJob(t, "Bogotá")
	sameAsSQL(t, k, job2, m.camCookies[2], m.cams[2].Id, "open job, may quote")
	expect(t, k.Post("/api/jobs/"+job2+"/cancel", m.clientCookie, nil), 200, "")
	expect(t, k.Get("/api/jobs/"+job2+"/quotes", m.camCookies[2]), 403, "No autorizado")

	// The caller's camello profile: its services, its status, its user.
	job4 := m.openJob(t, "Bogotá")
	path4 := "/api/jobs/" + job4 + "/quotes"
	sameAsSQL(t, k, job4, m.camCookies[2], m.cams[2].Id, "may quote")
	cam := reload(t, k, "camellos", m.cams[2].Id)
	cam.Set("services", []string{k.CreateService().Id})
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Get(path4, m.camCookies[2]), 403, "No autorizado")
	cam.Set("services", []string{m.service.Id})
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	sameAsSQL(t, k, job4, m.camCookies[2], m.cams[2].Id, "offers the service again")
	newUser, newCk := k.UserWithSession("CAMELLOS")
	expect(t, k.Get(path4, newCk), 403, "No autorizado")
	cam.Set("user", newUser.Id) // the dashboard moves the profile to another user
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Get(path4, m.camCookies[2]), 403, "No autorizado")
	sameAsSQL(t, k, job4, newCk, m.cams[2].Id, "the profile's new user")
	cam.Set("status", "SUSPENDIDO")
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Get(path4, newCk), 403, "No autorizado")
	externalExec(t, k, "UPDATE camellos SET status = 'ACTIVO' WHERE id = ?", m.cams[2].Id)
	sameAsSQL(t, k, job4, newCk, m.cams[2].Id, "made ACTIVO by another process")

	// The job's client changed by another process: the old client loses it.
	job3 := m.openJob(t, "Bogotá")
	sameAsSQL(t, k, job3, m.clientCookie, "", "job 3")
	externalExec(t, k, "UPDATE jobs SET client = 'otroclienteabcd' WHERE id = ?", job3)
	expect(t, k.Get("/api/jobs/"+job3+"/quotes", m.clientCookie), 403, "No autorizado")
	externalExec(t, k, "DELETE FROM jobs WHERE id = ?", job3)
	expect(t, k.Get("/api/jobs/"+job3+"/quotes", m.adminCookie), 404, jobs.MsgJobNotFound)
}

// A camello that quoted gains the conversation (HasQuote reads the cached
// quotes): its first quote shows on the next read, a deleted one too.
func TestHasQuoteFollowsWrites(t *testing.T) {
	m := newMarket(t, 1)
	k := m.k
	job := m.openJob(t, "Bogotá")
	if quotes.HasQuote(k.App, job, m.cams[0].Id) {
		t.Fatal("quote before quoting")
	}
	q := m.quote(t, 0, job, 50000)
	if !quotes.HasQuote(k.App, job, m.cams[0].Id) {
		t.Fatal("quote not seen")
	}
	if err := k.App.Delete(reload(t, k, quotes.Collection, q)); err != nil {
		t.Fatal(err)
	}
	if quotes.HasQuote(k.App, job, m.cams[0].Id) {
		t.Fatal("deleted quote still seen")
	}
}

// Readers racing quotes and withdrawals: once the writes are answered, the
// next read is the database's answer.
func TestQuotesListUnderConcurrentWrites(t *testing.T) {
	m := newMarket(t, 4)
	k := m.k
	job := m.openJob(t, "Bogotá")
	stop, done := make(chan struct{}), make(chan struct{})
	for r := 0; r < 3; r++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got := k.Get("/api/jobs/"+job+"/quotes", m.clientCookie); got.Status != 200 {
					t.Errorf("read: %d %s", got.Status, got.Raw)
					return
				}
			}
		}()
	}
	wrote := make(chan struct{})
	for i := range m.cams {
		go func(i int) {
			defer func() { wrote <- struct{}{} }()
			r := k.Post("/api/jobs/"+job+"/quotes", m.camCookies[i], map[string]any{"amount": 50000 + i})
			if r.Status != 201 {
				t.Errorf("quote: %d %s", r.Status, r.Raw)
				return
			}
			if i%2 == 0 {
				if w := k.Post("/api/quotes/"+r.Str("quote.id")+"/withdraw", m.camCookies[i], nil); w.Status != 200 {
					t.Errorf("withdraw: %d %s", w.Status, w.Raw)
				}
			}
		}(i)
	}
	for range m.cams {
		<-wrote
	}
	close(stop)
	for r := 0; r < 3; r++ {
		<-done
	}
	sameAsSQL(t, k, job, m.clientCookie, "", "after concurrent writes")
	for i, c := range m.cams {
		sameAsSQL(t, k, job, m.camCookies[i], c.Id, "after concurrent writes (camello)")
	}
}

// statusOf is the status of quote id in a list answer ("" when absent).
func statusOf(r *testkit.Response, id string) string {
	for i := 0; i < 100 && r.Str(fmt.Sprintf("quotes.%d.id", i)) != ""; i++ {
		if r.Str(fmt.Sprintf("quotes.%d.id", i)) == id {
			return r.Str(fmt.Sprintf("quotes.%d.status", i))
		}
	}
	return ""
}
