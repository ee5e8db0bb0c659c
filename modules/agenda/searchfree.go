package agenda

import (
	"errors"

	"camellos/modules/jobs"
	"camellos/modules/search"

	"github.com/pocketbase/pocketbase/core"
)

// bindSearchAvailability answers the search's time filter
// (search.OnAvailability) from the agenda views, as the slots listing
// counts the free slots of a window.
func bindSearchAvailability(app core.App) {
	search.OnAvailability(app).BindFunc(func(e *search.AvailabilityEvent) error {
		now := jobs.Now(e.App)
		from := e.From
		if from.Before(now) {
			from = now
		}
		if !e.To.After(from) {
			return e.Next()
		}
		vs := viewsOf(e.App)
		for _, id := range e.IDs {
			v, err := vs.get(e.App, id, now)
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
