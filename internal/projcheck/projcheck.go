// Package projcheck is the background consistency check of the in-memory
// projections that have no maximum age (the listing index, the open board,
// the per-job quote and message lists): each is compared with a fresh
// build from the database, as camellos.VerifyIndex does; a difference is
// counted (metrics: camellos_projection_differences_total), logged, and
// repaired by dropping what differed (the next request builds it again).
// A missed invalidation therefore lasts at most one interval
// (PROJECTION_CHECK_SECONDS) instead of until an unrelated write.
//
// Owners register their check in their Register (Add); Start runs all of
// them every interval, one after another, on one goroutine: the cost is
// one fresh build of each at a time, bounded by the projections' own
// bounds (and a list check looks at most MaxListJobs cached jobs a round).
package projcheck

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// MaxListJobs bounds how many cached jobs a list check compares per round.
const MaxListJobs = 2000

// Check is one projection's check: Compare compares the projection with a
// fresh build and returns how many differences it found (0 also when
// nothing is built); Repair drops the projection (the next request builds
// it again). A difference is confirmed by a second comparison before it
// counts: a write that committed while the first one ran may not have
// patched the projection yet.
type Check struct {
	Compare func(app core.App) (differences int, err error)
	Repair  func(app core.App)
}

type registry struct {
	mu     sync.Mutex
	checks map[string]Check
	diffs  map[string]*atomic.Int64
	rounds atomic.Int64
}

const storeKey = "camellos.projcheck"

func registryOf(app core.App) *registry {
	return app.Store().GetOrSet(storeKey, func() any {
		return &registry{checks: map[string]Check{}, diffs: map[string]*atomic.Int64{}}
	}).(*registry)
}

// Add registers the check of the projection name.
func Add(app core.App, name string, c Check) {
	r := registryOf(app)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks[name] = c
	if r.diffs[name] == nil {
		r.diffs[name] = &atomic.Int64{}
	}
}

// RunAll runs every registered check once, by name, and returns the
// differences each found this round; each is counted and logged.
func RunAll(app core.App) map[string]int {
	r := registryOf(app)
	r.mu.Lock()
	names := make([]string, 0, len(r.checks))
	for n := range r.checks {
		names = append(names, n)
	}
	checks := r.checks
	r.mu.Unlock()
	sort.Strings(names)
	out := map[string]int{}
	for _, n := range names {
		d, err := checks[n].Compare(app)
		if err == nil && d > 0 {
			d, err = checks[n].Compare(app)
		}
		if err != nil {
			app.Logger().Error("projection check failed", "projection", n, "error", err.Error())
			continue
		}
		out[n] = d
		if d > 0 {
			checks[n].Repair(app)
			r.mu.Lock()
			r.diffs[n].Add(int64(d))
			r.mu.Unlock()
			app.Logger().Warn("projection differed from a fresh build; repaired", "projection", n, "differences", d)
		}
	}
	r.rounds.Add(1)
	return out
}

// Differences is how many differences each projection's check found since
// the process started (metrics).
func Differences(app core.App) map[string]int64 {
	r := registryOf(app)
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int64, len(r.diffs))
	for n, d := range r.diffs {
		out[n] = d.Load()
	}
	return out
}

// Rounds is how many rounds ran (metrics, tests).
func Rounds(app core.App) int64 { return registryOf(app).rounds.Load() }

// Start runs RunAll every interval until the app terminates (0: never).
func Start(app core.App, interval time.Duration) {
	if interval <= 0 {
		return
	}
	stop := make(chan struct{})
	var once sync.Once
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		once.Do(func() { close(stop) })
		return e.Next()
	})
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				RunAll(app)
			}
		}
	}()
}
