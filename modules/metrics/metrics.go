// Package metrics is the operations area's GET /metrics: Prometheus text
// format behind METRICS_TOKEN (unset, or a wrong or missing bearer → the
// same 404 as any unknown page). One registry per app, never the global
// default one: requests by route pattern (never raw paths or ids), method
// and status with latency histograms; push deliveries by outcome and the
// delivery queue; reminders sent; SQLite pool use; commits by other
// processes noticed; Go runtime and process.
package metrics

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"camellos/internal/config"
	"camellos/internal/dbwatch"
	"camellos/internal/httpapi"
	"camellos/internal/readmodel"
	"camellos/internal/writer"
	"camellos/modules/backup"
	"camellos/modules/jobs"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served.
const Path = "/metrics"

const storeKey = "camellos.metrics"

// set is the app's registry and the series the middleware updates.
type set struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	handler  http.Handler
	// the series of each (route, method, status) once resolved: the
	// middleware then hashes no label values and formats no status
	series sync.Map // seriesKey → *series
}

type seriesKey struct {
	route, method string
	status        int
}

type series struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// seriesOf returns the request counter and latency histogram of k.
func (s *set) seriesOf(k seriesKey) *series {
	if v, ok := s.series.Load(k); ok {
		return v.(*series)
	}
	v, _ := s.series.LoadOrStore(k, &series{
		count:   s.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.status)),
		latency: s.latency.WithLabelValues(k.route, k.method),
	})
	return v.(*series)
}

// Of returns app's registry (made on first use), so that other areas may
// register their own series on it.
func Of(app core.App) *prometheus.Registry { return setOf(app).reg }

func setOf(app core.App) *set {
	return app.Store().GetOrSet(storeKey, func() any { return newSet(app) }).(*set)
}

func newSet(app core.App) *set {
	reg := prometheus.NewRegistry()
	s := &set{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "camellos_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "camellos_http_request_duration_seconds",
			Help:    "Time to answer a request, by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
	}
	outcomes := notifications.PushOutcomeNames()
	pushDesc := prometheus.NewDesc("camellos_push_deliveries_total",
		"Web Push attempts by outcome (delivered, gone, retried, rejected, gave_up, postponed: held while its push service asked to wait).", []string{"outcome"}, nil)
	queueDesc := prometheus.NewDesc("camellos_push_queue_depth",
		"Deliveries pending now: queued, running or waiting to be retried.", nil, nil)
	outboxDesc := prometheus.NewDesc("camellos_push_outbox_pending",
		"Pushes waiting in the push outbox for `camellos push work` (PUSH_DELIVERY=worker; the worker's own outcomes are in its log).", nil, nil)
	backupsDesc := prometheus.NewDesc("camellos_backups_total",
		"Backups made by this process (schedule, dashboard, CLI) by outcome (ok, failed).", []string{"outcome"}, nil)
	reg.MustRegister(
		s.requests, s.latency,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectorFunc{descs: []*prometheus.Desc{pushDesc, queueDesc, outboxDesc}, collect: func(ch chan<- prometheus.Metric) {
			st := notifications.Stats(app)
			for i, name := range outcomes {
				ch <- prometheus.MustNewConstMetric(pushDesc, prometheus.CounterValue, float64(st.Outcomes[i]), name)
			}
			ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(st.Pending))
			if n, err := notifications.PendingPushes(app); err == nil {
				ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(n))
			}
		}},
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "camellos_reminders_sent_total",
			Help: "Appointments reminded by this process (sweep, cron route, CLI).",
		}, func() float64 { return float64(jobs.RemindersSent(app)) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "camellos_external_commits_total",
			Help: "Commits by other processes noticed on data.db (each drops the in-memory caches).",
		}, func() float64 {
			if w := dbwatch.Of(app); w != nil {
				return float64(w.External())
			}
			return 0
		}),
		newPoolCollector(app),
		collectorFunc{descs: []*prometheus.Desc{backupsDesc}, collect: func(ch chan<- prometheus.Metric) {
			st := backup.StatsOf(app)
			ch <- prometheus.MustNewConstMetric(backupsDesc, prometheus.CounterValue, float64(st.Created.Load()), "ok")
			ch <- prometheus.MustNewConstMetric(backupsDesc, prometheus.CounterValue, float64(st.Failed.Load()), "failed")
		}},
		collectorFunc{descs: []*prometheus.Desc{projectionDiffsDesc, projectionDropsDesc}, collect: func(ch chan<- prometheus.Metric) {
			for _, p := range readmodel.Stats(app) {
				if p.MaxAge <= 0 {
					ch <- prometheus.MustNewConstMetric(projectionDiffsDesc, prometheus.CounterValue, float64(p.Differences), p.Name)
				}
				ch <- prometheus.MustNewConstMetric(projectionDropsDesc, prometheus.CounterValue, float64(p.ForeignDrops), p.Name)
			}
		}},
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "camellos_write_retries_total",
			Help: "Write transactions run again after SQLite refused them as busy (another process's lock or commit).",
		}, func() float64 { return float64(writer.Retries()) }),
	)
	s.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
	return s
}

// projectionDiffsDesc: differences the background consistency check found
// between an in-memory projection and a fresh build (each repaired).
var projectionDiffsDesc = prometheus.NewDesc("camellos_projection_differences_total",
	"Differences found between an in-memory projection and a fresh build by the background check (each repaired).",
	[]string{"projection"}, nil)

var projectionDropsDesc = prometheus.NewDesc("camellos_projection_foreign_drops_total",
	"Drops of an in-memory projection for a commit of another process to a table it is built from (internal/readmodel).",
	[]string{"projection"}, nil)

// collectorFunc is a collector of fixed descriptions read at scrape time.
type collectorFunc struct {
	descs   []*prometheus.Desc
	collect func(chan<- prometheus.Metric)
}

func (c collectorFunc) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}
func (c collectorFunc) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// newPoolCollector reports database/sql's statistics of the two data.db
// pools (concurrent readers, the single writer), labelled pool.
func newPoolCollector(app core.App) prometheus.Collector {
	label := []string{"pool"}
	open := prometheus.NewDesc("camellos_sqlite_connections_open", "Open connections of the pool.", label, nil)
	inUse := prometheus.NewDesc("camellos_sqlite_connections_in_use", "Connections in use now.", label, nil)
	idle := prometheus.NewDesc("camellos_sqlite_connections_idle", "Idle connections.", label, nil)
	maxOpen := prometheus.NewDesc("camellos_sqlite_connections_max_open", "Pool size limit.", label, nil)
	waits := prometheus.NewDesc("camellos_sqlite_wait_total", "Times a query waited for a free connection.", label, nil)
	waited := prometheus.NewDesc("camellos_sqlite_wait_seconds_total", "Time spent waiting for a free connection.", label, nil)
	return collectorFunc{descs: []*prometheus.Desc{open, inUse, idle, maxOpen, waits, waited}, collect: func(ch chan<- prometheus.Metric) {
		for name, b := range map[string]dbx.Builder{"readers": app.ConcurrentDB(), "writer": app.NonconcurrentDB()} {
			db, ok := b.(*dbx.DB)
			if !ok || db == nil {
				continue
			}
			st := db.DB().Stats()
			ch <- prometheus.MustNewConstMetric(open, prometheus.GaugeValue, float64(st.OpenConnections), name)
			ch <- prometheus.MustNewConstMetric(inUse, prometheus.GaugeValue, float64(st.InUse), name)
			ch <- prometheus.MustNewConstMetric(idle, prometheus.GaugeValue, float64(st.Idle), name)
			ch <- prometheus.MustNewConstMetric(maxOpen, prometheus.GaugeValue, float64(st.MaxOpenConnections), name)
			ch <- prometheus.MustNewConstMetric(waits, prometheus.CounterValue, float64(st.WaitCount), name)
			ch <- prometheus.MustNewConstMetric(waited, prometheus.CounterValue, st.WaitDuration.Seconds(), name)
		}
	}}
}

// Register binds the request middleware, which also answers GET /metrics.
//
// GET /metrics is not a route of its own: with the right bearer the
// middleware answers it; otherwise the request goes on to whatever answers
// an unknown page (the web front's 404), so nothing tells it apart.
func Register(app core.App) {
	s := setOf(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Router.Bind(s.middleware())
		return se.Next()
	})
}

// middleware answers an authorised GET /metrics and counts every other
// routed request by its route pattern.
func (s *set) middleware() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosMetrics",
		Priority: -1_000_000, // outermost: the whole answer is timed
		Func: func(e *core.RequestEvent) error {
			if e.Request.URL.Path == Path && e.Request.Method == http.MethodGet && authorized(e) {
				e.Response.Header().Set("Cache-Control", "no-store")
				s.handler.ServeHTTP(e.Response, e.Request)
				return nil
			}
			start := time.Now()
			err := e.Next()
			route := routeOf(e.Request)
			status := http.StatusOK
			switch {
			case e.Written():
				status = e.Status()
			case err != nil:
				status = httpapi.ToError(err).Status
			}
			x := s.seriesOf(seriesKey{route: route, method: methodLabel(e.Request.Method), status: status})
			x.count.Inc()
			x.latency.Observe(time.Since(start).Seconds())
			return err
		},
	}
}

// methodLabel is the method as a label: the standard ones, else OTHER (a
// client cannot grow the series with made-up methods).
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

// routeOf is the matched route pattern without its method ("GET
// /api/camellos/{id}" → "/api/camellos/{id}"); never the raw path.
func routeOf(r *http.Request) string {
	p := r.Pattern
	if i := strings.IndexByte(p, ' '); i >= 0 {
		p = p[i+1:]
	}
	if p == "" {
		return "unmatched"
	}
	return p
}

// authorized reports whether METRICS_TOKEN is set and the request carries
// it as its bearer (compared in constant time).
func authorized(e *core.RequestEvent) bool {
	token := config.Of(e.App).MetricsToken
	got, ok := strings.CutPrefix(e.Request.Header.Get("Authorization"), "Bearer ")
	return token != "" && ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
