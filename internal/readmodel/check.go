package readmodel

import (
	"context"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// The background consistency check of the projections: each with a Check
// (every projection without a maximum age has one) is compared with a
// fresh build every interval (PROJECTION_CHECK_SECONDS); a difference is
// confirmed by a second comparison (a write that committed while the
// first ran may not have been applied yet), then counted (metrics:
// camellos_projection_differences_total), logged and repaired by Drop. A
// missed change therefore lasts at most one interval.

// RunAll runs every check once and returns the differences each found
// this round (by projection name).
func RunAll(app core.App) map[string]int {
	out := map[string]int{}
	for _, e := range registryOf(app).list() {
		if e.p.Check == nil {
			continue
		}
		d, err := e.p.Check(app)
		if err == nil && d > 0 {
			d, err = e.p.Check(app)
		}
		if err != nil {
			app.Logger().Error("projection check failed", "projection", e.p.Name, "error", err.Error())
			continue
		}
		out[e.p.Name] = d
		if d > 0 {
			e.p.Drop()
			e.diffs.Add(int64(d))
			app.Logger().Warn("projection differed from a fresh build; repaired", "projection", e.p.Name, "differences", d)
		}
	}
	return out
}

// Start runs RunAll every interval until the app terminates (0: never).
func Start(app core.App, interval time.Duration) {
	if interval <= 0 {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		stop()
		return e.Next()
	})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				RunAll(app)
			}
		}
	}()
}

// MaxSample bounds how many kept values of a keyed projection one check
// compares (the most recently read).
const MaxSample = 2000
