package writer

import (
	"database/sql"
	"path/filepath"
	"testing"

	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
	_ "modernc.org/sqlite"
)

// foreign opens data.db as another process does: its own connection.
func foreign(t *testing.T, app core.App) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(app.DataDir(), "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// A transaction whose read snapshot went stale (another process committed
// between its first read and its first write: SQLite's busy snapshot, 517,
// which its busy timeout does not wait out) is run again on a fresh
// snapshot, and its write lands once (issue 22, leak 4).
func TestStaleSnapshotIsRetried(t *testing.T) {
	app := newApp(t)
	db := foreign(t, app)
	for _, stale := range []int{1, 3} { // attempts that meet a foreign commit
		before := count(t, app)
		attempts := 0
		err := Transaction(app, func(txApp core.App) error {
			attempts++
			var n int
			if err := txApp.DB().NewQuery("SELECT COUNT(*) FROM w").Row(&n); err != nil { // the snapshot
				return err
			}
			if attempts <= stale {
				if _, err := db.Exec("INSERT INTO w (n) VALUES (-1)"); err != nil {
					t.Error(err)
				}
			}
			return insert(txApp, n)
		})
		if err != nil {
			t.Fatalf("%d stale snapshots: %v (after %d attempts)", stale, err, attempts)
		}
		if attempts != stale+1 || count(t, app) != before+stale+1 {
			t.Fatalf("%d stale snapshots: %d attempts, %d rows (want %d)", stale, attempts, count(t, app), before+stale+1)
		}
	}
}

// A transaction that keeps meeting stale snapshots stops after
// MaxAttempts and returns the busy error (the routes answer it 503).
func TestRetriesAreBounded(t *testing.T) {
	app := newApp(t)
	db := foreign(t, app)
	attempts := 0
	err := Transaction(app, func(txApp core.App) error {
		attempts++
		var n int
		if err := txApp.DB().NewQuery("SELECT COUNT(*) FROM w").Row(&n); err != nil {
			return err
		}
		if _, err := db.Exec("INSERT INTO w (n) VALUES (-1)"); err != nil {
			t.Error(err)
		}
		return insert(txApp, n)
	})
	if !records.IsBusy(err) || attempts != MaxAttempts {
		t.Fatalf("err %v after %d attempts (want busy after %d)", err, attempts, MaxAttempts)
	}
	// a refusal for another reason is not retried
	attempts = 0
	_ = Transaction(app, func(txApp core.App) error {
		attempts++
		return sql.ErrNoRows
	})
	if attempts != 1 {
		t.Fatalf("a non-busy error ran %d times", attempts)
	}
}
