package jobs_test

import (
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// Writes of the API while another process writes data.db (issue 22, leak
// 4): under its steady commits every cancellation lands (a stale snapshot
// is retried), and while it holds the write lock past SQLite's busy
// timeout the answer is 503 with Retry-After, never 500.
func TestWritesWhileAnotherProcessWrites(t *testing.T) {
	w := newWorld(t)
	k := w.k
	db, err := sql.Open("sqlite", filepath.Join(k.App.DataDir(), "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE other_process (n INTEGER)"); err != nil {
		t.Fatal(err)
	}

	t.Run("steady commits", func(t *testing.T) {
		const n = 30
		jobs := make([]string, n)
		for i := range jobs {
			jobs[i] = w.job("ASIGNADO").Id
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		commits := 0
		go func() { // another process: a small commit every millisecond or so
			defer wg.Done()
			for i := 0; i < 20000; i++ { // bounded
				time.Sleep(time.Millisecond)
				select {
				case <-stop:
					return
				default:
				}
				if _, err := db.Exec("INSERT INTO other_process (n) VALUES (?)", i); err != nil {
					t.Error(err)
					return
				}
				commits++
			}
		}()
		for _, id := range jobs {
			r := k.Post("/api/jobs/"+id+"/cancel", w.clientCookie, nil)
			if r.Status != 200 {
				close(stop)
				wg.Wait()
				t.Fatalf("cancel under another process's commits: %d %s", r.Status, r.Raw)
			}
		}
		close(stop)
		wg.Wait()
		if commits == 0 {
			t.Fatal("the other process committed nothing")
		}
		if got := k.Count("jobs", "id IN ({:a}, {:b}) AND status = 'CANCELADO'", map[string]any{"a": jobs[0], "b": jobs[n-1]}); got != 2 {
			t.Fatalf("cancellations stored: %d of 2 checked", got)
		}
		t.Logf("%d cancellations during %d foreign commits", n, commits)
	})

	t.Run("lock held past the busy timeout", func(t *testing.T) {
		job := w.job("ASIGNADO")
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("INSERT INTO other_process (n) VALUES (-1)"); err != nil { // takes the write lock
			t.Fatal(err)
		}
		r := k.Post("/api/jobs/"+job.Id+"/cancel", w.clientCookie, nil) // waits out the 10 s busy timeout
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if r.Status != 503 || r.Header.Get("Retry-After") == "" || r.Str("error") == "" {
			t.Fatalf("write under a held lock: %d %v %s", r.Status, r.Header, r.Raw)
		}
		if reload(t, k, job).GetString("status") != "ASIGNADO" {
			t.Fatal("the refused write changed the job")
		}
		expect(t, k.Post("/api/jobs/"+job.Id+"/cancel", w.clientCookie, nil), 200, "") // once released
	})
}
