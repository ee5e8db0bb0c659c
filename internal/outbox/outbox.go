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
	"errors"
	"sync"
	"time"

	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Write writes a row of an outbox: insert runs in a transaction of app
// (the caller's, when app is one: the row then exists only if that write
// commits), and only while the addressee userID is enabled (enabled, read
// in that same transaction: an erasure committed before it leaves nothing
// behind, one committed after deletes the row); "" addresses nobody's
// account and is always written. wake runs once the row is committed.
// Nothing is written, and nil returned, for a disabled or erased user.
func Write(app core.App, userID string, enabled func(core.App, string) bool, insert func(txApp core.App) error, wake func()) error {
	err := writer.Transaction(app, func(tx core.App) error {
		if userID != "" && !enabled(tx, userID) {
			return errDisabled
		}
		return insert(tx)
	})
	if errors.Is(err, errDisabled) {
		return nil
	}
	if err != nil {
		return err
	}
	if tx := app.TxInfo(); tx != nil {
		tx.OnComplete(func(txErr error) error {
			if txErr == nil {
				wake()
			}
			return nil
		})
		return nil
	}
	wake()
	return nil
}

// errDisabled stops a Write whose addressee was erased (or disabled).
var errDisabled = errors.New("outbox: addressee disabled")

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

// NextDue tells how long until the next row of table in status pending is
// due (ok false: none, or unreadable): the sender's wait after a round.
func NextDue(db dbx.Builder, table, pending string) (wait time.Duration, ok bool) {
	var next struct {
		At string `db:"nextAttemptAt"`
	}
	err := db.Select("nextAttemptAt").From(table).Where(dbx.HashExp{"status": pending}).
		OrderBy("nextAttemptAt").Limit(1).One(&next)
	if err != nil {
		return 0, false
	}
	at, err := types.ParseDateTime(next.At)
	if err != nil {
		return 0, false
	}
	return time.Until(at.Time()), true
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
