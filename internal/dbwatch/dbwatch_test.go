package dbwatch_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"camellos/internal/dbwatch"
	"camellos/internal/readmodel"
	"camellos/internal/testkit"

	"github.com/pocketbase/pocketbase/core"
	_ "modernc.org/sqlite"
)

// other opens data.db as another process would: its own connection,
// outside the app's accounted pool.
func other(t *testing.T, k *testkit.Kit) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(k.App.DataDir(), "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	res, err := db.Exec(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s: %d rows", q, n)
	}
}

// counted puts the change counters on table (as readmodel does on the
// tables of its projections) and lets the watcher see the new schema.
func counted(t *testing.T, k *testkit.Kit, table string) {
	t.Helper()
	if err := readmodel.Install(k.App, []string{table}); err != nil {
		t.Fatal(err)
	}
	if err := dbwatch.Of(k.App).Check(); err != nil {
		t.Fatal(err)
	}
}

// ownWrites is how many writes of counted tables this process made.
func ownWrites(t *testing.T, k *testkit.Kit) int {
	t.Helper()
	var n int
	if err := k.App.DB().NewQuery("SELECT COALESCE(SUM(n), 0) FROM change_own").Row(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func listed(k *testkit.Kit, id string) bool {
	r := k.Get("/api/camellos?perPage=100", "")
	return strings.Contains(string(r.Raw), `"`+id+`"`)
}

// Every in-memory cache answers after a commit made by another connection
// on the very next request: the listing index, a session, the public
// categories, the agenda (slots) view.
func TestCommitsByAnotherProcessShowOnTheNextRequest(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	db := other(t, k)
	w := dbwatch.Of(k.App)
	if w == nil {
		t.Fatal("the test kit's app has no watcher")
	}

	// Listing: a PENDIENTE camello approved by raw SQL.
	_, pending, _ := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"})
	_, active, _ := k.CreateCamello()
	if listed(k, pending.Id) || !listed(k, active.Id) { // the index is built and cached now
		t.Fatal("initial listing is wrong")
	}
	exec(t, db, "UPDATE camellos SET status = 'ACTIVO' WHERE id = ?", pending.Id)
	if !listed(k, pending.Id) {
		t.Fatal("a camello approved by another connection is not listed on the next request")
	}
	exec(t, db, "UPDATE camellos SET status = 'SUSPENDIDO' WHERE id = ?", active.Id)
	if listed(k, active.Id) {
		t.Fatal("a camello suspended by another connection is still listed")
	}

	// Session: cached by a first request, revoked by raw SQL.
	_, cookie := k.UserWithSession("CLIENTE")
	if r := k.Get("/api/me", cookie); r.Status != 200 {
		t.Fatalf("me: %d", r.Status)
	}
	exec(t, db, "DELETE FROM sessions WHERE tokenHash IN (SELECT tokenHash FROM sessions ORDER BY created DESC LIMIT 1)")
	if r := k.Get("/api/me", cookie); r.Status != 401 {
		t.Fatalf("a session revoked by another connection still answers %d", r.Status)
	}
	// A user disabled by raw SQL.
	u2, cookie2 := k.UserWithSession("CLIENTE")
	if r := k.Get("/api/me", cookie2); r.Status != 200 {
		t.Fatalf("me: %d", r.Status)
	}
	exec(t, db, "UPDATE users SET disabled = 1 WHERE id = ?", u2.Id)
	if r := k.Get("/api/me", cookie2); r.Status != 401 {
		t.Fatalf("a user disabled by another connection still answers %d", r.Status)
	}

	// Public categories: renamed by raw SQL.
	cat := k.CreateRecord("categories", map[string]any{"name": "Plomería vieja", "sortOrder": 1})
	if r := k.Get("/api/categories", ""); !strings.Contains(string(r.Raw), "Plomería vieja") {
		t.Fatalf("categories: %s", r.Raw)
	}
	exec(t, db, "UPDATE categories SET name = 'Plomería nueva' WHERE id = ?", cat.Id)
	if r := k.Get("/api/categories", ""); !strings.Contains(string(r.Raw), "Plomería nueva") {
		t.Fatalf("a category renamed by another connection is not shown: %s", r.Raw)
	}

	// Agenda view: the slots of a camello suspended by raw SQL.
	_, c3, c3cookie := k.CreateCamello()
	week := []any{}
	for d := 0; d < 7; d++ {
		week = append(week, map[string]any{"weekday": d, "start": "00:00", "end": "23:00"})
	}
	if r := k.Put("/api/agenda/availability", c3cookie, map[string]any{"weekly": week}); r.Status != 200 {
		t.Fatalf("availability: %d %s", r.Status, r.Raw)
	}
	_, viewer := k.UserWithSession("CLIENTE")
	slots := fmt.Sprintf("/api/camellos/%s/slots", c3.Id)
	if r := k.Get(slots, viewer); r.Status != 200 {
		t.Fatalf("slots: %d %s", r.Status, r.Raw)
	}
	exec(t, db, "UPDATE camellos SET status = 'SUSPENDIDO' WHERE id = ?", c3.Id)
	if r := k.Get(slots, viewer); r.Status != 404 {
		t.Fatalf("slots of a camello suspended by another connection: %d", r.Status)
	}
	if w.External() == 0 {
		t.Fatal("no external commit counted")
	}
}

// Our own commits (through the app's pool, concurrent with reads) are
// never taken for foreign ones: they do not drop every cache.
func TestOwnCommitsAreNotExternal(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	w := dbwatch.Of(k.App)
	k.Get("/api/camellos", "") // first check: baseline
	before, own := w.External(), ownWrites(t, k)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func() { // writers: registrations (one transaction each) and raw deletes
			defer wg.Done()
			for i := 0; i < 10; i++ {
				body := map[string]any{
					"email": fmt.Sprintf("own%s@example.com", testkit.Unique()), "password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true, "name": "Propia Persona",
				}
				r := k.Post("/api/auth/register", "", body)
				// A busy machine may keep the hashing pool full past its
				// wait: 503 with Retry-After, which a client sends again.
				for tries := 0; r.Status == 503 && tries < 20; tries++ {
					r = k.Post("/api/auth/register", "", body)
				}
				if r.Status != 201 {
					t.Errorf("register: %d %s", r.Status, r.Raw)
					return
				}
				if r := k.Post("/api/auth/logout", "", nil); r.Status >= 500 {
					t.Errorf("logout: %d", r.Status)
				}
			}
		}()
		go func() { // readers
			defer wg.Done()
			for i := 0; i < 40; i++ {
				if r := k.Get("/api/camellos", ""); r.Status != 200 {
					t.Errorf("list: %d", r.Status)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := ownWrites(t, k) - own; got < 40 {
		t.Fatalf("own writes counted: %d", got)
	}
	if got := w.External() - before; got != 0 {
		t.Fatalf("%d own commits were taken for external ones", got)
	}
	// And a raw write through the app's own pool is own too.
	if _, err := k.App.DB().NewQuery("UPDATE users SET name = 'Otro Nombre' WHERE id IN (SELECT id FROM users LIMIT 1)").Execute(); err != nil {
		t.Fatal(err)
	}
	k.Get("/api/camellos", "")
	if got := w.External() - before; got != 0 {
		t.Fatalf("a raw own write was taken for an external one (%d)", got)
	}
	// So is a write run as a query (UPDATE … RETURNING, as the
	// appointments' claims and cancellations are), read to the end or not.
	for i, q := range []string{
		"UPDATE users SET name = 'Con Returning' WHERE id IN (SELECT id FROM users LIMIT 2) RETURNING id",
		"  update users SET name = 'Minúsculas' WHERE id IN (SELECT id FROM users LIMIT 2) returning id, name",
	} {
		var ids []string
		if err := k.App.DB().NewQuery(q).Column(&ids); err != nil || len(ids) == 0 {
			t.Fatalf("%s: %v %v", q, ids, err)
		}
		own := ownWrites(t, k)
		rows, err := k.App.DB().NewQuery(q).Rows()
		if err != nil {
			t.Fatal(err)
		}
		rows.Next() // one row of two, then closed
		rows.Close()
		if ownWrites(t, k) != own+2 {
			t.Fatalf("query %d: the write was not counted as own", i)
		}
		k.Get("/api/camellos", "")
		if got := w.External() - before; got != 0 {
			t.Fatalf("query %d: an own UPDATE … RETURNING was taken for an external one (%d)", i, got)
		}
	}
}

// With nothing committed since the last probe, Check runs no SQL (the
// wal-index header in data.db-shm has not moved); every commit, own or
// foreign, sends the next Check to the probe, and a foreign one is noticed
// there, each time, however the commits alternate.
func TestCheckSkipsTheProbeOnlyWhileNothingIsCommitted(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	w := dbwatch.Of(k.App)
	db := other(t, k)
	if _, err := db.Exec("CREATE TABLE scratch (n TEXT)"); err != nil {
		t.Fatal(err)
	}
	counted(t, k, "scratch")
	for i := 0; i < 3; i++ {
		_ = w.Check()
	}
	p := w.Probes()
	for i := 0; i < 500; i++ {
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.Probes() - p; got != 0 {
		t.Fatalf("idle checks ran the probe %d times", got)
	}
	ext := w.External()
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("Nombre %d", i)
		if i%2 == 0 { // foreign: another connection
			exec(t, db, "INSERT INTO scratch (n) VALUES (?)", name)
		} else if _, err := k.App.DB().NewQuery("INSERT INTO scratch (n) VALUES ({:n})").Bind(map[string]any{"n": name}).Execute(); err != nil {
			t.Fatal(err)
		}
		p := w.Probes()
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		// A foreign commit is noticed. (An own commit right after a foreign
		// one may be counted too: its connection saw the foreign commit
		// and cannot tell it was already noticed, so it errs towards
		// dropping the caches.)
		if i%2 == 0 && w.External() == ext {
			t.Fatalf("foreign commit %d was not noticed", i)
		}
		ext = w.External()
		if i%2 == 0 && w.Probes() == p {
			t.Fatalf("commit %d: a foreign commit did not send Check to the probe", i)
		}
		p = w.Probes()
		for j := 0; j < 5; j++ {
			_ = w.Check()
		}
		if got := w.Probes() - p; got != 0 {
			t.Fatalf("commit %d: idle checks after it ran the probe %d times", i, got)
		}
	}
}

// An app without a watcher (PocketBase's own connections) checks nothing.
func TestNoWatcher(t *testing.T) {
	if dbwatch.Of(core.NewBaseApp(core.BaseAppConfig{DataDir: t.TempDir()})) != nil {
		t.Fatal("unexpected watcher")
	}
}

// A write transaction larger than the page cache, right after a full
// checkpoint, is not taken for another process's commit: not by a check
// made while it is open, nor by its own commit. (With cache spill on, its
// first pages went to the WAL before the commit and restarted it, which
// every other connection sees as a change.)
func TestBigOwnTransactionIsNotExternal(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	w := dbwatch.Of(k.App)
	if _, err := k.App.DB().NewQuery("CREATE TABLE scratch (n TEXT)").Execute(); err != nil {
		t.Fatal(err)
	}
	counted(t, k, "scratch")
	for round := 0; round < 3; round++ {
		// a commit, then a checkpoint that copies the whole WAL back but
		// leaves it in place: the next write restarts it
		if _, err := k.App.DB().NewQuery("INSERT INTO scratch (n) VALUES ('x')").Execute(); err != nil {
			t.Fatal(err)
		}
		if _, err := k.App.DB().NewQuery("PRAGMA wal_checkpoint(PASSIVE)").Execute(); err != nil {
			t.Fatal(err)
		}
		_ = w.Check()
		before := w.External()
		pad := strings.Repeat("x", 1000)
		err := k.App.RunInTransaction(func(tx core.App) error {
			for i := 0; i < 20000; i++ { // ~20 MB, more than the 8 MB page cache
				if _, err := tx.DB().NewQuery("INSERT INTO scratch (n) VALUES ({:n})").Bind(map[string]any{"n": fmt.Sprint(i, pad)}).Execute(); err != nil {
					return err
				}
				if i%5000 == 4999 {
					if err := w.Check(); err != nil { // a request meanwhile
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Check()
		if got := w.External() - before; got != 0 {
			t.Fatalf("round %d: a big own transaction was taken for %d external commits", round, got)
		}
	}
}

// With many requests checking at once (they share readings of the probe)
// and own commits going on, a commit by another connection is noticed by
// every Check that starts after it, and own commits never are.
func TestConcurrentChecksNoticeEveryForeignCommit(t *testing.T) {
	k := testkit.New(t)
	db := other(t, k)
	w := dbwatch.Of(k.App)
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := k.App.DB().NewQuery("CREATE TABLE probe_test (n INTEGER)").Execute(); err != nil {
		t.Fatal(err)
	}
	counted(t, k, "probe_test")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = w.Check()
			}
		}()
	}
	wg.Add(1)
	go func() { // own commits meanwhile
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := k.App.DB().NewQuery("INSERT INTO probe_test (n) VALUES (1)").Execute(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 30; i++ {
		before := w.External()
		if _, err := db.Exec("INSERT INTO probe_test (n) VALUES (2)"); err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		if w.External() == before {
			close(stop)
			wg.Wait()
			t.Fatalf("foreign commit %d not noticed by the next Check", i)
		}
	}
	close(stop)
	wg.Wait()
	// Quiet again: own commits alone are not foreign. (The first own commit
	// after a foreign one may be counted: its connection saw the foreign
	// commit and cannot tell it was already noticed, so it errs towards
	// dropping the caches; one is made first.)
	if _, err := k.App.DB().NewQuery("INSERT INTO probe_test (n) VALUES (3)").Execute(); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	before := w.External()
	for i := 0; i < 20; i++ {
		if _, err := k.App.DB().NewQuery("INSERT INTO probe_test (n) VALUES (3)").Execute(); err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.External() - before; got != 0 {
		t.Fatalf("%d own commits taken for foreign ones", got)
	}
}

// A foreign commit landing before a new connection of the app makes its
// first write is noticed by the next Check (issue 22, leak 3: with
// per-connection baselines, a commit between a new connection's first
// reading and its check was never fired; the counters have no baseline per
// connection).
func TestForeignCommitWhileConnecting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.db")
	dsn := path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
	w := dbwatch.New()
	t.Cleanup(func() { w.Close() })
	first, err := w.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close() })
	for _, q := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)",
		"CREATE TABLE change_counters (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0)",
		"CREATE TABLE change_own (proc TEXT, tbl TEXT, n INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (proc, tbl))",
		"INSERT INTO change_counters (tbl) VALUES ('t')",
		"CREATE TRIGGER change_counter_t_INSERT AFTER INSERT ON t FOR EACH ROW BEGIN UPDATE change_counters SET n = n + 1 WHERE tbl = 't'; END",
		"CREATE TRIGGER change_counter_t_UPDATE AFTER UPDATE ON t FOR EACH ROW BEGIN UPDATE change_counters SET n = n + 1 WHERE tbl = 't'; END",
		"CREATE TRIGGER change_counter_t_DELETE AFTER DELETE ON t FOR EACH ROW BEGIN UPDATE change_counters SET n = n + 1 WHERE tbl = 't'; END",
	} {
		if _, err := first.NewQuery(q).Execute(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	foreign, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	foreign.SetMaxOpenConns(1)
	t.Cleanup(func() { foreign.Close() })
	for round := 0; round < 3; round++ {
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		// own writes alone are not foreign
		before := w.External()
		if _, err := first.NewQuery("INSERT INTO t (v) VALUES ('own')").Execute(); err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		if w.External() != before {
			t.Fatalf("round %d: an own write was taken for a foreign one", round)
		}
		if _, err := foreign.Exec("INSERT INTO t (v) VALUES ('foreign')"); err != nil {
			t.Fatal(err)
		}
		// a new pool: its first statement opens a new connection (as the
		// app's pool does after its idle connections expired)
		pool, err := w.Open(dsn)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pool.NewQuery("INSERT INTO t (v) VALUES ('own')").Execute()
		pool.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Check(); err != nil {
			t.Fatal(err)
		}
		if w.External() == before {
			t.Fatalf("round %d: the foreign commit made before a new connection's write was never noticed", round)
		}
	}
}

// A watcher that closes (the process ends) deletes its rows of change_own:
// no other process reads them, and a row set per start would pile up.
func TestCloseDeletesTheOwnCounts(t *testing.T) {
	k := testkit.New(t)
	w := dbwatch.Of(k.App)
	if _, err := k.App.DB().NewQuery("UPDATE users SET name = 'Propia' WHERE id IN (SELECT id FROM users LIMIT 1)").Execute(); err != nil {
		t.Fatal(err)
	}
	k.CreateService() // a counted write (categories, services) whatever the users table holds
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	count := func() (n int) {
		if err := other(t, k).QueryRow("SELECT COUNT(*) FROM change_own").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if count() == 0 {
		t.Fatal("no own counts: this test shows nothing")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows of change_own left after Close", n)
	}
}
