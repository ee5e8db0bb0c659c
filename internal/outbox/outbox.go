// Package outbox is the delivery mechanism the service's outboxes share
// (modules/mail's mail_outbox, modules/whatsapp's whatsapp_outbox): a row
// is written before anything is sent, one sender per app claims due rows
// with one conditional UPDATE each (of two senders — goroutines or
// processes on one data dir — exactly one wins a row), a failed attempt
// waits its turn of a backoff list before it is due again, and rows left
// claimed by a process that died become due again when their lease ends,
// so a restart loses nothing. Each owner keeps its own table, columns and
// transport; this package holds only the claim and the sender's loop.
package outbox

import (
	"context"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Lease is how long a claimed row is left alone by other senders: longer
// than one attempt can take (its transport's timeout), so a row is never
// sent twice while its attempt runs; a sender that died leaves it due again
// after the lease.
const Lease = 2 * time.Minute

// Claim takes one due row of table for the caller: one conditional UPDATE
// moves its nextAttemptAt a Lease ahead, on the condition that the row is
// still in status pending with the nextAttemptAt the caller read. Exactly
// one of several racing senders sees its UPDATE change the row.
func Claim(db dbx.Builder, table, id, pending, readNextAttemptAt string) bool {
	return ClaimFor(db, table, id, pending, readNextAttemptAt, Lease)
}

// ClaimFor is Claim with the owner's own lease (the push outbox's comes
// from configuration: a killed worker's rows are due again after it).
func ClaimFor(db dbx.Builder, table, id, pending, readNextAttemptAt string, lease time.Duration) bool {
	claimed, _ := types.ParseDateTime(time.Now().Add(lease))
	res, err := db.Update(table, dbx.Params{"nextAttemptAt": claimed.String()},
		dbx.HashExp{"id": id, "status": pending, "nextAttemptAt": readNextAttemptAt}).Execute()
	if err != nil {
		return false
	}
	n, _ := res.RowsAffected()
	return n == 1
}

// Retry tells what follows the failed attempt number n (1 = the first)
// with backoff: wait before the next attempt, or giveUp after the last.
func Retry(backoff []time.Duration, n int) (wait time.Duration, giveUp bool) {
	if n > len(backoff) || n < 1 {
		return 0, true
	}
	return backoff[n-1], false
}

// Worker is one sender's loop: it runs Round, sleeps until the next row is
// due, a Wake, or the poll interval, and runs Round again until Stop.
type Worker struct {
	wakeCh chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start runs the loop in a goroutine. round sends what is due and tells how
// long until the next row is due (ok false: nothing known); every is run
// at most once an hour (housekeeping such as purging sent rows; nil for
// none).
func Start(poll time.Duration, round func(ctx context.Context) (next time.Duration, ok bool), every func()) *Worker {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Worker{wakeCh: make(chan struct{}, 1), ctx: ctx, cancel: cancel}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		var lastHourly time.Time
		for {
			wait := poll
			if next, ok := round(ctx); ok && next < wait {
				wait = next
			}
			if every != nil && time.Since(lastHourly) > time.Hour {
				every()
				lastHourly = time.Now()
			}
			wait = max(wait, 10*time.Millisecond)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-w.wakeCh:
				t.Stop()
			case <-t.C:
			}
		}
	}()
	return w
}

// Wake makes the loop run a round now (a new row was queued); nil-safe.
func (w *Worker) Wake() {
	if w == nil {
		return
	}
	select {
	case w.wakeCh <- struct{}{}:
	default:
	}
}

// Stop ends the loop and waits for the round running now.
func (w *Worker) Stop() {
	if w == nil {
		return
	}
	w.cancel()
	w.wg.Wait()
}

// WaitIdle blocks until collection has no row in status pending, or
// timeout passes; it reports whether the outbox drained. The outboxes'
// WaitIdle (mail, WhatsApp) are this; tests use them instead of sleeping.
func WaitIdle(app core.App, collection, pending string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		n, err := app.CountRecords(collection, dbx.HashExp{"status": pending})
		if err == nil && n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
