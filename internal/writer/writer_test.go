package writer

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

func newApp(t *testing.T) core.App {
	t.Helper()
	app, err := tests.NewTestApp(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Cleanup)
	if _, err := app.DB().NewQuery("CREATE TABLE w (n INTEGER)").Execute(); err != nil {
		t.Fatal(err)
	}
	return app
}

func count(t *testing.T, app core.App) int {
	t.Helper()
	var n int
	if err := app.DB().NewQuery("SELECT COUNT(*) FROM w").Row(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func insert(txApp core.App, n int) error {
	_, err := txApp.DB().NewQuery("INSERT INTO w (n) VALUES ({:n})").Bind(dbx.Params{"n": n}).Execute()
	return err
}

// Writes run one at a time, in the order they were queued.
func TestTransactionsRunInArrivalOrder(t *testing.T) {
	app := newApp(t)
	q := queueOf(app)
	release, running := make(chan struct{}), make(chan struct{})
	var order []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // holds the writer until every other write is queued
		defer wg.Done()
		_ = Transaction(app, func(txApp core.App) error {
			close(running)
			<-release
			return insert(txApp, 0)
		})
	}()
	<-running
	const n = 20
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := Transaction(app, func(txApp core.App) error {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				return insert(txApp, i)
			})
			if err != nil {
				t.Error(err)
			}
		}(i)
		deadline := time.Now().Add(time.Minute) // only stops a hung test
		for len(q.work) < i && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if len(q.work) != i {
			t.Fatalf("write %d not queued", i)
		}
	}
	close(release)
	wg.Wait()
	for i, v := range order {
		if v != i+1 {
			t.Fatalf("order %v, want 1..%d", order, n)
		}
	}
	if got := count(t, app); got != n+1 {
		t.Fatalf("%d rows, want %d", got, n+1)
	}
}

// An error rolls the transaction back and reaches the caller; a panic
// reaches the caller too, and the writer goes on.
func TestErrorsAndPanicsReachTheCaller(t *testing.T) {
	app := newApp(t)
	boom := errors.New("boom")
	err := Transaction(app, func(txApp core.App) error {
		if err := insert(txApp, 1); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
	if got := count(t, app); got != 0 {
		t.Fatalf("a failed transaction left %d rows", got)
	}
	func() {
		defer func() {
			if p := recover(); p != "bad" {
				t.Fatalf("recovered %v, want the panic of fn", p)
			}
		}()
		_ = Transaction(app, func(txApp core.App) error {
			_ = insert(txApp, 2)
			panic("bad")
		})
	}()
	if got := count(t, app); got != 0 {
		t.Fatalf("a panicking transaction left %d rows", got)
	}
	if err := Transaction(app, func(txApp core.App) error { return insert(txApp, 3) }); err != nil {
		t.Fatal(err)
	}
	if got := count(t, app); got != 1 {
		t.Fatalf("%d rows after the writer went on, want 1", got)
	}
}

// Inside a transaction fn runs in it; after-commit work of a write (run
// by the writer) may start another write without waiting for itself.
func TestNestedAndAfterCommitWrites(t *testing.T) {
	app := newApp(t)
	done := make(chan error, 1)
	err := Transaction(app, func(txApp core.App) error {
		if err := Transaction(txApp, func(inner core.App) error { return insert(inner, 1) }); err != nil {
			return err
		}
		txApp.TxInfo().OnComplete(func(txErr error) error {
			done <- Transaction(app, func(txApp core.App) error { return insert(txApp, 2) })
			return nil
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute): // a deadlock never ends; a busy machine is only slow
		t.Fatal("an after-commit write deadlocked")
	}
	if got := count(t, app); got != 2 {
		t.Fatalf("%d rows, want 2", got)
	}
}

// Once the app terminates, writes run on their caller's goroutine.
func TestAfterTerminate(t *testing.T) {
	app := newApp(t)
	if err := Transaction(app, func(txApp core.App) error { return insert(txApp, 1) }); err != nil {
		t.Fatal(err)
	}
	queueOf(app).close()
	if err := Transaction(app, func(txApp core.App) error { return insert(txApp, 2) }); err != nil {
		t.Fatal(err)
	}
	if got := count(t, app); got != 2 {
		t.Fatalf("%d rows, want 2", got)
	}
}
