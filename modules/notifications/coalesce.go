package notifications

import (
	"fmt"
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// coalescedKinds are the kinds whose pushes are coalesced per recipient and
// job: at most one push per window, while the inbox keeps every item.
var coalescedKinds = map[string]time.Duration{
	KindMessage: 5 * time.Minute,
}

// coalescer remembers, per recipient and job, when the last push of a
// coalesced kind went out (state of one dispatcher, so of one app).
type coalescer struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// pushDue reports whether the push of j may go out now, and if so records
// it: always for kinds that are not coalesced; for coalesced ones, only when
// no push of that kind reached the same recipient about the same job within
// the window.
func (d *dispatcher) pushDue(j job) bool {
	window, ok := coalescedKinds[j.Kind]
	if !ok {
		return true
	}
	key := j.UserID + "|" + j.Kind + "|" + fmt.Sprint(j.Data["jobId"])
	now := time.Now()
	c := &d.coalesce
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]time.Time{}
	}
	if at, seen := c.last[key]; seen && now.Sub(at) < window {
		return false
	}
	for k, at := range c.last { // forget what can no longer hold a push back
		if now.Sub(at) >= window {
			delete(c.last, k)
		}
	}
	c.last[key] = now
	return true
}

// InboxJSON renders a notification record as the API's notification object
// ({id, kind, title, body, url, data, readAt, createdAt}); the live events
// stream sends it.
func InboxJSON(rec *core.Record) map[string]any { return notificationJSON(rec) }

// Collection is the name of the inbox collection (read-only to other areas).
const Collection = colNotifications

// MailWindow is how often, at most, one conversation mails one recipient:
// the first message of a burst is mailed at once; the ones that follow
// within the window are counted and mailed together, once, when it ends.
const MailWindow = 15 * time.Minute

// mailCoalescedKinds are the kinds whose mails are coalesced per recipient
// and conversation (the job and its camello's thread).
var mailCoalescedKinds = map[string]bool{KindMessage: true}

// mailBatch is one conversation's mails to one recipient: when the last
// one went out, and the messages held back since (count, the latest).
type mailBatch struct {
	sentAt time.Time
	count  int
	last   job
	timer  *time.Timer
}

// mailCoalescer holds the batches of one dispatcher (in memory, per
// process: a restart mails the next message at once; the inbox keeps
// every message anyway).
type mailCoalescer struct {
	mu      sync.Mutex
	batches map[string]*mailBatch
}

// mailKey is the conversation of a coalesced mail for its recipient.
func mailKey(j job) string {
	return j.UserID + "|" + j.Kind + "|" + fmt.Sprint(j.Data["jobId"]) + "|" + fmt.Sprint(j.Data["camelloId"])
}

// mail sends j's e-mail, coalescing the kinds of mailCoalescedKinds: at
// most one mail per conversation and recipient per MailWindow; the
// messages held back go out in one mail with their count when the window
// ends.
func (d *dispatcher) mail(j job) { d.digest(&d.mails, j, d.sendEmail) }

// digest sends j with send, coalescing the kinds of mailCoalescedKinds per
// conversation and recipient in c (the mails' or the WhatsApp messages'):
// the first of a burst at once, the ones within MailWindow after it held
// back and sent once, with their count, when the window ends.
func (d *dispatcher) digest(c *mailCoalescer, j job, send func(job)) {
	if !mailCoalescedKinds[j.Kind] {
		send(j)
		return
	}
	key, now := mailKey(j), time.Now()
	c.mu.Lock()
	if c.batches == nil {
		c.batches = map[string]*mailBatch{}
	}
	if len(c.batches) > 1024 { // forget batches that can no longer hold a mail back
		for k, b := range c.batches {
			if b.count == 0 && now.Sub(b.sentAt) >= MailWindow {
				delete(c.batches, k)
			}
		}
	}
	b := c.batches[key]
	if b == nil || (b.count == 0 && now.Sub(b.sentAt) >= MailWindow) {
		c.batches[key] = &mailBatch{sentAt: now}
		c.mu.Unlock()
		send(j)
		return
	}
	b.count++
	if j.seq >= b.last.seq {
		b.last = j
	}
	if b.timer == nil {
		wait := MailWindow - now.Sub(b.sentAt)
		b.timer = time.AfterFunc(max(wait, 0), func() { d.flushDigest(c, key, send) })
	}
	c.mu.Unlock()
}

// flushDigest sends the messages held back in c's batch key, with their
// count (job.count), and starts a new window.
func (d *dispatcher) flushDigest(c *mailCoalescer, key string, send func(job)) {
	c.mu.Lock()
	b := c.batches[key]
	if b == nil || b.count == 0 {
		c.mu.Unlock()
		return
	}
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	n, j := b.count, b.last
	b.count, b.last, b.sentAt = 0, job{}, time.Now()
	c.mu.Unlock()
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return
	}
	d.wg.Add(1)
	d.mu.Unlock()
	defer d.wg.Done()
	j.count = n
	send(j)
}

// digestMail is the mail of a digest: its count in the subject, the latest
// message as the text.
func digestMail(j job) job {
	if j.count == 0 {
		return j
	}
	j.Title = fmt.Sprintf("%s (%d %s)", j.Title, j.count, map[bool]string{true: "mensaje nuevo", false: "mensajes nuevos"}[j.count == 1])
	j.Body = "Último mensaje: " + j.Body
	return j
}

// flushMails sends every digest held back now, mails and WhatsApp
// messages (tests; the timers do it when the windows end).
func (d *dispatcher) flushMails() {
	for _, c := range []struct {
		c    *mailCoalescer
		send func(job)
	}{{&d.mails, d.sendEmail}, {&d.was, d.sendWhatsApp}} {
		c.c.mu.Lock()
		keys := make([]string, 0, len(c.c.batches))
		for k := range c.c.batches {
			keys = append(keys, k)
		}
		c.c.mu.Unlock()
		for _, k := range keys {
			d.flushDigest(c.c, k, c.send)
		}
	}
}
