package readmodel_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"camellos/internal/dbwatch"
	"camellos/internal/readmodel"
	"camellos/internal/testkit"

	_ "modernc.org/sqlite"
)

// foreignDB opens data.db as another process would: its own connection,
// outside the app's accounted pool.
func foreignDB(t *testing.T, k *testkit.Kit) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(k.App.DataDir(), "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func foreignExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	res, err := db.Exec(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s: %d rows", q, n)
	}
}

// dropped is which projections a step dropped for foreign commits.
func dropped(before, after map[string]int64) []string {
	var out []string
	for name, n := range after {
		if n != before[name] {
			out = append(out, name)
		}
	}
	return sortedCopy(out)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// A foreign commit on one table drops only the projections built from
// that table (the change counters' triggers say which): the others keep
// what they hold, and the dropped ones answer the new state on the very
// next request. A table no projection reads drops none (no counter); without its
// triggers the tables are unknown and every projection is dropped.
func TestForeignCommitDropsOnlyTheProjectionsOfItsTables(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	db := foreignDB(t, k)
	w := dbwatch.Of(k.App)
	svc := k.CreateService()
	_, _, camCookie := k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	client, clientCookie := k.UserWithSession("CLIENTE")
	job := k.CreateJob(testkit.JobOpts{Client: client, Service: svc, Title: "Título viejo"})
	warm := func() map[string]string {
		out := map[string]string{}
		for name, get := range map[string][2]string{
			"listing":    {"/api/camellos?perPage=100", ""},
			"categories": {"/api/categories", ""},
			"board":      {"/api/jobs/open?perPage=50", camCookie},
			"me":         {"/api/me", clientCookie},
			"quotes":     {"/api/jobs/" + job.Id + "/quotes", clientCookie},
			"messages":   {"/api/jobs/" + job.Id + "/messages", clientCookie},
		} {
			r := k.Get(get[0], get[1])
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
			}
			out[name] = string(r.Raw)
		}
		return out
	}
	warm()
	warm() // everything built, and no own commit pending

	cases := []struct {
		name  string
		sql   string
		arg   string
		drops []string
		shows [2]string // answer, text it must contain after the commit
	}{
		{"a job", "UPDATE jobs SET title = 'Título nuevo' WHERE id = ?", job.Id,
			[]string{"board", "job-parties"}, [2]string{"board", "Título nuevo"}},
		{"a category", "UPDATE categories SET name = 'Categoría nueva' WHERE id = (SELECT category FROM services WHERE id = ?)", svc.Id,
			[]string{"board", "categories", "listing", "vocabulary"}, [2]string{"categories", "Categoría nueva"}},
		{"a user", "UPDATE users SET name = 'Cliente Nuevo' WHERE id = ?", client.Id,
			[]string{"board", "listing", "message-authors", "sessions"}, [2]string{"me", "Cliente Nuevo"}},
		{"a table no projection reads", "INSERT INTO app_kv (id, key, value) VALUES (?, 'readmodel-test', '1')", "rmtestkv0000001",
			nil, [2]string{}},
	}
	for _, c := range cases {
		before := readmodel.ForeignDrops(k.App)
		ext := w.External()
		foreignExec(t, db, c.sql, c.arg)
		got := warm()
		// (a commit on a table without counters is not even an event)
		if noticed := w.External() != ext; noticed != (c.drops != nil) {
			t.Fatalf("%s: the foreign commit noticed %v, want %v", c.name, noticed, c.drops != nil)
		}
		if d := dropped(before, readmodel.ForeignDrops(k.App)); strings.Join(d, ",") != strings.Join(c.drops, ",") {
			t.Fatalf("%s: dropped %v, want %v", c.name, d, c.drops)
		}
		if c.shows[0] != "" && !strings.Contains(got[c.shows[0]], c.shows[1]) {
			t.Fatalf("%s: %s does not show %q: %s", c.name, c.shows[0], c.shows[1], got[c.shows[0]])
		}
		warm()
	}

	// Without a table's triggers (a rebuilt table) the counters cannot
	// tell: every projection is dropped.
	if _, err := db.Exec("DROP TRIGGER change_counter_quotes_UPDATE"); err != nil {
		t.Fatal(err)
	}
	before, unknown := readmodel.ForeignDrops(k.App), readmodel.UnknownCommits(k.App)
	foreignExec(t, db, "UPDATE jobs SET title = 'Otro título' WHERE id = ?", job.Id)
	warm()
	if d := dropped(before, readmodel.ForeignDrops(k.App)); len(d) != len(before) || readmodel.UnknownCommits(k.App) != unknown+1 {
		t.Fatalf("without a trigger: dropped %v of %d (unknown %d → %d)", d, len(before), unknown, readmodel.UnknownCommits(k.App))
	}
}
