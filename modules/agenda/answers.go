package agenda

import (
	"sync"
	"time"
)

// The slots listing's answers, rendered once and served again while they
// cannot have changed. An answer for a window [from, to] depends on the
// camello's view (dropped by every write that can change it: a new view is
// a new pointer, so answers of an old one never match) and on the clock,
// in two places only: slots starting before now + the minimum notice drop
// out, and with a horizon, slots starting after now + horizon come in.
// slotsAnswer computes, with the answer, the instant it stops being valid:
// when the first slot shown falls inside the notice, or the first slot
// held back by the horizon comes within it. Between the instant it was
// computed and that one, the answer is exactly what freeSlots would give
// (a test compares both at many instants).

// answersMaxBytes bounds the rendered answers kept (all are dropped past
// it); answersMaxEntries bounds their number.
const (
	answersMaxBytes   = 16 << 20
	answersMaxEntries = 4096
)

type answerKey struct {
	camello  string
	from, to int64 // UnixNano of the window asked for
}

type answer struct {
	v         *view
	body      []byte
	at, until time.Time // valid for at ≤ now < until
}

// answers is the app's kept slots answers (on the views value).
type answers struct {
	mu    sync.Mutex
	m     map[answerKey]*answer
	bytes int
}

// get returns the kept answer of key for view v at now, or nil.
func (a *answers) get(key answerKey, v *view, now time.Time) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if x := a.m[key]; x != nil && x.v == v && !now.Before(x.at) && now.Before(x.until) {
		return x.body
	}
	return nil
}

// keep stores an answer (dropping them all when over the bounds).
func (a *answers) keep(key answerKey, x *answer) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil || len(a.m) >= answersMaxEntries || a.bytes+len(x.body) > answersMaxBytes {
		a.m, a.bytes = map[answerKey]*answer{}, 0
	}
	if old := a.m[key]; old != nil {
		a.bytes -= len(old.body)
	}
	a.m[key] = x
	a.bytes += len(x.body)
}

// farFuture is "never" for an answer's validity.
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// slotsAnswer is freeSlots(q, busy) together with the instant, after
// q.Now, at which that answer can first change with the clock alone.
func slotsAnswer(q SlotQuery, busy busyIndex) ([]Interval, time.Time) {
	horizon := q.Rules.Horizon
	notice := max(q.Rules.MinNotice, 0)
	// Every slot up to To, as if there were no horizon; the horizon then
	// keeps a prefix (the slots are sorted by start).
	all := q
	all.Rules.Horizon = 0
	full := freeSlots(all, busy)
	cut := len(full)
	if horizon > 0 {
		latest := q.Now.Add(horizon)
		for i, s := range full {
			if s.Start.After(latest) {
				cut = i
				break
			}
		}
	}
	slots := full[:cut:cut]
	until := farFuture
	if len(slots) > 0 {
		// the first slot shown stays while now + notice ≤ its start
		until = slots[0].Start.Add(-notice).Add(time.Nanosecond)
	}
	if cut < len(full) {
		// the first slot held back comes in when now + horizon ≥ its start
		if t := full[cut].Start.Add(-horizon); t.Before(until) {
			until = t
		}
	}
	if !until.After(q.Now) {
		until = q.Now // not reusable
	}
	return slots, until
}
