package notifications

import (
	"fmt"
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// coalescedKinds are the kinds whose pushes are coalesced per recipient and
// job: at most one push per window, while the inbox keeps every item.
var coalescedKinds = map[string]time.Duration{
	KindMessage: 5 * time.Minute,
}

// coalescer remembers, per recipient and job, when the last push of a
// coalesced kind went out (state of one dispatcher, so of one app).
type coalescer struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// pushDue reports whether the push of j may go out now, and if so records
// it: always for kinds that are not coalesced; for coalesced ones, only when
// no push of that kind reached the same recipient about the same job within
// the window.
func (d *dispatcher) pushDue(j job) bool {
	window, ok := coalescedKinds[j.Kind]
	if !ok {
		return true
	}
	key := j.UserID + "|" + j.Kind + "|" + fmt.Sprint(j.Data["jobId"])
	now := time.Now()
	c := &d.coalesce
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]time.Time{}
	}
	if at, seen := c.last[key]; seen && now.Sub(at) < window {
		return false
	}
	for k, at := range c.last { // forget what can no longer hold a push back
		if now.Sub(at) >= window {
			delete(c.last, k)
		}
	}
	c.last[key] = now
	return true
}

// InboxJSON renders a notification record as the API's notification object
// ({id, kind, title, body, url, data, readAt, createdAt}); the live events
// stream sends it.
func InboxJSON(rec *core.Record) map[string]any { return notificationJSON(rec) }

// Collection is the name of the inbox collection (read-only to other areas).
const Collection = colNotifications
