// Package writer runs the app's write transactions on data.db one at a
// time, in the order they arrive, on one goroutine.
//
// SQLite has one writer, and PocketBase runs every transaction on its
// "nonconcurrent" pool of one connection. Two things made writes slow and
// their latency a lottery under load (benchmark, write-only and mixed):
//
//   - database/sql hands a released connection to a random waiter, not the
//     oldest one: with 32 connections the p50 of a write was ~40 ms and
//     its p99 ~250 ms, for the same work;
//   - every hand-over of the connection wakes the next writer's goroutine,
//     which then waits for a CPU behind every runnable request goroutine
//     (traces of the mixed load: ~1.3 ms per hand-over on 2 cores, several
//     times the transaction's own CPU), while SQLite's writer sits idle.
//
// Transaction therefore queues the work (a channel: first come, first
// served) for one writer goroutine per app, which runs the transactions
// back to back: the connection is handed over to nobody, and a waiting
// write starts as soon as the previous one committed. The caller blocks
// until its transaction (and the after-commit work PocketBase runs with
// it: after-success record hooks, our events) is done, and gets its error,
// or its panic, back.
//
// A transaction SQLite refuses because of another process (busy: its lock
// outlasted the busy timeout; or busy snapshot, 517: another process
// committed between the transaction's first read and its first write,
// which no timeout waits out) is rolled back and run again from the start
// on a fresh snapshot, at most MaxAttempts times within RetryWindow; past
// that its busy error is returned, which the routes answer 503 with
// Retry-After (internal/httpapi), never 500. fn must therefore only
// change the database and in-memory state bound to the transaction's
// completion (its hooks, OnComplete, readmodel.AfterCommit).
package writer

import (
	"sync"
	"sync/atomic"
	"time"

	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
)

const storeKey = "camellos.writer"

// queue is one app's writer: the work waiting, and the goroutine running it.
type queue struct {
	work chan *work
	stop chan struct{}
	// afterCommit is set while the writer runs the after-commit work of
	// the transaction it just committed (PocketBase's after-success hooks,
	// our events), until that work returns: a write started then (by that
	// work, or by anyone) runs on its caller's goroutine instead of
	// waiting behind the writer, which would wait for it in turn.
	afterCommit atomic.Bool
	mu          sync.RWMutex // senders hold it shared; closing takes it
	closed      bool
}

type work struct {
	app   core.App
	fn    func(txApp core.App) error
	err   error
	panic any
	done  chan struct{}
}

func queueOf(app core.App) *queue {
	return app.Store().GetOrSet(storeKey, func() any {
		q := &queue{work: make(chan *work, 256), stop: make(chan struct{})}
		app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
			q.close()
			return e.Next()
		})
		started := make(chan struct{})
		go q.loop(started)
		<-started
		return q
	}).(*queue)
}

func (q *queue) loop(started chan struct{}) {
	close(started)
	for {
		select {
		case w := <-q.work:
			w.run(q)
		case <-q.stop:
			for { // what was queued before close
				select {
				case w := <-q.work:
					w.run(q)
				default:
					return
				}
			}
		}
	}
}

// close stops the writer once the work already queued has run; later
// calls run on their caller's goroutine.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.stop)
	}
}

func (w *work) run(q *queue) {
	defer close(w.done)
	defer func() {
		if p := recover(); p != nil {
			w.panic = p
		}
	}()
	w.err = runTx(w.app, w.fn, q)
}

// MaxAttempts is how many times a transaction refused as busy runs in all.
const MaxAttempts = 8

// RetryWindow bounds the time spent on one transaction's attempts: a new
// attempt starts only before it has passed (one attempt that waited out
// SQLite's 10 s busy timeout is not tried again).
const RetryWindow = 2 * time.Second

// retries counts the attempts run again after a busy refusal (metrics).
var retries atomic.Int64

// Retries is how many transactions were run again after SQLite refused
// them as busy, in this process.
func Retries() int64 { return retries.Load() }

// runTx is app.RunInTransaction(fn), run again while SQLite refuses it as
// busy, at most MaxAttempts times within RetryWindow, after a short pause
// that grows with each attempt (0.5, 1, 2, … ms, at most 20 ms). Run by the
// writer (q not nil), the first callback of the transaction's completion
// marks the writer as in after-commit work (q.afterCommit) until
// RunInTransaction returns.
func runTx(app core.App, fn func(txApp core.App) error, q *queue) error {
	start := time.Now()
	pause := 500 * time.Microsecond
	if q != nil {
		inner := fn
		fn = func(txApp core.App) error {
			// Registered before fn saves anything: it runs first, right
			// after the commit (or the rollback).
			txApp.TxInfo().OnComplete(func(error) error {
				q.afterCommit.Store(true)
				return nil
			})
			return inner(txApp)
		}
	}
	for attempt := 1; ; attempt++ {
		err := app.RunInTransaction(fn)
		if q != nil {
			q.afterCommit.Store(false)
		}
		if err == nil || attempt >= MaxAttempts || !records.IsBusy(err) || time.Since(start) >= RetryWindow {
			return err
		}
		retries.Add(1)
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// Transaction is app.RunInTransaction(fn) run by the app's writer, after
// the writes queued before it. Inside a transaction (app.TxInfo() != nil)
// fn runs in it, like RunInTransaction does. While the writer runs a
// committed write's after-commit work (q.afterCommit: a hook of that write
// may start this one, and the writer cannot run it before that work
// returns), fn runs on the caller's goroutine, with the same retries. fn
// must use txApp for every query.
func Transaction(app core.App, fn func(txApp core.App) error) error {
	if app.TxInfo() != nil {
		return app.RunInTransaction(fn)
	}
	q := queueOf(app)
	if q.afterCommit.Load() {
		return runTx(app, fn, nil)
	}
	w := &work{app: app, fn: fn, done: make(chan struct{})}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return runTx(app, fn, nil)
	}
	q.work <- w
	q.mu.RUnlock()
	<-w.done
	if w.panic != nil {
		panic(w.panic)
	}
	return w.err
}
