package ratelimit

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"camellos/internal/config"
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Counting says which requests a quota counts.
type Counting int

const (
	// CountAll counts every request that reaches the quota.
	CountAll Counting = iota
	// CountSuccess counts only requests answered below 400: a request the
	// route refused (bad input, conflict) uses up nothing.
	CountSuccess
	// CountFailure counts only requests answered 400 or above (wrong
	// bearers, wrong passwords): the right caller is never slowed down.
	CountFailure
)

// By says whose quota a request uses.
type By int

const (
	// ByCaller is the signed-in user, or the client IP when there is none.
	ByCaller By = iota
	// ByIP is the client IP (PocketBase's RealIP, which honours its
	// trusted-proxy setting), signed in or not.
	ByIP
	// ByCallerTarget is the caller toward one target (a camello, a job):
	// the handler names the target (Take).
	ByCallerTarget
)

// Quota is one row of the quota table: at most Max requests per Per for
// one key, or, when Held, at most Max requests open at once (live streams;
// Per is then the Retry-After hint).
type Quota struct {
	Name   string   // stable name, the key of Guard and Take
	Routes []string // the routes it guards (documentation; the table test walks them)
	By     By
	Count  Counting
	Max    int // 0: AUTH_IP_LIMIT of the configuration
	Per    time.Duration
	Held   bool
	Tarpit bool   // a refusal is held back TarpitDelay (floods of cheap refusals)
	Msg    string // the Spanish message of the 429
}

// Spanish messages of the quotas.
const (
	MsgAuthIP    = "Demasiados intentos desde tu conexión, inténtalo más tarde"
	MsgDirected  = "Demasiadas solicitudes seguidas, inténtalo más tarde"
	MsgMessages  = "Enviaste demasiados mensajes seguidos, espera un momento"
	MsgJobs      = "Publicaste demasiados trabajos seguidos, inténtalo más tarde"
	MsgQuotes    = "Enviaste demasiadas cotizaciones seguidas, inténtalo más tarde"
	MsgReviews   = "Demasiadas calificaciones seguidas, inténtalo más tarde"
	MsgBookings  = "Demasiadas citas seguidas, inténtalo más tarde"
	MsgMoves     = "Demasiados cambios de cita seguidos, inténtalo más tarde"
	MsgPush      = "Demasiadas suscripciones seguidas, inténtalo más tarde"
	MsgStreams   = "Tienes demasiadas conexiones en vivo abiertas; cierra alguna pestaña"
	MsgCron      = "Demasiados intentos fallidos, inténtalo más tarde"
	MsgBlocks    = "Demasiados bloqueos seguidos, inténtalo más tarde"
	MsgTooMany   = "Demasiadas solicitudes seguidas, inténtalo más tarde"
	MsgPayments  = "Demasiados intentos de pago seguidos, inténtalo más tarde"
	MsgWebhook   = "Demasiadas notificaciones rechazadas, inténtalo más tarde"
	MsgWACodes   = "Pediste demasiados códigos de WhatsApp seguidos, inténtalo más tarde"
	MsgWAConfirm = "Demasiados códigos de WhatsApp equivocados, inténtalo más tarde"
	quotaStorePx = "camellos.quota."
)

// Table is every per-user (per-IP where there is no user) limit of the
// service: the one place a limit is written. A route binds Guard(name);
// a limit toward a target the route reads from its input is taken in the
// handler with Take(name, target). A new capability a user can repeat adds
// a row here (and a case to the table test, which fails on a row without
// one). The windows live in memory, per process, like every other cache
// of the app: the service runs as one process (see docs/operations.md), a
// restart forgets them. AUTH_IP_LIMIT=0 turns the whole table off (tests
// that are not about limits, load runs).
var Table = []Quota{
	{Name: "password", Routes: []string{"POST /api/auth/login", "POST /api/auth/register", "POST /api/register/camello",
		"POST /api/auth/password/reset", "PATCH /api/me (password change)", "DELETE /api/me"},
		By: ByIP, Count: CountAll, Max: 0, Per: time.Minute, Tarpit: true, Msg: MsgAuthIP},
	{Name: "cron", Routes: []string{"POST /api/cron/appointment-reminders"},
		By: ByIP, Count: CountFailure, Max: 10, Per: time.Minute, Tarpit: true, Msg: MsgCron},
	{Name: "job", Routes: []string{"POST /api/jobs"},
		By: ByCaller, Count: CountSuccess, Max: 10, Per: time.Hour, Msg: MsgJobs},
	{Name: "job.camello", Routes: []string{"POST /api/jobs (camelloId)"},
		By: ByCallerTarget, Count: CountSuccess, Max: 5, Per: time.Hour, Msg: MsgDirected},
	{Name: "quote", Routes: []string{"POST /api/jobs/{id}/quotes"},
		By: ByCaller, Count: CountSuccess, Max: 30, Per: time.Hour, Msg: MsgQuotes},
	{Name: "quote.job", Routes: []string{"POST /api/jobs/{id}/quotes (one job)"},
		By: ByCallerTarget, Count: CountSuccess, Max: 5, Per: time.Hour, Msg: MsgDirected},
	{Name: "message", Routes: []string{"POST /api/jobs/{id}/messages"},
		By: ByCaller, Count: CountSuccess, Max: 60, Per: 10 * time.Minute, Msg: MsgMessages},
	{Name: "review", Routes: []string{"POST /api/jobs/{id}/review", "POST /api/jobs/{id}/client-review"},
		By: ByCaller, Count: CountAll, Max: 10, Per: time.Hour, Msg: MsgReviews},
	{Name: "booking", Routes: []string{"POST /api/jobs/{id}/appointments", "POST /api/quotes/{id}/accept-and-book"},
		By: ByCaller, Count: CountAll, Max: 20, Per: time.Hour, Msg: MsgBookings},
	{Name: "reschedule", Routes: []string{"POST /api/appointments/{id}/reschedule"},
		By: ByCaller, Count: CountAll, Max: 10, Per: time.Hour, Msg: MsgMoves},
	{Name: "push", Routes: []string{"POST /api/notifications/push/subscribe"},
		By: ByCaller, Count: CountSuccess, Max: 10, Per: time.Hour, Msg: MsgPush},
	{Name: "push.sync", Routes: []string{"POST /api/notifications/push/sync"},
		By: ByCaller, Count: CountAll, Max: 60, Per: time.Hour, Msg: MsgTooMany},
	{Name: "block", Routes: []string{"POST /api/jobs/{id}/blocks", "DELETE /api/jobs/{id}/blocks/{userId}"},
		By: ByCaller, Count: CountAll, Max: 20, Per: time.Hour, Msg: MsgBlocks},
	{Name: "payment", Routes: []string{"POST /api/jobs/{id}/payment", "POST /api/jobs/{id}/payment/check", "POST /api/jobs/{id}/payment/cash"},
		By: ByCaller, Count: CountAll, Max: 30, Per: time.Hour, Msg: MsgPayments},
	{Name: "payment.settle", Routes: []string{"POST /api/jobs/{id}/payment/confirm", "POST /api/jobs/{id}/payment/dispute",
		"POST /api/jobs/{id}/payment/no-show", "POST /api/jobs/{id}/payment/cash/confirm"},
		By: ByCaller, Count: CountAll, Max: 20, Per: time.Hour, Msg: MsgTooMany},
	{Name: "payment.admin", Routes: []string{"POST /api/payments/{id}/release", "POST /api/admin/disputes/{id}/resolve",
		"POST /api/admin/payouts/batches", "POST /api/admin/payouts/{id}/paid", "POST /api/admin/payouts/{id}/failed"},
		By: ByCaller, Count: CountAll, Max: 120, Per: time.Hour, Msg: MsgTooMany},
	{Name: "policy", Routes: []string{"PUT /api/me/cancellation-policy"},
		By: ByCaller, Count: CountAll, Max: 20, Per: time.Hour, Msg: MsgTooMany},
	{Name: "webhook", Routes: []string{"POST /api/payments/webhook"},
		By: ByIP, Count: CountFailure, Max: 60, Per: time.Minute, Tarpit: true, Msg: MsgWebhook},
	{Name: "whatsapp.code", Routes: []string{"PUT /api/notifications/whatsapp"},
		By: ByCaller, Count: CountSuccess, Max: 5, Per: time.Hour, Msg: MsgWACodes},
	{Name: "whatsapp.confirm", Routes: []string{"POST /api/notifications/whatsapp/confirm"},
		By: ByCaller, Count: CountFailure, Max: 10, Per: time.Hour, Tarpit: true, Msg: MsgWAConfirm},
	{Name: "events", Routes: []string{"GET /api/events"},
		By: ByCaller, Held: true, Max: 10, Per: 30 * time.Second, Msg: MsgStreams},
}

// Row is the table's row called name; it panics on an unknown name (a
// programming error, caught when the routes are bound).
func Row(name string) Quota {
	for _, q := range Table {
		if q.Name == name {
			return q
		}
	}
	panic(fmt.Sprintf("ratelimit: no quota %q in the table", name))
}

// Enabled reports whether the quota table is on (AUTH_IP_LIMIT > 0).
func Enabled(app core.App) bool { return config.Of(app).AuthIPLimit > 0 }

// max is the row's limit in app (the password row reads AUTH_IP_LIMIT).
func (q Quota) max(app core.App) int {
	if q.Max == 0 {
		return config.Of(app).AuthIPLimit
	}
	return q.Max
}

// MaxOf is the limit of the row called name in app.
func MaxOf(app core.App, name string) int { return Row(name).max(app) }

// key is whose quota the request uses.
func (q Quota) key(e *core.RequestEvent, target string) string {
	caller := "ip:" + e.RealIP()
	if q.By != ByIP {
		if auth := e.Auth; auth != nil {
			caller = "user:" + auth.Id
		}
	}
	if q.By == ByCallerTarget {
		caller += "|" + target
	}
	return caller
}

// refuse answers the 429 of q with Retry-After wait.
func (q Quota) refuse(e *core.RequestEvent, wait time.Duration) error {
	return httpapi.TooMany(e, http.StatusTooManyRequests, q.Msg, wait)
}

// Take counts one request of the row called name toward target (rows By
// ByCallerTarget; "" for the others) before the work: past the limit it
// answers 429 with Retry-After. The returned settle is called with the
// request's outcome (its error, nil on success): it uncounts what the row
// does not count (CountSuccess: a failure; CountFailure: a success).
func Take(e *core.RequestEvent, name, target string) (settle func(failed bool), err error) {
	q := Row(name)
	if !Enabled(e.App) {
		return func(bool) {}, nil
	}
	if q.Held {
		panic("ratelimit: Take on held quota " + name)
	}
	w := Of(e.App, "quota."+q.Name, q.max(e.App), q.Per)
	res, wait, ok := w.Reserve(q.key(e, target))
	if !ok {
		if q.Tarpit {
			Tarpit(e)
		}
		return nil, q.refuse(e, wait)
	}
	return func(failed bool) {
		if (q.Count == CountSuccess && failed) || (q.Count == CountFailure && !failed) {
			res.Cancel()
		}
	}, nil
}

// Guard is the route middleware of the row called name: it takes the
// request's place before the handler runs (parallel requests cannot all
// pass) and settles it by the answer. Held rows keep the place until the
// handler returns (a live stream is open as long as its handler runs).
func Guard(name string) *hook.Handler[*core.RequestEvent] {
	q := Row(name)
	if q.By == ByCallerTarget {
		panic("ratelimit: Guard on a targeted quota " + name)
	}
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosQuota." + name,
		Func: func(e *core.RequestEvent) error {
			if !Enabled(e.App) {
				return e.Next()
			}
			if q.Held {
				release, err := hold(e, q)
				if err != nil {
					return err
				}
				defer release()
				return e.Next()
			}
			settle, err := Take(e, name, "")
			if err != nil {
				return err
			}
			err = e.Next()
			settle(err != nil || e.Status() >= 400)
			return err
		},
	}
}

// held counts the requests of a held quota open now, per key.
type held struct {
	mu   sync.Mutex
	open map[string]int
}

// hold takes one of q's places open at once for the request's key, or
// answers 429 with Retry-After q.Per.
func hold(e *core.RequestEvent, q Quota) (release func(), err error) {
	h := e.App.Store().GetOrSet(quotaStorePx+"held."+q.Name, func() any {
		return &held{open: map[string]int{}}
	}).(*held)
	key := q.key(e, "")
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open[key] >= q.max(e.App) {
		return nil, q.refuse(e, q.Per)
	}
	h.open[key]++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.open[key]--; h.open[key] <= 0 {
			delete(h.open, key)
		}
	}, nil
}
