// Package clock is the service's one clock: every time-dependent rule
// (jobs, agenda, quotes, messages, payments, reminders) reads Now, so a
// test can move time for one app with Set.
package clock

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
)

const storeKey = "camellos.clock"

// Now is the service's current time for app, in UTC: time.Now unless a
// test set another clock with Set.
func Now(app core.App) time.Time {
	if fn, ok := app.Store().Get(storeKey).(func() time.Time); ok && fn != nil {
		return fn().UTC()
	}
	return time.Now().UTC()
}

// Set replaces the clock of app (tests); nil restores time.Now.
func Set(app core.App, fn func() time.Time) {
	if fn == nil {
		app.Store().Remove(storeKey)
		return
	}
	app.Store().Set(storeKey, fn)
}
