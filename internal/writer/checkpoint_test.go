package writer

import (
	"testing"

	"github.com/pocketbase/pocketbase/core"
)

// autocheckpoint is wal_autocheckpoint on the writer's connection.
func autocheckpoint(t *testing.T, app core.App) int {
	t.Helper()
	var n int
	if err := Transaction(app, func(txApp core.App) error {
		return txApp.DB().NewQuery("PRAGMA wal_autocheckpoint").Row(&n)
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// While a bulk write holds the checkpoints, the writer's commits leave them
// to the bulk write's goroutine; the connection's own autocheckpoint comes
// back only when the last of overlapping bulk writes is done, and Done
// returns after the last checkpoint asked for.
func TestDeferredCheckpointsOverlap(t *testing.T) {
	app := newApp(t)
	if got := autocheckpoint(t, app); got != walAutocheckpoint {
		t.Fatalf("autocheckpoint before = %d, want SQLite's %d", got, walAutocheckpoint)
	}
	bulk := func(c *Checkpoints, n int) {
		t.Helper()
		if err := Transaction(app, func(txApp core.App) error {
			if err := c.Hold(txApp); err != nil {
				return err
			}
			for i := 0; i < n; i++ {
				if err := insert(txApp, i); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		c.Committed()
	}
	steps := []struct {
		name string
		do   func(a, b *Checkpoints)
		want int
	}{
		{"a holds", func(a, _ *Checkpoints) { bulk(a, 100) }, 0},
		{"b holds too", func(_, b *Checkpoints) { bulk(b, 100) }, 0},
		{"a done, b still open", func(a, _ *Checkpoints) {
			if err := a.Done(); err != nil {
				t.Fatal(err)
			}
		}, 0},
		{"b writes again", func(_, b *Checkpoints) { bulk(b, 100) }, 0},
		{"b done", func(_, b *Checkpoints) {
			if err := b.Done(); err != nil {
				t.Fatal(err)
			}
		}, walAutocheckpoint},
	}
	a, b := DeferCheckpoints(app), DeferCheckpoints(app)
	for _, s := range steps {
		s.do(a, b)
		if got := autocheckpoint(t, app); got != s.want {
			t.Fatalf("%s: autocheckpoint = %d, want %d", s.name, got, s.want)
		}
	}
	if n := count(t, app); n != 300 {
		t.Fatalf("rows = %d, want 300", n)
	}
	// A bulk write that opens after the last one closed holds them again.
	c := DeferCheckpoints(app)
	bulk(c, 1)
	if got := autocheckpoint(t, app); got != 0 {
		t.Fatalf("a new bulk write: autocheckpoint = %d, want 0", got)
	}
	if err := c.Done(); err != nil {
		t.Fatal(err)
	}
	if got := autocheckpoint(t, app); got != walAutocheckpoint {
		t.Fatalf("after it: autocheckpoint = %d, want %d", got, walAutocheckpoint)
	}
}
