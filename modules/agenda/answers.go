package agenda

import (
	"time"

	"camellos/internal/readmodel"

	"github.com/pocketbase/pocketbase/core"
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

type answerKey struct {
	camello  string
	from, to int64 // UnixNano of the window asked for
}

type answer struct {
	v         *view
	body      []byte
	at, until time.Time // valid for at ≤ now < until
}

// answers keeps the rendered answers (16 MB, 4,096 at most, the least
// recently read first out); not a projection of its own: an answer of a
// dropped view never matches the new one.
var answers = readmodel.Keyed[answerKey, *answer]{Name: "agenda-answers", MaxCost: 16 << 20,
	Cost: func(a *answer) int64 { return int64(max(len(a.body), 4096)) }}

// keptAnswer returns the answer of key for view v at now: the kept one
// while it is valid, else render's, kept when it can be served again.
func keptAnswer(app core.App, key answerKey, v *view, now time.Time, render func() *answer) []byte {
	kept, fresh := answers.Of(app), false
	build := func() (*answer, bool, error) { a := render(); fresh = true; return a, a.until.After(now), nil }
	x, _, _ := kept.Get(key, build)
	if !fresh && (x.v != v || now.Before(x.at) || !now.Before(x.until)) {
		kept.Drop(key)
		x, _, _ = kept.Get(key, build)
	}
	return x.body
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
