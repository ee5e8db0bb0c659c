package hooks

import (
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// Password hashing (bcrypt) is the one CPU-heavy thing a request can ask
// for. It runs on a bounded pool per app: at most HashWorkers() at once,
// and a request waits at most HashWait for a slot; past that it is
// answered 503 "Servicio ocupado" with Retry-After, so a flood of sign-ins
// or sign-ups never takes the CPU from the rest of the service.
const HashWait = 3 * time.Second

// HashWorkers is the size of the hashing pool: half the CPUs, at least 2.
func HashWorkers() int { return max(2, runtime.GOMAXPROCS(0)/2) }

// MsgBusy answers a request refused because the hashing pool stayed full.
const MsgBusy = "Servicio ocupado, inténtalo de nuevo en unos segundos"

const hashPoolKey = "camellos.hashPool"

func hashPool(app core.App) chan struct{} {
	return app.Store().GetOrSet(hashPoolKey, func() any {
		return make(chan struct{}, HashWorkers())
	}).(chan struct{})
}

// HashSlot takes a slot of the app's password-hashing pool, waiting at most
// HashWait (or until the client goes away). The caller runs its bcrypt
// work, then calls release. When no slot frees up in time the answer is a
// 503 with Retry-After.
func HashSlot(e *core.RequestEvent) (release func(), err error) {
	pool := hashPool(e.App)
	select {
	case pool <- struct{}{}:
		return func() { <-pool }, nil
	default:
	}
	timer := time.NewTimer(HashWait)
	defer timer.Stop()
	select {
	case pool <- struct{}{}:
		return func() { <-pool }, nil
	case <-timer.C:
	case <-e.Request.Context().Done():
	}
	return nil, TooMany(e, http.StatusServiceUnavailable, MsgBusy, time.Second)
}

// TooMany is a refusal for load or rate (429 or 503) with a Retry-After of
// wait rounded up to whole seconds (at least 1).
func TooMany(e *core.RequestEvent, status int, message string, wait time.Duration) error {
	secs := int((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	e.Response.Header().Set("Retry-After", strconv.Itoa(secs))
	return NewError(status, message)
}
