package notifications

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"camellos/internal/config"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Push lifetimes: how long a push service keeps an undelivered message.
const (
	ReminderTTL = 24 * time.Hour
	DefaultTTL  = 7 * 24 * time.Hour
)

// maxPayloadBytes keeps the JSON payload inside one 4096-byte aes128gcm
// record (4096 − 16 tag − 86 header − 1 delimiter), with room to spare.
const maxPayloadBytes = 3800

// subscription is a stored push subscription.
type subscription struct {
	ID       string `db:"id"`
	Endpoint string `db:"endpoint"`
	P256dh   string `db:"p256dh"`
	Auth     string `db:"auth"`
}

func userSubscriptions(app core.App, userID string) ([]subscription, error) {
	var subs []subscription
	err := app.DB().Select("id", "endpoint", "p256dh", "auth").From(colSubscriptions).
		Where(dbx.HashExp{"user": userID}).OrderBy("created ASC").All(&subs)
	return subs, err
}

// DeclarativeMagic is the "web_push" member that makes a payload a
// Declarative Web Push message (WebKit; the number of RFC 8030).
const DeclarativeMagic = 8030

// pushPayload is a push message in the Declarative Web Push form: Safari
// on iOS/iPadOS 18.4+ (and macOS) shows the notification from it without
// running any JavaScript, and opens notification.navigate on a tap; the
// other browsers hand the same JSON to sw.js, which shows that very
// notification (and shows a generic one for anything else): no push ever
// arrives without a visible notification.
type pushPayload struct {
	WebPush      int              `json:"web_push"`
	Notification pushNotification `json:"notification"`
}

// pushNotification is the payload's notification: the Notifications API's
// options plus navigate, the absolute URL to open.
type pushNotification struct {
	Title    string         `json:"title"`
	Body     string         `json:"body"`
	Navigate string         `json:"navigate"`
	Lang     string         `json:"lang"`
	Dir      string         `json:"dir"`
	Tag      string         `json:"tag,omitempty"`
	Silent   bool           `json:"silent"`
	Data     map[string]any `json:"data"`
}

// payloadOf encodes the push payload of j (its link made absolute with
// base, APP_URL), shortening the body if the whole would not fit in one
// record.
func payloadOf(j job, base string) []byte {
	navigate := j.URL
	switch {
	case navigate == "":
		navigate = base + preferencesPage
	case strings.HasPrefix(navigate, "/") && !strings.HasPrefix(navigate, "//"):
		navigate = base + navigate
	case !strings.HasPrefix(navigate, "https://") && !strings.HasPrefix(navigate, "http://"):
		navigate = base + "/"
	}
	tag := j.ID
	if tag == "" {
		tag = j.Kind
	}
	p := pushPayload{WebPush: DeclarativeMagic, Notification: pushNotification{
		Title: j.Title, Body: j.Body, Navigate: navigate, Lang: "es-CO", Dir: "ltr", Tag: tag,
		Data: map[string]any{"kind": j.Kind, "id": j.ID, "url": j.URL},
	}}
	for {
		raw, _ := json.Marshal(p)
		body := p.Notification.Body
		if len(raw) <= maxPayloadBytes || body == "" {
			return raw
		}
		cut := len(body) - (len(raw) - maxPayloadBytes) - 3
		if cut < 0 {
			cut = 0
		}
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		p.Notification.Body = strings.TrimRight(body[:cut], " ") + "…"
		if cut == 0 {
			p.Notification.Body = ""
		}
	}
}

// topicOf is the Topic header: 32 base64url characters derived from the
// kind and the related ids, so a repeated notice about the same thing
// replaces the pending one at the push service.
func topicOf(j job) string {
	h := sha256.New()
	h.Write([]byte(j.Kind))
	keys := make([]string, 0, len(j.Data))
	for k := range j.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := json.Marshal(j.Data[k])
		h.Write([]byte("|" + k + "=" + string(v)))
	}
	if len(keys) == 0 {
		h.Write([]byte("|" + j.Title + "|" + j.Body))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:24])
}

// Urgency header values (RFC 8030).
const (
	urgencyHigh   = "high"
	urgencyNormal = "normal"
)

// pushOptions are the per-kind headers: TTL, Urgency and Topic.
func pushOptions(j job) (ttl int, urgency string, topic string) {
	if j.Kind == KindAppointmentReminder {
		return int(ReminderTTL / time.Second), urgencyHigh, topicOf(j)
	}
	return int(DefaultTTL / time.Second), urgencyNormal, topicOf(j)
}

// pushAttempt sends one push to one subscription and acts on the answer:
// 2xx delivered; 404/410 the subscription is gone and deleted; 429/5xx and
// network errors retried later; other answers given up. Every attempt is
// logged (a delivered one at debug level: a broadcast to 10,000 users
// would otherwise write 10,000 rows to the logs database).
func (d *dispatcher) pushAttempt(j job, s subscription, attempt int) {
	// The attempt's logger, built only when something is logged: a
	// delivered push logs nothing at the default level.
	log := func() *slog.Logger {
		return d.app.Logger().With("notification", j.ID, "user", j.UserID, "kind", j.Kind,
			"subscription", s.ID, "attempt", attempt)
	}
	origin := originOf(s.Endpoint)
	if d.postponed(j, s, attempt, origin) {
		return
	}
	keys, err := d.vapidKeysOf()
	if err != nil {
		log().Error("push: VAPID keys unavailable", "error", err.Error())
		d.rowLater(j, attempt-1, d.opts.RetryDelays[0], "no_keys")
		return
	}
	ttl, urgency, topic := pushOptions(j)
	// Encrypted before the deadline starts: the encryption threads run
	// below the process's priority and may wait for CPU on a busy machine;
	// the deadline is for the push service's answer.
	body, encErr := d.enc.encrypt(payloadOf(j, config.Of(d.app).AppURL), s.P256dh, s.Auth)
	ctx, cancel := context.WithTimeout(d.ctx, d.opts.PushTimeout)
	defer cancel()
	// One of the origin's in-flight slots and a place on one of its
	// connections (lanes), for the request and its answer.
	slot, ok := d.origins.acquire(ctx, origin)
	if !ok {
		if d.ctx.Err() != nil {
			return // shutting down
		}
		log().Warn("push: no free slot for the push service within the deadline", "origin", origin)
		d.count(PushRetried)
		d.retry(j, s, attempt, 0)
		return
	}
	defer slot.release()
	if d.postponed(j, s, attempt, origin) { // paused while this one waited for a slot
		return
	}
	var res *http.Response
	if err = encErr; err == nil {
		res, err = d.sendPush(slot.trace(ctx), slot.client, pushRequest{
			Body: body, Sub: s, TTL: ttl, Urgency: urgency, Topic: topic,
		}, keys, vapidSubject(d.app))
	}
	if err != nil {
		if d.ctx.Err() != nil {
			return // shutting down
		}
		if errors.Is(err, errPrivateTarget) {
			log().Warn("push: private target refused, not retried", "error", err.Error())
			d.rowDone(j, attempt, pushFailed, "private")
			return
		}
		log().Warn("push: request failed", "error", err.Error())
		d.count(PushRetried)
		d.retry(j, s, attempt, 0)
		return
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	status := res.StatusCode
	switch {
	case status >= 200 && status < 300:
		if d.app.Logger().Enabled(ctx, slog.LevelDebug) {
			log().Debug("push: delivered", "status", status)
		}
		d.count(PushDelivered)
		d.rowDone(j, attempt, pushSent, "delivered")
	case status == http.StatusNotFound || status == http.StatusGone:
		d.count(PushGone)
		d.rowDone(j, attempt, pushFailed, "gone")
		_, derr := d.app.DB().Delete(colSubscriptions, dbx.HashExp{"id": s.ID, "endpoint": s.Endpoint}).Execute()
		if derr != nil {
			log().Error("push: subscription gone, delete failed", "status", status, "error", derr.Error())
			return
		}
		log().Info("push: subscription gone, deleted", "status", status)
	case status == http.StatusTooManyRequests || status >= 500:
		after := retryAfter(res.Header.Get("Retry-After"))
		log().Warn("push: push service busy", "status", status, "retryAfter", res.Header.Get("Retry-After"))
		// The service throttles, not this subscription: the whole origin
		// waits (Retry-After, or the first retry delay for a bare 429).
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			pause := after
			if pause <= 0 && status == http.StatusTooManyRequests && len(d.opts.RetryDelays) > 0 {
				pause = d.opts.RetryDelays[0]
			}
			d.origins.pause(origin, time.Now(), min(pause, d.opts.MaxRetryAfter))
		}
		d.count(PushRetried)
		d.retry(j, s, attempt, after)
	default:
		log().Warn("push: rejected, not retried", "status", status)
		d.count(PushRejected)
		d.rowDone(j, attempt, pushFailed, "rejected")
	}
}

// postponed re-queues a push, at the same attempt, for when its push
// service's pause ends; false when the service is not paused.
func (d *dispatcher) postponed(j job, s subscription, attempt int, origin string) bool {
	wait := d.origins.paused(origin, time.Now())
	if wait <= 0 {
		return false
	}
	d.count(PushPostponed)
	if d.rowLater(j, attempt-1, wait, "postponed") {
		return true
	}
	sub := s
	d.retryLater(task{job: j, sub: &sub, attempt: attempt}, wait)
	return true
}

// retry schedules the next attempt after the backoff delay, or after the
// push service's Retry-After when that is longer.
func (d *dispatcher) retry(j job, s subscription, attempt int, after time.Duration) {
	if attempt > len(d.opts.RetryDelays) {
		d.app.Logger().Error("push: giving up", "notification", j.ID, "subscription", s.ID, "attempts", attempt)
		d.count(PushGaveUp)
		d.rowDone(j, attempt, pushFailed, "gave_up")
		return
	}
	wait := d.opts.RetryDelays[attempt-1]
	if after > wait {
		wait = after
	}
	if wait > d.opts.MaxRetryAfter {
		d.app.Logger().Error("push: Retry-After too far, giving up", "notification", j.ID,
			"subscription", s.ID, "retryAfter", after.String())
		d.count(PushGaveUp)
		d.rowDone(j, attempt, pushFailed, "gave_up")
		return
	}
	if d.rowLater(j, attempt, wait, "retried") {
		return
	}
	sub := s
	d.retryLater(task{job: j, sub: &sub, attempt: attempt + 1}, wait)
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if wait := time.Until(t); wait > 0 {
			return wait
		}
	}
	return 0
}
