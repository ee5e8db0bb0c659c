package outbox_test

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"camellos/internal/outbox"

	"github.com/pocketbase/dbx"
	_ "modernc.org/sqlite"
)

// Of senders racing for one due row (goroutines on their own connections,
// as two processes would be), exactly one claims it; a row already claimed
// (its nextAttemptAt moved) or no longer pending is claimed by nobody.
func TestClaimHasOneWinner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	db, err := dbx.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.NewQuery("CREATE TABLE box (id TEXT PRIMARY KEY, status TEXT, nextAttemptAt TEXT)").Execute(); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][3]string{{"due", "PENDIENTE", "2026-01-01 00:00:00.000Z"}, {"sent", "ENVIADO", "2026-01-01 00:00:00.000Z"}} {
		if _, err := db.Insert("box", dbx.Params{"id": r[0], "status": r[1], "nextAttemptAt": r[2]}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if outbox.Claim(db, "box", "due", "PENDIENTE", "2026-01-01 00:00:00.000Z") {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := wins.Load(); n != 1 {
		t.Fatalf("%d senders claimed the row, want 1", n)
	}
	if outbox.Claim(db, "box", "sent", "PENDIENTE", "2026-01-01 00:00:00.000Z") {
		t.Fatal("a row that is not pending was claimed")
	}
	var next string
	if err := db.NewQuery("SELECT nextAttemptAt FROM box WHERE id = 'due'").Row(&next); err != nil {
		t.Fatal(err)
	}
	if next <= time.Now().UTC().Format("2006-01-02 15:04:05") {
		t.Fatalf("the claim did not lease the row ahead: %s", next)
	}
}

// Retry: each failed attempt waits its turn of the backoff list; the one
// after the last gives up (just inside, just outside).
func TestRetry(t *testing.T) {
	backoff := []time.Duration{time.Second, time.Minute}
	for _, tc := range []struct {
		n      int
		wait   time.Duration
		giveUp bool
	}{
		{1, time.Second, false},
		{2, time.Minute, false},
		{3, 0, true},
		{0, 0, true},
	} {
		wait, giveUp := outbox.Retry(backoff, tc.n)
		if wait != tc.wait || giveUp != tc.giveUp {
			t.Errorf("attempt %d: %v %v, want %v %v", tc.n, wait, giveUp, tc.wait, tc.giveUp)
		}
	}
}
