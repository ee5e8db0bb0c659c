package whatsapp

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"camellos/internal/config"
	"camellos/internal/outbox"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// keepDone is how long finished messages stay in the outbox (their texts
// are emptied as soon as they are delivered).
const keepDone = 30 * 24 * time.Hour

// Notice is one notification to send on WhatsApp.
type Notice struct {
	UserID         string
	Phone          string // the user's confirmed number (E.164 digits)
	Kind           string // a notification kind Handles
	NotificationID string // the inbox record ("" when the inbox keeps none)
	Title, Body    string
	Link           string // absolute URL
	URL            string // the notification's own (site-relative) link, for the mail fallback
	Count          int    // messages of a conversation digest (MESSAGE)
	// Fallback: mail the notice if WhatsApp cannot deliver it.
	Fallback bool
}

// QueueNotice writes a notice to the outbox with app (a transaction: then
// only if it commits) and wakes the sender. A kind without a template, or
// a channel that is off, writes nothing and reports false.
func QueueNotice(app core.App, n Notice) (bool, error) {
	t, ok := templateOf(n.Kind)
	if !ok || !Enabled(app) || n.Phone == "" {
		return false, nil
	}
	return true, queue(app, row{
		UserID: n.UserID, Kind: n.Kind, Notification: n.NotificationID, Phone: n.Phone,
		Template: t.Name, Language: Language, Fallback: n.Fallback,
		Title: clip(n.Title, 200), Body: clip(n.Body, 2000), URL: clip(n.URL, 2048),
	}, noticeParams(t, n))
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// row is an outbox record as the sender reads it.
type row struct {
	ID            string `db:"id"`
	UserID        string `db:"user"`
	Kind          string `db:"kind"`
	Notification  string `db:"notification"`
	Phone         string `db:"phone"`
	Template      string `db:"template"`
	Language      string `db:"language"`
	Params        string `db:"params"`
	Fallback      bool   `db:"fallback"`
	Title         string `db:"title"`
	Body          string `db:"body"`
	URL           string `db:"url"`
	Attempts      int    `db:"attempts"`
	NextAttemptAt string `db:"nextAttemptAt"`
}

// queue inserts r as PENDIENTE, due now, and wakes the sender once the
// write is committed.
//
// The row is written only while its user is enabled, checked in the
// insert's own transaction (as mail.Queue does): a message is never queued
// for an account erased meanwhile.
func queue(app core.App, r row, params []string) error {
	return outbox.Write(app, r.UserID, users.Enabled, func(tx core.App) error {
		return insert(tx, r, params)
	}, func() { workerOf(app).wake() })
}

// insert writes r as PENDIENTE, due now.
func insert(app core.App, r row, params []string) error {
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return err
	}
	rec := core.NewRecord(col)
	rec.Set("user", r.UserID)
	rec.Set("kind", r.Kind)
	rec.Set("notification", r.Notification)
	rec.Set("phone", r.Phone)
	rec.Set("template", r.Template)
	rec.Set("language", r.Language)
	rec.Set("params", params)
	rec.Set("fallback", r.Fallback)
	rec.Set("title", r.Title)
	rec.Set("body", r.Body)
	rec.Set("url", r.URL)
	rec.Set("status", StatusPending)
	rec.Set("attempts", 0)
	rec.Set("nextAttemptAt", types.NowDateTime())
	return app.Save(rec)
}

// sendDue sends every due message, each claimed with one conditional
// UPDATE (outbox.Claim: a message is never sent by two senders), and tells
// how long until the next one is due.
func (w *worker) sendDue(ctx context.Context) (time.Duration, bool) {
	for ctx.Err() == nil {
		var rows []row
		err := w.app.DB().Select("id", "user", "kind", "notification", "phone", "template", "language",
			"COALESCE(params, '[]') AS params", "fallback", "title", "body", "url", "attempts", "nextAttemptAt").
			From(Collection).Where(dbx.HashExp{"status": StatusPending}).
			AndWhere(dbx.NewExp("nextAttemptAt <= {:now}", dbx.Params{"now": types.NowDateTime().String()})).
			OrderBy("nextAttemptAt").Limit(20).All(&rows)
		if err != nil {
			w.app.Logger().Error("whatsapp: outbox read failed", "error", err.Error())
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
			w.attempt(ctx, r)
		}
		if !claimedAny {
			return time.Second, true
		}
	}
	return outbox.NextDue(w.app.DB(), Collection, StatusPending)
}

// attempt sends one claimed message and records the outcome: accepted
// (the message id kept for the webhook, the parameters emptied: a code
// must not outlive its sending), tried again later, or FALLIDO (then the
// mail fallback, once).
func (w *worker) attempt(ctx context.Context, r row) {
	log := w.app.Logger().With("whatsapp", r.ID, "kind", r.Kind, "user", r.UserID, "template", r.Template)
	var params []string
	_ = json.Unmarshal([]byte(r.Params), &params)
	wamid, err := send(ctx, w.opts.HTTPClient, config.Of(w.app), requestOf(r.Phone, r.Template, r.Language, params))
	if ctx.Err() != nil {
		return // shutting down: the lease makes the message due again
	}
	n := r.Attempts + 1
	now := types.NowDateTime().String()
	if err == nil {
		_, uerr := w.app.DB().Update(Collection, dbx.Params{
			"status": StatusAccepted, "wamid": wamid, "acceptedAt": now, "attempts": n,
			"params": "[]", "lastError": "", "updated": now,
		}, dbx.HashExp{"id": r.ID, "status": StatusPending}).Execute()
		if uerr != nil {
			log.Error("whatsapp: accepted but not recorded", "wamid", wamid, "error", uerr.Error())
			return
		}
		log.Info("whatsapp: accepted", "wamid", wamid, "attempt", n)
		return
	}
	msg := err.Error()
	if len(msg) > 900 {
		msg = msg[:900]
	}
	wait, giveUp := outbox.Retry(w.opts.Backoff, n)
	if !retryable(err) {
		giveUp = true
	}
	if !giveUp {
		next, _ := types.ParseDateTime(time.Now().Add(wait))
		_, uerr := w.app.DB().Update(Collection, dbx.Params{
			"attempts": n, "lastError": msg, "errorCode": errorCode(err), "nextAttemptAt": next.String(), "updated": now,
		}, dbx.HashExp{"id": r.ID, "status": StatusPending}).Execute()
		if uerr != nil {
			log.Error("whatsapp: outcome not recorded", "error", uerr.Error())
		}
		log.Warn("whatsapp: send failed, will retry", "attempt", n, "retryIn", wait.String(), "error", msg)
		w.wake()
		return
	}
	log.Error("whatsapp: given up", "attempt", n, "error", msg)
	res, uerr := w.app.DB().NewQuery("UPDATE " + Collection + " SET status = {:failed}, attempts = {:n}, lastError = {:msg}, " +
		"errorCode = {:code}, failedAt = {:now}, params = '[]', updated = {:now}, fellBack = fallback " +
		"WHERE id = {:id} AND status = {:pending}").Bind(dbx.Params{
		"failed": StatusFailed, "n": n, "msg": msg, "code": errorCode(err), "now": now, "id": r.ID, "pending": StatusPending,
	}).Execute()
	if uerr != nil {
		log.Error("whatsapp: failure not recorded", "error", uerr.Error())
		return
	}
	if changed, _ := res.RowsAffected(); changed == 1 { // the one transition to FALLIDO: one fallback
		w.fallBack(r)
	}
}

// fallBack fires OnUndelivered for a failed notice that asked for it.
func (w *worker) fallBack(r row) { fallBack(w.app, r) }

func fallBack(app core.App, r row) {
	if !r.Fallback || r.Kind == KindCode {
		return
	}
	err := OnUndelivered(app).Trigger(&Undelivered{App: app, UserID: r.UserID, Kind: r.Kind,
		NotificationID: r.Notification, Title: r.Title, Body: r.Body, URL: r.URL}, func(*Undelivered) error { return nil })
	if err != nil {
		app.Logger().Error("whatsapp: mail fallback failed", "whatsapp", r.ID, "error", err.Error())
	}
}

// purge drops finished messages older than keepDone.
func (w *worker) purge() {
	before, _ := types.ParseDateTime(time.Now().Add(-keepDone))
	_, err := w.app.DB().Delete(Collection, dbx.And(dbx.NotIn("status", StatusPending, StatusAccepted, StatusSent),
		dbx.NewExp("updated < {:before}", dbx.Params{"before": before.String()}))).Execute()
	if err != nil {
		w.app.Logger().Warn("whatsapp: purge failed", "error", err.Error())
	}
}

// WaitIdle blocks until no WhatsApp message of app is pending, or timeout
// passes; it reports whether the outbox drained. Tests use it.
func WaitIdle(app core.App, timeout time.Duration) bool {
	return outbox.WaitIdle(app, Collection, StatusPending, timeout)
}

// ConfirmedPhone is the user's confirmed WhatsApp number ("" when none:
// the channel is off for the user).
func ConfirmedPhone(app core.App, userID string) string {
	var r struct {
		Phone string `db:"phone"`
	}
	err := app.DB().Select("phone").From(ContactsCollection).
		Where(dbx.HashExp{"user": userID, "status": ContactConfirmed}).Limit(1).One(&r)
	if errors.Is(err, sql.ErrNoRows) || err != nil {
		return ""
	}
	return strings.TrimSpace(r.Phone)
}
