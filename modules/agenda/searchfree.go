package agenda

import (
	"errors"
	"time"

	"camellos/internal/clock"
	"camellos/modules/search"

	"github.com/pocketbase/pocketbase/core"
)

// bindSearchAvailability answers the search's time filter
// (search.OnAvailability) from the agenda views, as the slots listing
// counts the free slots of a window.
func bindSearchAvailability(app core.App) {
	search.OnAvailability(app).BindFunc(func(e *search.AvailabilityEvent) error {
		now := clock.Now(e.App)
		from := e.From
		if from.Before(now) {
			from = now
		}
		if !e.To.After(from) {
			return e.Next()
		}
		for _, id := range e.IDs {
			v, err := viewOf(e.App, id, now)
			if errors.Is(err, errNoCamello) {
				continue
			}
			if err != nil {
				return err
			}
			if !v.active {
				continue
			}
			slots := freeSlots(SlotQuery{Location: v.loc, Weekly: v.ranges, Blocked: v.blocked,
				SkipHolidays: v.closed, Rules: v.rules, From: from, To: e.To, Now: now}, v.busy)
			if len(slots) > 0 {
				e.Free[id] = len(slots)
			}
		}
		return e.Next()
	})
}

// NextFree is the start of the camello's first free slot within
// [now, now+within) as the slots listing shows them; ok is false when it
// has none (or is not ACTIVO).
func NextFree(app core.App, camelloID string, now time.Time, within time.Duration) (start time.Time, ok bool, err error) {
	v, err := viewOf(app, camelloID, now)
	if errors.Is(err, errNoCamello) {
		return time.Time{}, false, nil
	}
	if err != nil || !v.active {
		return time.Time{}, false, err
	}
	slots := freeSlots(SlotQuery{Location: v.loc, Weekly: v.ranges, Blocked: v.blocked,
		SkipHolidays: v.closed, Rules: v.rules, From: now, To: now.Add(within), Now: now}, v.busy)
	if len(slots) == 0 {
		return time.Time{}, false, nil
	}
	return slots[0].Start, true, nil
}
