package notifications

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"camellos/internal/config"
	"camellos/internal/httpapi"
	mailer "camellos/modules/mail"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/pocketbase/core"
)

// Options tune the background delivery of one app. Set them with
// SetOptions before the notifications module is registered (tests do it
// through a testkit option); zero fields take the defaults.
type Options struct {
	// HTTPClient sends Web Push requests. Default: the system trust store
	// (SSL_CERT_FILE is honoured) and a 15 s timeout. Tests inject one
	// that trusts their HTTPS receiver.
	HTTPClient *http.Client
	// Workers is how many deliveries run at once (default PUSH_WORKERS,
	// 512). A worker mostly waits for a push service's answer, so their
	// number is sized by the services' latency, not by CPU. One user holds
	// at most one worker at a time: the user's next delivery waits its turn
	// behind other users' (fair queueing), so a user whose endpoints hang
	// cannot starve anyone else.
	Workers int
	// OriginConcurrency caps the requests in flight to one push service
	// origin (default PUSH_ORIGIN_CONCURRENCY, 512); see origins.
	OriginConcurrency int
	// StreamsPerConnection is how many of them one connection (lane)
	// carries at once (default 100, laneStreams); see origins.
	StreamsPerConnection int
	// PushTimeout is the deadline of one push request to one endpoint
	// (default 10 s); the endpoints of one notification are pushed at once.
	PushTimeout time.Duration
	// QueueSize bounds the queue of pending deliveries (default 4096).
	QueueSize int
	// RetryDelays are the waits before each retry of a push answered 429 or
	// 5xx (default 2 s, 10 s, 30 s: three retries within a minute). A longer
	// Retry-After is honoured up to MaxRetryAfter.
	RetryDelays []time.Duration
	// MaxRetryAfter caps how long a Retry-After may postpone a retry
	// (default 5 minutes); a longer one gives the delivery up.
	MaxRetryAfter time.Duration
	// BatchSize is how many inbox records an admin broadcast writes per
	// transaction (default 500).
	BatchSize int
}

const optionsKey = "notifications.options"
const dispatcherKey = "notifications.dispatcher"

// SetOptions stores delivery options for app; call it before Register.
func SetOptions(app core.App, o Options) {
	app.Store().Set(optionsKey, o)
}

func (o Options) withDefaults(c config.Config) Options {
	if o.PushTimeout <= 0 {
		o.PushTimeout = 10 * time.Second
	}
	if o.Workers <= 0 {
		o.Workers = config.DefaultPushWorkers
		if c.PushWorkers > 0 {
			o.Workers = c.PushWorkers
		}
	}
	if o.OriginConcurrency <= 0 {
		o.OriginConcurrency = config.DefaultPushOriginConcurrency
		if c.PushOriginConcurrency > 0 {
			o.OriginConcurrency = c.PushOriginConcurrency
		}
	}
	if o.HTTPClient == nil {
		// Its own transport. HTTP/2 where the push service speaks it (all
		// the big ones do): one connection per service, the requests in
		// flight multiplexed on it as streams. For a service on HTTP/1.1,
		// enough idle connections for every request in flight to it (the
		// shared default keeps 2, so most pushes would pay a handshake).
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true
		tr.MaxIdleConnsPerHost = o.OriginConcurrency
		o.HTTPClient = &http.Client{Timeout: o.PushTimeout, Transport: tr}
	}
	if o.QueueSize <= 0 {
		o.QueueSize = 4096
	}
	if o.RetryDelays == nil {
		o.RetryDelays = []time.Duration{2 * time.Second, 10 * time.Second, 30 * time.Second}
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 5 * time.Minute
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	return o
}

// job is one notification to deliver on the channels beyond the inbox.
type job struct {
	ID     string // inbox record id; "" when the user keeps in-app off
	UserID string
	Kind   string
	Title  string
	Body   string
	URL    string
	Data   map[string]any
	// known is what the writer of the notification read of the user
	// (NotifyMany): the preferences and push subscriptions as of that
	// write, shared by the user's jobs of one call; nil: the worker reads
	// them when it delivers.
	known *recipient
	// seq is the order the dispatcher took the job in (enqueue): workers
	// deliver concurrently, so a coalesced mail names the latest by seq,
	// not by which worker came last.
	seq uint64
	// count is how many messages a digest stands for (0: not a digest).
	count int
	// phone and fallback: the WhatsApp number this job goes to and whether
	// a failed WhatsApp message falls back to mail (set by run).
	phone    string
	fallback bool
	// row is the push_outbox row this push is (a worker's task; "" for
	// pushes from memory): its outcome is written back to the row.
	row string
	// pushQueued: the push of this job is already in the push outbox
	// (written with the notification, PUSH_DELIVERY=worker).
	pushQueued bool
}

// recipient is a user's preferences, push subscriptions and confirmed
// WhatsApp number ("" when none), and whether the account is disabled.
type recipient struct {
	prefs Preferences
	subs  []subscription
	phone string
	// disabled: the account is disabled (or erased) as of the read.
	disabled bool
}

// task is one unit of work of the queue: a notification to fan out, or a
// retry of one push to one subscription.
type task struct {
	job     job
	sub     *subscription // nil: fan out to every channel
	attempt int           // push attempt number of sub (1 = first)
	turn    bool          // handed on by the user's previous task: it holds the user's turn
}

// dispatcher is the bounded worker pool that delivers notifications after
// their write committed, off the request path.
type dispatcher struct {
	app  core.App
	opts Options
	seq  uint64 // the last job's seq (under mu)

	queue  chan task
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	pending  int // queued, running or waiting to be retried
	stopped  bool
	timers   map[*time.Timer]struct{}
	overflow []task            // deliveries waiting for room in the queue, in order
	spilling bool              // the goroutine moving overflow into the queue runs
	active   map[string]bool   // users with a task running (one at a time)
	parked   map[string][]task // users' tasks waiting for their running one

	coalesce coalescer     // last push per thread of coalesced kinds
	mails    mailCoalescer // mails of a conversation held back within MailWindow
	was      mailCoalescer // WhatsApp messages of a conversation held back likewise

	vapidMu sync.Mutex
	vapid   *vapidKeys

	vapidHeaders vapidHeaders // signed Authorization headers per audience
	origins      *origins     // in-flight slots and pauses per push service
	enc          *encryptors  // the pushes' encryption, below GOMAXPROCS
	sender       *pushSender  // the push outbox's claim loop (`camellos push work`; nil when none)

	// outcomes counts push attempts by outcome (PushStats).
	outcomes [numOutcomes]atomic.Int64
}

// Push attempt outcomes, as PushStats reports them.
const (
	PushDelivered = iota // 2xx
	PushGone             // 404/410: subscription deleted
	PushRetried          // 429, 5xx or a network error: tried again later
	PushRejected         // another answer: given up
	PushGaveUp           // retries exhausted
	PushPostponed        // not sent: its push service asked to wait (429/503 Retry-After)
	numOutcomes
)

// PushOutcomeNames names the outcomes (metrics labels).
func PushOutcomeNames() []string {
	return []string{"delivered", "gone", "retried", "rejected", "gave_up", "postponed"}
}

// PushStats is what the dispatcher of app did so far: push attempts by
// outcome (indexed by PushDelivered...) and the deliveries pending now
// (queued, running or waiting to be retried).
type PushStats struct {
	Outcomes [numOutcomes]int64
	Pending  int
}

// Stats reads app's delivery counters (zero when the module is not
// registered). The metrics area reads it at every scrape.
func Stats(app core.App) PushStats {
	var s PushStats
	d := dispatcherOf(app)
	if d == nil {
		return s
	}
	for i := range s.Outcomes {
		s.Outcomes[i] = d.outcomes[i].Load()
	}
	d.mu.Lock()
	s.Pending = d.pending
	d.mu.Unlock()
	return s
}

func (d *dispatcher) count(outcome int) { d.outcomes[outcome].Add(1) }

func newDispatcher(app core.App) *dispatcher {
	o, _ := app.Store().Get(optionsKey).(Options)
	o = o.withDefaults(config.Of(app))
	ctx, cancel := context.WithCancel(context.Background())
	d := &dispatcher{
		app: app, opts: o,
		queue: make(chan task, o.QueueSize),
		ctx:   ctx, cancel: cancel,
		timers: map[*time.Timer]struct{}{},
		active: map[string]bool{}, parked: map[string][]task{},
		enc: newEncryptors(encryptorCount()),
	}
	d.opts.HTTPClient = pushClient(app, o.HTTPClient)
	d.origins = newOrigins(o.OriginConcurrency, o.StreamsPerConnection, laneClients(d.opts.HTTPClient))
	for i := 0; i < o.Workers; i++ {
		d.wg.Add(1)
		go d.work()
	}
	return d
}

// dispatcherOf returns the app's dispatcher (nil when the module is not
// registered; a nil dispatcher drops work).
func dispatcherOf(app core.App) *dispatcher {
	d, _ := app.Store().Get(dispatcherKey).(*dispatcher)
	return d
}

// WaitIdle blocks until every queued delivery, retry and broadcast of app
// is finished and the mails they queued have left the outbox, or timeout
// passes; it reports whether the queue drained.
// Tests use it instead of sleeping.
func WaitIdle(app core.App, timeout time.Duration) bool {
	d := dispatcherOf(app)
	if d == nil {
		return true
	}
	deadline := time.Now().Add(timeout)
	for {
		d.mu.Lock()
		idle := d.pending == 0
		d.mu.Unlock()
		if idle { // the mails it queued are deliveries too
			return mailer.WaitIdle(app, time.Until(deadline))
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// enqueue queues a delivery without ever blocking and without dropping
// it: when the queue is full (or older deliveries already wait), the task
// joins an in-memory overflow list that one background goroutine, tracked
// by the dispatcher (WaitIdle counts it, stop ends it), moves into the
// queue as room frees up. Only deliveries that can reach someone are
// enqueued (see NotifyMany and the after-create hook), so the overflow
// holds deliverable work only.
func (d *dispatcher) enqueue(j job) {
	if d == nil {
		return
	}
	d.enqueueTask(task{job: j})
}

// enqueueTask queues a task as enqueue does (a push outbox row claimed by
// the worker: a push to one subscription).
func (d *dispatcher) enqueueTask(t task) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	d.seq++
	t.job.seq = d.seq
	d.queueLocked(t)
}

// queueLocked puts t in the queue, or the overflow when the queue is full
// (d.mu held).
func (d *dispatcher) queueLocked(t task) {
	d.pending++
	if !d.spilling {
		select {
		case d.queue <- t:
			return
		default:
		}
	}
	d.overflow = append(d.overflow, t)
	if !d.spilling {
		d.spilling = true
		d.wg.Add(1)
		go d.spill()
	}
}

// pendingNow is how many deliveries are queued, running or waiting.
func (d *dispatcher) pendingNow() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pending
}

// busy reports whether a task of user runs or waits its turn.
func (d *dispatcher) busy(user string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.active[user] || len(d.parked[user]) > 0
}

// spill moves the overflow into the queue, waiting for room, until the
// overflow is empty or the dispatcher stops (what is left is then
// dropped, like the queue itself).
func (d *dispatcher) spill() {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(d.overflow) == 0 {
			d.overflow = nil
			d.spilling = false
			d.mu.Unlock()
			return
		}
		t := d.overflow[0]
		d.overflow[0] = task{}
		d.overflow = d.overflow[1:]
		d.mu.Unlock()
		select {
		case d.queue <- t:
		case <-d.ctx.Done():
			d.mu.Lock()
			d.pending -= 1 + len(d.overflow)
			d.overflow = nil
			d.spilling = false
			d.mu.Unlock()
			return
		}
	}
}

// push adds a task to the queue, waiting for room (retries use it).
func (d *dispatcher) push(t task) bool {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return false
	}
	d.pending++
	d.mu.Unlock()
	select {
	case d.queue <- t:
		return true
	case <-d.ctx.Done():
	}
	d.done()
	return false
}

// done marks one task finished.
func (d *dispatcher) done() {
	d.mu.Lock()
	d.pending--
	d.mu.Unlock()
}

// begin counts a unit of background work that is not a queued task (a
// broadcast); it fails once the dispatcher stopped.
func (d *dispatcher) begin() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return false
	}
	d.pending++
	d.wg.Add(1)
	return true
}

// waitForRoom blocks until the queue can take n more tasks (or stop).
func (d *dispatcher) waitForRoom(n int) bool {
	if n > cap(d.queue) {
		n = cap(d.queue)
	}
	for cap(d.queue)-len(d.queue) < n {
		select {
		case <-d.ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return d.ctx.Err() == nil
}

// retryLater re-queues a push after wait, without holding a worker.
func (d *dispatcher) retryLater(t task, wait time.Duration) {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return
	}
	d.pending++
	var timer *time.Timer
	timer = time.AfterFunc(wait, func() {
		d.mu.Lock()
		delete(d.timers, timer)
		d.mu.Unlock()
		d.push(t)
		d.done()
	})
	d.timers[timer] = struct{}{}
	d.mu.Unlock()
}

// stop ends the workers: queued work is dropped, pending retries are
// cancelled, running requests are aborted. Called on app terminate.
func (d *dispatcher) stop() {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return
	}
	d.stopped = true
	for t := range d.timers {
		if t.Stop() {
			d.pending--
		}
	}
	d.timers = map[*time.Timer]struct{}{}
	sender := d.sender
	d.mu.Unlock()
	if sender != nil {
		sender.stopClaiming()
	}
	d.cancel()
	d.wg.Wait()
	d.enc.close()
	if sender != nil { // the outcomes of the pushes that finished
		sender.stopSettling()
	}
}

func (d *dispatcher) work() {
	defer d.wg.Done()
	for {
		select {
		case <-d.ctx.Done():
			return
		case t := <-d.queue:
			if !d.claim(t) {
				continue // parked behind the user's running task
			}
			d.run(t)
			d.done()
			d.handOn(t.job.UserID)
		}
	}
}

// claim gives t's user the worker unless another task of the same user
// runs; then t is parked (still pending) until that one finishes.
func (d *dispatcher) claim(t task) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	u := t.job.UserID
	if t.turn || !d.active[u] {
		d.active[u] = true
		return true
	}
	d.parked[u] = append(d.parked[u], t)
	return false
}

// handOn ends the user's running task: the user's next parked task goes
// to the back of the queue holding the user's turn (other users' tasks
// queued meanwhile run first), or the user is idle again.
func (d *dispatcher) handOn(user string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	next := d.parked[user]
	if len(next) == 0 {
		delete(d.active, user)
		delete(d.parked, user)
		return
	}
	t := next[0]
	if len(next) == 1 {
		delete(d.parked, user)
	} else {
		d.parked[user] = next[1:]
	}
	t.turn = true
	if d.stopped {
		return
	}
	// Never block a worker: straight into the queue when there is room and
	// nothing waits before it, else through the overflow.
	if !d.spilling {
		select {
		case d.queue <- t:
			return
		default:
		}
	}
	d.overflow = append(d.overflow, t)
	if !d.spilling {
		d.spilling = true
		d.wg.Add(1)
		go d.spill()
	}
}

// run handles one task, recovering from panics so a worker never dies.
func (d *dispatcher) run(t task) {
	defer func() {
		if r := recover(); r != nil {
			d.app.Logger().Error("notifications: delivery panic", "error", fmt.Sprint(r))
		}
	}()
	if t.sub != nil {
		d.pushAttempt(t.job, *t.sub, t.attempt)
		return
	}
	var prefs Preferences
	if k := t.job.known; k != nil {
		prefs = k.prefs
	} else {
		var err error
		if prefs, err = loadPreferences(d.app, t.job.UserID); err != nil {
			d.app.Logger().Error("notifications: preferences", "user", t.job.UserID, "error", err.Error())
			return
		}
	}
	if prefs.allows(t.job.Kind, ChannelPush) && !t.job.pushQueued && d.pushDue(t.job) {
		var subs []subscription
		if k := t.job.known; k != nil {
			subs = k.subs
		} else {
			var err error
			if subs, err = userSubscriptions(d.app, t.job.UserID); err != nil {
				d.app.Logger().Error("notifications: subscriptions", "user", t.job.UserID, "error", err.Error())
			}
		}
		if outboxMode(d.app) {
			// The worker process sends them: rows of the push outbox.
			if err := queuePushes(d.app, t.job, subs); err != nil {
				d.app.Logger().Error("notifications: push outbox write failed", "user", t.job.UserID, "error", err.Error())
			}
			subs = nil
		}
		// Every endpoint at once, each with its own deadline: one slow
		// endpoint does not delay the others.
		var wg sync.WaitGroup
		for _, s := range subs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					if r := recover(); r != nil {
						d.app.Logger().Error("notifications: push panic", "error", fmt.Sprint(r))
					}
				}()
				d.pushAttempt(t.job, s, 1)
			}()
		}
		wg.Wait()
		if d.ctx.Err() != nil {
			return
		}
	}
	// WhatsApp, to a confirmed number, replaces the mail of the kind: the
	// mail goes only if the message cannot be delivered (and e-mail is on).
	email := prefs.allows(t.job.Kind, ChannelEmail)
	if prefs.allows(t.job.Kind, ChannelWhatsApp) && whatsapp.Enabled(d.app) {
		j := t.job
		if k := j.known; k != nil {
			j.phone = k.phone
		} else {
			j.phone = whatsapp.ConfirmedPhone(d.app, j.UserID)
		}
		if j.phone != "" {
			j.fallback = email && mailer.Enabled(d.app)
			d.digest(&d.was, j, d.sendWhatsApp)
			return
		}
	}
	if email {
		d.mail(t.job)
	}
}

// jobFromRecord is the delivery of an inbox record.
func jobFromRecord(rec *core.Record) job {
	data := map[string]any{}
	_ = rec.UnmarshalJSONField("data", &data)
	return job{
		ID: rec.Id, UserID: rec.GetString("user"), Kind: rec.GetString("kind"),
		Title: rec.GetString("title"), Body: rec.GetString("body"), URL: rec.GetString("url"), Data: data,
	}
}

func errUnknownKind(kind string) error {
	return httpapi.FieldRuleError("kind", "Tipo de notificación desconocido: "+kind)
}
