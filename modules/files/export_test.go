package files

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
	"golang.org/x/sync/semaphore"
)

// ThumbsOf exposes the app's thumbnail budget to the tests.
func ThumbsOf(app core.App) *semaphore.Weighted { return thumbsOf(app) }

// SetThumbWait sets how long a thumbnail waits for the budget.
func SetThumbWait(d time.Duration) { thumbWait = d }
