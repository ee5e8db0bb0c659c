package httpapi

import (
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Password hashing (bcrypt) is the one CPU-heavy thing a request can ask
// for. It runs on a bounded pool per app: at most HashWorkers() at once,
// and a request waits at most HashWait for a slot; past that it is
// answered 503 "Servicio ocupado" with Retry-After, so a flood of sign-ins
// or sign-ups never takes the CPU from the rest of the service.
const HashWait = 5 * time.Second

// HashWorkers is the size of the hashing pool: half the CPUs, at least 1,
// so at least one core is always left to the rest of the service (on 2
// cores a pool of 2 let a flood push health p99 to 157 ms; see BENCHMARKS.md).
func HashWorkers() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// MsgBusy answers a request refused because the hashing pool stayed full.
const MsgBusy = "Servicio ocupado, inténtalo de nuevo en unos segundos"

const hashPoolKey = "camellos.hashPool"

func hashPool(app core.App) chan struct{} {
	return app.Store().GetOrSet(hashPoolKey, func() any {
		return make(chan struct{}, HashWorkers())
	}).(chan struct{})
}

// HashInFlight is how many password hashes of app run right now (at most
// HashWorkers()); metrics and tests read it.
func HashInFlight(app core.App) int { return len(hashPool(app)) }

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

// BodyLimit is the route-group middleware that bounds request bodies to
// limit bytes: a declared larger Content-Length is 413 at once, and a body
// without one (chunked) is cut at the limit with an *http.MaxBytesError,
// which ReadJSON and ToError answer 413 too.
func BodyLimit(limit int64) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosBodyLimit",
		Priority: apis.DefaultBodyLimitMiddlewarePriority,
		Func: func(e *core.RequestEvent) error {
			if e.Request.ContentLength > limit {
				return &Error{Status: http.StatusRequestEntityTooLarge, Message: MsgTooLarge}
			}
			e.Request.Body = http.MaxBytesReader(e.Response, e.Request.Body, limit)
			return e.Next()
		},
	}
}

// NoStore is the route-group middleware that marks every answer of the
// group "Cache-Control: no-store" (a handler may set its own): our answers
// carry sessions and personal data that no shared or browser cache may keep.
func NoStore() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosNoStore",
		Func: func(e *core.RequestEvent) error {
			e.Response.Header()["Cache-Control"] = hdrNoStore
			return e.Next()
		},
	}
}
