package mail

import (
	"context"
	"crypto/x509"
	"net/mail"
	"time"

	"camellos/internal/outbox"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Collection is the outbox this package owns: every mail is written here
// before it is sent, so neither an SMTP failure nor a restart loses it.
const Collection = "mail_outbox"

// Outbox states.
const (
	StatusPending = "PENDIENTE"
	StatusSent    = "ENVIADO"
	StatusFailed  = "FALLIDO"
)

// Options tune the delivery of one app; set them with SetOptions before
// Register (tests do it through a testkit option). Zero fields take the
// defaults.
type Options struct {
	// Backoff are the waits before each retry of a failed mail (default
	// 10 s, 30 s, 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h); after the
	// last one the mail is marked FALLIDO.
	Backoff []time.Duration
	// Poll is how often the outbox is read for due mails besides the wake-ups
	// of new mails (default 30 s): retries, and mails queued by another
	// process (the CLI) or before a restart.
	Poll time.Duration
	// RootCAs verify the SMTP server's certificate (default: the system
	// trust store). Tests inject their own certificate authority.
	RootCAs *x509.CertPool
}

const (
	optionsKey = "mail.options"
	workerKey  = "mail.worker"
	// keepSent is how long sent mails stay in the outbox (bodies emptied).
	keepSent = 7 * 24 * time.Hour
)

// SetOptions stores delivery options for app; call it before Register.
func SetOptions(app core.App, o Options) { app.Store().Set(optionsKey, o) }

func optionsOf(app core.App) Options {
	o, _ := app.Store().Get(optionsKey).(Options)
	if o.Backoff == nil {
		o.Backoff = []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute,
			15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}
	}
	if o.Poll <= 0 {
		o.Poll = 30 * time.Second
	}
	return o
}

// Message is one mail to one person.
type Message struct {
	UserID  string // the addressee's user id ("" for none); erasure drops their mails
	Kind    string // template kind, for the logs
	To      mail.Address
	Subject string
	HTML    string
	Text    string
	Headers map[string]string
}

// Enabled reports whether mail goes out at all: SMTP_HOST is set (applied
// to PocketBase's settings at start) or SMTP was switched on by hand in the
// dashboard.
func Enabled(app core.App) bool { return app.Settings().SMTP.Enabled }

// Queue writes m to the outbox with app (which may be a transaction: the
// mail then exists only if the caller's write commits) and wakes the
// sender once it is committed. Nothing is written when mail is disabled.
//
// A mail to a user (m.UserID set) is written only while that user is
// enabled, checked in the insert's own transaction: an erasure committed
// before it leaves nothing behind, one committed after deletes it
// (EraseUser). Nothing is written, and nil returned, for an erased user.
func Queue(app core.App, m Message) error {
	if !Enabled(app) {
		return nil
	}
	return outbox.Write(app, m.UserID, users.Enabled, func(tx core.App) error {
		_, err := insert(tx, m, time.Now())
		return err
	}, func() { workerOf(app).wake() })
}

// EraseUser deletes every mail of a user still in the outbox (account
// erasure): their address leaves with them.
func EraseUser(app core.App, userID string) error {
	_, err := app.DB().Delete(Collection, dbx.HashExp{"user": userID}).Execute()
	return err
}

func insert(app core.App, m Message, next time.Time) (*core.Record, error) {
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	rec.Set("user", m.UserID)
	rec.Set("kind", m.Kind)
	rec.Set("toAddress", m.To.Address)
	rec.Set("toName", m.To.Name)
	rec.Set("subject", m.Subject)
	rec.Set("html", m.HTML)
	rec.Set("text", m.Text)
	if m.Headers == nil {
		m.Headers = map[string]string{}
	}
	if _, ok := m.Headers["Message-ID"]; !ok {
		m.Headers["Message-ID"] = messageID(Sender(app).Address)
	}
	rec.Set("headers", m.Headers)
	rec.Set("status", StatusPending)
	rec.Set("attempts", 0)
	rec.Set("nextAttemptAt", next.UTC())
	return rec, app.Save(rec)
}

// row is an outbox record as the sender reads it.
type row struct {
	ID            string `db:"id"`
	UserID        string `db:"user"`
	Kind          string `db:"kind"`
	ToAddress     string `db:"toAddress"`
	ToName        string `db:"toName"`
	Subject       string `db:"subject"`
	HTML          string `db:"html"`
	Text          string `db:"text"`
	Headers       string `db:"headers"`
	Attempts      int    `db:"attempts"`
	NextAttemptAt string `db:"nextAttemptAt"`
}

// attempt sends one claimed mail and records the outcome: sent (bodies
// emptied: a reset link must not outlive its delivery in the database),
// retried later with backoff, or given up after the last retry.
func attempt(app core.App, o Options, r row) {
	log := app.Logger().With("mail", r.ID, "kind", r.Kind, "user", r.UserID)
	err := transmit(app, o, outgoing{
		From: Sender(app), To: mail.Address{Name: r.ToName, Address: r.ToAddress},
		Subject: r.Subject, HTML: r.HTML, Text: r.Text, Headers: parseHeaders(r.Headers),
	})
	now := time.Now().UTC()
	n := r.Attempts + 1
	if err == nil {
		_, uerr := app.DB().Update(Collection, dbx.Params{
			"status": StatusSent, "sentAt": types.NowDateTime().String(), "attempts": n,
			"html": "", "text": "", "lastError": "", "updated": types.NowDateTime().String(),
		}, dbx.HashExp{"id": r.ID}).Execute()
		if uerr != nil {
			log.Error("mail: sent but not recorded", "error", uerr.Error())
		}
		log.Info("mail: sent", "attempt", n)
		return
	}
	msg := err.Error()
	if len(msg) > 900 {
		msg = msg[:900]
	}
	params := dbx.Params{"attempts": n, "lastError": msg, "updated": types.NowDateTime().String()}
	wait, giveUp := outbox.Retry(o.Backoff, n)
	if giveUp {
		params["status"] = StatusFailed
		log.Error("mail: given up", "attempt", n, "permanent", permanent(err), "error", msg)
	} else {
		next, _ := types.ParseDateTime(now.Add(wait))
		params["nextAttemptAt"] = next.String()
		log.Warn("mail: send failed, will retry", "attempt", n, "retryIn", wait.String(), "permanent", permanent(err), "error", msg)
	}
	if _, uerr := app.DB().Update(Collection, params, dbx.HashExp{"id": r.ID}).Execute(); uerr != nil {
		log.Error("mail: outcome not recorded", "error", uerr.Error())
	}
	if !giveUp {
		workerOf(app).wake()
	}
}

// worker is the app's one sender: the shared outbox loop (internal/outbox)
// sending due mails while mail is enabled.
type worker struct {
	app  core.App
	opts Options
	loop *outbox.Worker
}

func workerOf(app core.App) *worker {
	w, _ := app.Store().Get(workerKey).(*worker)
	return w
}

func startWorker(app core.App) *worker {
	w := &worker{app: app, opts: optionsOf(app)}
	app.Store().Set(workerKey, w)
	w.loop = outbox.Start(w.opts.Poll, func(ctx context.Context) (time.Duration, bool) {
		if !Enabled(w.app) {
			return 0, false
		}
		return w.sendDue(ctx)
	}, w.purge)
	return w
}

func (w *worker) wake() {
	if w != nil {
		w.loop.Wake()
	}
}

func (w *worker) stop() { w.loop.Stop() }

// sendDue sends every due mail, claiming each with one conditional UPDATE
// (outbox.Claim: another process on the same data dir never sends it
// twice), and tells how long until the next one is due.
func (w *worker) sendDue(ctx context.Context) (time.Duration, bool) {
	for ctx.Err() == nil {
		now := types.NowDateTime().String()
		var rows []row
		err := w.app.DB().Select("id", "user", "kind", "toAddress", "toName", "subject", "html", "text",
			"COALESCE(headers, '') AS headers", "attempts", "nextAttemptAt").From(Collection).
			Where(dbx.HashExp{"status": StatusPending}).
			AndWhere(dbx.NewExp("nextAttemptAt <= {:now}", dbx.Params{"now": now})).
			OrderBy("nextAttemptAt").Limit(20).All(&rows)
		if err != nil {
			w.app.Logger().Error("mail: outbox read failed", "error", err.Error())
			return 0, false
		}
		if len(rows) == 0 {
			break
		}
		claimedAny := false
		for _, r := range rows {
			if ctx.Err() != nil {
				return 0, false
			}
			if !outbox.Claim(w.app.DB(), Collection, r.ID, StatusPending, r.NextAttemptAt) {
				continue
			}
			claimedAny = true
			attempt(w.app, w.opts, r)
		}
		if !claimedAny { // the database refused every claim: try again later
			return time.Second, true
		}
	}
	return outbox.NextDue(w.app.DB(), Collection, StatusPending)
}

// purge drops sent mails older than keepSent.
func (w *worker) purge() {
	before, _ := types.ParseDateTime(time.Now().Add(-keepSent))
	_, err := w.app.DB().Delete(Collection, dbx.And(dbx.HashExp{"status": StatusSent},
		dbx.NewExp("sentAt < {:before}", dbx.Params{"before": before.String()}))).Execute()
	if err != nil {
		w.app.Logger().Warn("mail: purge failed", "error", err.Error())
	}
}

// WaitIdle blocks until no mail of app is pending and due within the next
// moment, or timeout passes; it reports whether the outbox drained. Tests
// use it.
func WaitIdle(app core.App, timeout time.Duration) bool {
	return outbox.WaitIdle(app, Collection, StatusPending, timeout)
}
