// Package writer runs the app's write transactions on data.db one at a
// time, in the order they arrive.
//
// SQLite has one writer, and PocketBase runs every transaction on its
// "nonconcurrent" pool of one connection. database/sql hands a released
// connection to a random waiter, not the oldest one, so under load the
// wait of a write is a lottery: in the benchmark's write-only load (32
// connections) the p50 of a write was ~40 ms and its p99 ~250 ms, the
// same work. Transaction queues the callers instead (a channel: its
// waiting senders are served first come, first served), so at most one of
// our writes waits for the connection and the others wait their turn: the
// wait is the queue ahead, not luck.
//
// The turn ends when the transaction commits or rolls back, before the
// transaction's after-commit work (PocketBase's after-success record hooks,
// our events, the notification queue), which runs on the caller's goroutine
// while the next write already runs.
package writer

import (
	"sync"

	"github.com/pocketbase/pocketbase/core"
)

const storeKey = "camellos.writer"

// queue is one app's turn: a token in a channel of capacity one.
type queue struct {
	turn chan struct{}
}

func queueOf(app core.App) *queue {
	return app.Store().GetOrSet(storeKey, func() any {
		return &queue{turn: make(chan struct{}, 1)}
	}).(*queue)
}

// Transaction is app.RunInTransaction(fn) taken in turn with the app's
// other Transaction calls. Inside a transaction (app.TxInfo() != nil) fn
// runs in it, like RunInTransaction does. fn must use txApp for every
// query: a write through another app value would wait for the turn this
// call holds.
func Transaction(app core.App, fn func(txApp core.App) error) error {
	if app.TxInfo() != nil {
		return app.RunInTransaction(fn)
	}
	q := queueOf(app)
	q.turn <- struct{}{}
	var once sync.Once
	release := func() { once.Do(func() { <-q.turn }) }
	defer release()
	return app.RunInTransaction(func(txApp core.App) error {
		// The first after-commit callback: the next write may start while
		// this one's after-commit work runs.
		txApp.TxInfo().OnComplete(func(error) error {
			release()
			return nil
		})
		return fn(txApp)
	})
}
