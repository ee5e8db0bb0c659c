package notifications

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"camellos/internal/cli"
	"camellos/internal/config"
	"camellos/internal/outbox"
	"camellos/internal/writer"
	"camellos/modules/users"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
	"github.com/spf13/cobra"
)

// The push outbox (PUSH_DELIVERY=worker).
//
// With PUSH_DELIVERY=worker the web process sends no push: every push of
// a notification to one subscription is a row of push_outbox, written in
// the notification's own transaction (NotifyMany) or, for a notification
// whose delivery was queued in memory (Notify outside a transaction), by
// the dispatcher before anything else of it is delivered. `camellos push
// work`, a process apart on the same data dir, claims due rows and sends
// them through the very dispatcher the web process uses (its fair queue,
// per-origin slots and pauses, outcome counters); each outcome is written
// back to the row.
//
// The guarantee. A row is claimed with internal/outbox's conditional
// UPDATE (status PENDIENTE and the nextAttemptAt the claimer read): of two
// workers, or a worker and a restarted one, exactly one wins it, and the
// claim moves nextAttemptAt a lease (PUSH_LEASE_SECONDS) ahead. A row is
// marked ENVIADO once its push service accepted it. So a push is never
// lost (a row is written before anything is sent, and a row whose worker
// died is due again when its lease ends), and it is sent more than once
// only when a worker dies after the push service accepted it and before
// the acceptance was written: at-least-once within that window, which
// holds the rows in flight at the moment of the death plus the settle
// batch not yet committed (sent rows are marked in one transaction per
// batch, at most settleEvery apart). The Topic header of the push makes a
// repeated one replace the first at the push service while undelivered.

// Push outbox states and outcomes.
const (
	pushPending = "PENDIENTE"
	pushSent    = "ENVIADO"
	pushFailed  = "FALLIDO"
)

const (
	// pushClaimBatch is how many rows one claim transaction takes at most.
	pushClaimBatch = 500
	// settleEvery is the longest a worker holds outcomes before writing
	// them (one transaction per batch).
	settleEvery = 50 * time.Millisecond
	// keepSentPushes is how long sent and failed rows stay (then purged).
	keepSentPushes = 24 * time.Hour
	// outboxInsertChunk is how many rows one multi-row INSERT writes.
	outboxInsertChunk = 50
)

// outboxMode reports whether app's pushes go through the push outbox
// (PUSH_DELIVERY=worker).
func outboxMode(app core.App) bool {
	return config.Of(app).PushDelivery == config.PushDeliveryWorker
}

// queuePushes writes one push_outbox row per subscription of j (the
// dispatcher, after the notification committed), in one transaction that
// first checks the user is still enabled: subscriptions read before an
// erasure get no row after it.
func queuePushes(app core.App, j job, subs []subscription) error {
	if len(subs) == 0 {
		return nil
	}
	return writer.Transaction(app, func(tx core.App) error {
		if !users.Enabled(tx, j.UserID) {
			return nil
		}
		return queueOutbox(tx, []job{j}, [][]subscription{subs})
	})
}

// queueOutbox writes the push_outbox rows of jobs (jobs[i] to each of
// subs[i]) with multi-row INSERTs of outboxInsertChunk rows.
func queueOutbox(app core.App, jobs []job, subs [][]subscription) error {
	type row struct {
		j    *job
		sub  string
		data string
	}
	var rows []row
	for i := range jobs {
		if len(subs[i]) == 0 {
			continue
		}
		data, err := dataJSON(jobs[i].Data)
		if err != nil {
			return err
		}
		for _, s := range subs[i] {
			rows = append(rows, row{j: &jobs[i], sub: s.ID, data: data})
		}
	}
	now := types.NowDateTime().String()
	taken := make(map[string]bool, len(rows))
	for start := 0; start < len(rows); start += outboxInsertChunk {
		chunk := rows[start:min(start+outboxInsertChunk, len(rows))]
		var sql strings.Builder
		sql.WriteString("INSERT INTO " + colPushOutbox + " (id, user, subscription, notification, kind, title, body, url, data, " +
			"status, attempts, nextAttemptAt, doneAt, outcome, created) VALUES ")
		params := dbx.Params{"st": pushPending, "now": now}
		for i, r := range chunk {
			if i > 0 {
				sql.WriteByte(',')
			}
			p := strconv.Itoa(i)
			sql.WriteString("({:i" + p + "},{:u" + p + "},{:s" + p + "},{:n" + p + "},{:k" + p + "},{:t" + p + "},{:b" + p +
				"},{:l" + p + "},{:d" + p + "},{:st},0,{:now},'','',{:now})")
			id := newOrderedID(time.Now())
			for taken[id] {
				id = newOrderedID(time.Now())
			}
			taken[id] = true
			params["i"+p], params["u"+p], params["s"+p], params["n"+p] = id, r.j.UserID, r.sub, r.j.ID
			params["k"+p], params["t"+p], params["b"+p], params["l"+p], params["d"+p] = r.j.Kind, r.j.Title, r.j.Body, r.j.URL, r.data
		}
		if _, err := app.DB().NewQuery(sql.String()).Bind(params).Execute(); err != nil {
			return err
		}
	}
	return nil
}

// outboxPushes writes the push outbox rows of NotifyMany's jobs in its
// transaction (PUSH_DELIVERY=worker) and returns the jobs left for the
// dispatcher: those with a mail or a WhatsApp message to deliver.
func outboxPushes(app core.App, jobs []job) ([]job, error) {
	d := dispatcherOf(app)
	mail := app.Settings().SMTP.Enabled
	wa := whatsapp.Enabled(app)
	var rest, pushed []job
	var subs [][]subscription
	for _, j := range jobs {
		r := j.known
		if len(r.subs) > 0 && r.prefs.allows(j.Kind, ChannelPush) {
			j.pushQueued = true
			if d == nil || d.pushDue(j) {
				pushed = append(pushed, j)
				subs = append(subs, r.subs)
			}
		}
		if (mail && r.prefs.allows(j.Kind, ChannelEmail)) || (wa && r.phone != "" && r.prefs.allows(j.Kind, ChannelWhatsApp)) {
			rest = append(rest, j)
		}
	}
	return rest, queueOutbox(app, pushed, subs)
}

// pushRow is a due push_outbox row joined with its subscription ("" when
// the subscription was deleted meanwhile).
type pushRow struct {
	ID            string `db:"id"`
	User          string `db:"user"`
	Notification  string `db:"notification"`
	Kind          string `db:"kind"`
	Title         string `db:"title"`
	Body          string `db:"body"`
	URL           string `db:"url"`
	Data          string `db:"data"`
	Attempts      int    `db:"attempts"`
	NextAttemptAt string `db:"nextAttemptAt"`
	SubID         string `db:"subscription"`
	Endpoint      string `db:"endpoint"`
	P256dh        string `db:"p256dh"`
	Auth          string `db:"auth"`
}

// pushSender is a worker's claim loop and its batch of outcomes to write.
type pushSender struct {
	d     *dispatcher
	lease time.Duration
	loop  *outbox.Worker

	mu      sync.Mutex
	settled []settlement
	kick    chan struct{}
	done    chan struct{}
	stopped chan struct{}

	lastLog time.Time
}

// settlement is the outcome of one claimed row.
type settlement struct {
	id       string
	status   string // pushSent, pushFailed, or pushPending (again due at next)
	outcome  string
	attempts int
	next     time.Time
}

// startPushSender starts claiming and sending app's push outbox rows
// (poll: how often the outbox is read when nothing woke the loop). The
// dispatcher's stop ends it.
func startPushSender(app core.App, poll time.Duration) *pushSender {
	d := dispatcherOf(app)
	s := &pushSender{d: d, lease: time.Duration(config.Of(app).PushLeaseSeconds) * time.Second,
		kick: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{})}
	if s.lease <= 0 {
		s.lease = config.DefaultPushLeaseSeconds * time.Second
	}
	d.mu.Lock()
	d.sender = s
	d.mu.Unlock()
	go s.settleLoop()
	s.loop = outbox.Start(poll, s.sendDue, s.purge)
	return s
}

// stop ends the claim loop, then writes the outcomes still held (called by
// the dispatcher's stop once its workers ended).
func (s *pushSender) stopClaiming() { s.loop.Stop() }

func (s *pushSender) stopSettling() {
	close(s.done)
	<-s.stopped
}

// sendDue claims due rows while the dispatcher has room for them and hands
// them to it; it tells how long until the next row is due.
func (s *pushSender) sendDue(ctx context.Context) (time.Duration, bool) {
	d := s.d
	for ctx.Err() == nil {
		room := 2*d.opts.Workers - d.pendingNow()
		if room <= 0 {
			return 20 * time.Millisecond, true
		}
		n := min(room, pushClaimBatch)
		now := types.NowDateTime().String()
		var rows []pushRow
		err := d.app.DB().NewQuery("SELECT o.id AS id, o.user AS user, o.notification AS notification, o.kind AS kind, " +
			"o.title AS title, o.body AS body, o.url AS url, COALESCE(o.data, '') AS data, o.attempts AS attempts, " +
			"o.nextAttemptAt AS nextAttemptAt, o.subscription AS subscription, COALESCE(s.endpoint, '') AS endpoint, " +
			"COALESCE(s.p256dh, '') AS p256dh, COALESCE(s.auth, '') AS auth FROM " + colPushOutbox + " o " +
			"LEFT JOIN " + colSubscriptions + " s ON s.id = o.subscription " +
			"WHERE o.status = {:pending} AND o.nextAttemptAt <= {:now} ORDER BY o.nextAttemptAt LIMIT {:n}").
			Bind(dbx.Params{"pending": pushPending, "now": now, "n": 4 * n}).All(&rows)
		if err != nil {
			d.app.Logger().Error("push outbox: read failed", "error", err.Error())
			return time.Second, true
		}
		if len(rows) == 0 {
			break
		}
		// One row per user at a time (the fair queue: a user's next push
		// waits for the running one, and so does its lease), the others
		// left for the next rounds.
		pick := make([]pushRow, 0, n)
		seen := map[string]bool{}
		for _, r := range rows {
			if len(pick) == n {
				break
			}
			if seen[r.User] || d.busy(r.User) {
				continue
			}
			seen[r.User] = true
			pick = append(pick, r)
		}
		if len(pick) == 0 {
			return 20 * time.Millisecond, true
		}
		var claimed []pushRow
		err = writer.Transaction(d.app, func(tx core.App) error {
			claimed = claimed[:0]
			ids := make([]string, 0, len(pick))
			for _, r := range pick {
				if r.Endpoint == "" { // the subscription is gone: nothing to send
					_, err := tx.DB().Update(colPushOutbox, dbx.Params{"status": pushFailed, "outcome": "gone",
						"doneAt": types.NowDateTime().String()},
						dbx.HashExp{"id": r.ID, "status": pushPending, "nextAttemptAt": r.NextAttemptAt}).Execute()
					if err != nil {
						return err
					}
					continue
				}
				ids = append(ids, r.ID)
			}
			won, err := claimPushRows(tx, ids, now, s.lease)
			if err != nil {
				return err
			}
			for _, r := range pick {
				if a, ok := won[r.ID]; ok {
					r.Attempts = a
					claimed = append(claimed, r)
				}
			}
			return nil
		})
		if err != nil {
			d.app.Logger().Error("push outbox: claim failed", "error", err.Error())
			return time.Second, true
		}
		for _, r := range claimed {
			data := map[string]any{}
			if r.Data != "" {
				_ = json.Unmarshal([]byte(r.Data), &data)
			}
			sub := subscription{ID: r.SubID, Endpoint: r.Endpoint, P256dh: r.P256dh, Auth: r.Auth}
			d.enqueueTask(task{job: job{ID: r.Notification, UserID: r.User, Kind: r.Kind, Title: r.Title,
				Body: r.Body, URL: r.URL, Data: data, row: r.ID}, sub: &sub, attempt: r.Attempts + 1})
		}
		s.logStats()
	}
	return outbox.NextDue(d.app.DB(), colPushOutbox, pushPending)
}

// claimPushQuery is claimPushRows' statement.
const claimPushQuery = "UPDATE " + colPushOutbox + " SET nextAttemptAt = {:until} " +
	"WHERE id IN (SELECT value FROM json_each({:ids})) AND +status = {:pending} AND +nextAttemptAt <= {:now} " +
	"RETURNING id, attempts"

// claimPushRows claims the rows of ids that are still pending and due at
// now with one conditional UPDATE, moving their nextAttemptAt a lease
// ahead, and returns the attempts of each row it won (read in the same
// statement). A row claimed by another worker meanwhile is no longer due
// (its nextAttemptAt is a lease ahead) and a sent or failed one no longer
// pending, so of two claimers exactly one wins each row. The unary plus
// keeps SQLite on the id index (not a range of the status index, which
// holds every due row of a broadcast).
func claimPushRows(tx core.App, ids []string, now string, lease time.Duration) (map[string]int, error) {
	won := make(map[string]int, len(ids))
	if len(ids) == 0 {
		return won, nil
	}
	until, _ := types.ParseDateTime(time.Now().Add(lease))
	var rows []struct {
		ID       string `db:"id"`
		Attempts int    `db:"attempts"`
	}
	err := tx.DB().NewQuery(claimPushQuery).
		Bind(dbx.Params{"until": until.String(), "ids": idsParam(ids), "pending": pushPending, "now": now}).All(&rows)
	for _, r := range rows {
		won[r.ID] = r.Attempts
	}
	return won, err
}

// logStats logs the worker's counters at most once a minute.
func (s *pushSender) logStats() {
	if time.Since(s.lastLog) < time.Minute {
		return
	}
	s.lastLog = time.Now()
	st := Stats(s.d.app)
	args := []any{"pending", st.Pending}
	for i, name := range PushOutcomeNames() {
		args = append(args, name, st.Outcomes[i])
	}
	s.d.app.Logger().Info("push outbox: worker", args...)
}

// settle records the outcome of a claimed row (written by the settle loop
// within settleEvery).
func (s *pushSender) settle(st settlement) {
	s.mu.Lock()
	s.settled = append(s.settled, st)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// settleLoop writes the outcomes in batches until stopSettling, then
// writes what is left.
func (s *pushSender) settleLoop() {
	defer close(s.stopped)
	for {
		select {
		case <-s.done:
			s.flush()
			return
		case <-s.kick:
		}
		s.flush()
		select { // let the next outcomes gather
		case <-s.done:
			s.flush()
			return
		case <-time.After(settleEvery):
		}
	}
}

// flush writes the held outcomes in one transaction: the sent rows with
// one UPDATE, the others one each. A failed write is tried again on the
// next flush (the rows stay claimed meanwhile).
func (s *pushSender) flush() {
	s.mu.Lock()
	batch := s.settled
	s.settled = nil
	s.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	now := types.NowDateTime().String()
	err := writer.Transaction(s.d.app, func(tx core.App) error {
		var sent []string
		for _, st := range batch {
			if st.status == pushSent {
				sent = append(sent, st.id)
				continue
			}
			p := dbx.Params{"status": st.status, "outcome": st.outcome, "attempts": st.attempts}
			if st.status == pushPending {
				next, _ := types.ParseDateTime(st.next)
				p["nextAttemptAt"] = next.String()
			} else {
				p["doneAt"] = now
			}
			if _, err := tx.DB().Update(colPushOutbox, p, dbx.HashExp{"id": st.id}).Execute(); err != nil {
				return err
			}
		}
		if len(sent) == 0 {
			return nil
		}
		_, err := tx.DB().NewQuery("UPDATE " + colPushOutbox + " SET status = {:sent}, outcome = 'delivered', " +
			"attempts = attempts + 1, doneAt = {:now} WHERE id IN (SELECT value FROM json_each({:ids}))").
			Bind(dbx.Params{"sent": pushSent, "now": now, "ids": idsParam(sent)}).Execute()
		return err
	})
	if err != nil {
		s.d.app.Logger().Error("push outbox: outcomes not recorded, retrying", "rows", len(batch), "error", err.Error())
		s.mu.Lock()
		s.settled = append(batch, s.settled...)
		s.mu.Unlock()
		select {
		case <-s.done:
		case <-time.After(time.Second):
		}
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// purge drops rows done more than keepSentPushes ago.
func (s *pushSender) purge() {
	before, _ := types.ParseDateTime(time.Now().Add(-keepSentPushes))
	_, err := s.d.app.DB().Delete(colPushOutbox, dbx.And(dbx.In("status", pushSent, pushFailed),
		dbx.NewExp("doneAt < {:before}", dbx.Params{"before": before.String()}))).Execute()
	if err != nil {
		s.d.app.Logger().Warn("push outbox: purge failed", "error", err.Error())
	}
}

// rowDone settles j's row (an outbox push) as sent or failed; false when
// j is not an outbox push.
func (d *dispatcher) rowDone(j job, attempt int, status, outcome string) bool {
	if j.row == "" || d.sender == nil {
		return j.row != ""
	}
	d.sender.settle(settlement{id: j.row, status: status, outcome: outcome, attempts: attempt})
	return true
}

// rowLater makes j's row (an outbox push) due again after wait, with
// attempts pushes tried; false when j is not an outbox push.
func (d *dispatcher) rowLater(j job, attempts int, wait time.Duration, outcome string) bool {
	if j.row == "" || d.sender == nil {
		return j.row != ""
	}
	d.sender.settle(settlement{id: j.row, status: pushPending, outcome: outcome, attempts: attempts, next: time.Now().Add(wait)})
	return true
}

// PendingPushes counts app's push outbox rows not yet sent nor given up
// (the metrics' outbox depth; tests wait on it).
func PendingPushes(app core.App) (int, error) {
	var n int
	err := app.DB().Select("COUNT(*)").From(colPushOutbox).Where(dbx.HashExp{"status": pushPending}).Row(&n)
	return n, err
}

// Command is `camellos push`: `work` runs the push delivery process.
func Command(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "push", Short: "Avisos Web Push"}
	cmd.AddCommand(&cobra.Command{
		Use:   "work",
		Short: "Envía los avisos push de la cola (PUSH_DELIVERY=worker) hasta recibir SIGTERM",
		Args:  cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			cli.RunCommand(app, func() error {
				if !outboxMode(app) {
					fmt.Fprintln(c.ErrOrStderr(), "Aviso: PUSH_DELIVERY no es worker: el proceso web también envía sus avisos; este proceso solo envía los de la cola")
				}
				startPushSender(app, time.Second)
				fmt.Fprintf(c.OutOrStdout(), "Enviando avisos push de la cola (%d a la vez); SIGTERM para terminar\n", dispatcherOf(app).opts.Workers)
				return nil
			})
			select {} // until SIGTERM: Execute stops the dispatcher and exits
		},
	})
	return cmd
}
