package jobs

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"camellos/internal/cli"
	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Reminder settings and messages (endpoint 5).
const (
	MsgRemindersOff = "Recordatorios no configurados"

	// ReminderWindow: appointments starting within it are reminded.
	ReminderWindow = 24 * time.Hour
	// DefaultReminderSchedule is the built-in sweep's cron expression.
	DefaultReminderSchedule = "*/15 * * * *"
	// reminderBatch is how many appointments one transaction claims.
	reminderBatch = 5000
)

// dueAppointment is what a reminder needs of an appointment: its columns
// as read by appointments.DueQuery and, in the same statement
// (dueColumns), the camello's user and time zone (its availability's,
// else its profile's) as "user|zone" (user ids have no "|") and the job's
// title.
type dueAppointment struct {
	RowID       int64  `db:"rid"`
	ID          string `db:"id"`
	Job         string `db:"job"`
	Camello     string `db:"camello"`
	Client      string `db:"client"`
	Start       string `db:"start"` // as stored
	CamelloInfo string `db:"camelloInfo"`
	Title       string `db:"title"`
}

// camello is the camello's user and time zone.
func (a dueAppointment) camello() (user, zone string) {
	user, zone, _ = strings.Cut(a.CamelloInfo, "|")
	return user, zone
}

// dueColumns are the columns a reminder reads besides the appointment's
// own, for the appointments row a.
const dueColumns = ", COALESCE((SELECT c.user || '|' || COALESCE(NULLIF(av.timezone, ''), c.timezone, '') FROM camellos c " +
	"LEFT JOIN availability av ON av.camello = c.id WHERE c.id = a.camello), '') AS camelloInfo, " +
	"COALESCE((SELECT j.title FROM jobs j WHERE j.id = a.job), '') AS title"

// describeDueQuery reads the appointments of {:ids} (a JSON array) as
// dueAppointment rows, for those a claim changed that were not read before
// it (see claimedDue).
const describeDueQuery = "SELECT a.rowid AS rid, a.id AS id, a.job AS job, a.camello AS camello, a.client AS client, a.start AS start" +
	dueColumns + " FROM appointments a WHERE a.id IN (SELECT value FROM json_each({:ids}))"

// dueBatch is one batch of due appointments read before its claim, with
// the recipients of their reminders and the reminders themselves, checked
// and rendered (prep; item i reminds of due[of[i]]).
type dueBatch struct {
	due    []dueAppointment
	recips notifications.Recipients
	prep   *notifications.Prepared
	of     []int32
	err    error
	last   bool // no batch after this one
}

// readDueBatch reads, without claiming them, the next reminderBatch due
// appointments after the cursor (afterStart, afterRow) and their
// recipients, and prepares their reminders (zones: the time zones loaded
// so far, of this reader only).
func readDueBatch(app core.App, now, until time.Time, afterStart string, afterRow int64, zones map[string]*time.Location) dueBatch {
	var b dueBatch
	b.err = app.DB().NewQuery(appointments.DueQuery(dueColumns)).
		Bind(appointments.DueParams(now, until, afterStart, afterRow, reminderBatch)).All(&b.due)
	b.last = b.err != nil || len(b.due) < reminderBatch
	if b.err != nil || len(b.due) == 0 {
		return b
	}
	users := make([]string, 0, 2*len(b.due))
	seen := make(map[string]bool, 2*len(b.due))
	for _, a := range b.due {
		camelloUser, _ := a.camello()
		for _, u := range []string{a.Client, camelloUser} {
			if u != "" && !seen[u] {
				seen[u] = true
				users = append(users, u)
			}
		}
	}
	if b.recips, b.err = notifications.ReadRecipients(app, users); b.err != nil {
		return b
	}
	fallback := config.Of(app).Zone()
	items := make([]notifications.Addressed, 0, 2*len(b.due))
	b.of = make([]int32, 0, 2*len(b.due))
	for i, a := range b.due {
		items = appendReminders(items, a, zones, fallback)
		for len(b.of) < len(items) {
			b.of = append(b.of, int32(i))
		}
	}
	b.prep, b.err = notifications.Prepare(items, b.recips)
	return b
}

// readDue sends the due appointments to out batch by batch, in start
// order, then closes it; it stops early when stop closes. Outside a
// transaction it runs beside the writer, which claims batch k while this
// reads batch k+1 on another connection.
func readDue(app core.App, now, until time.Time, out chan<- dueBatch, stop <-chan struct{}) {
	defer close(out)
	afterStart, afterRow := "", int64(0)
	zones := map[string]*time.Location{}
	for {
		b := readDueBatch(app, now, until, afterStart, afterRow, zones)
		if b.err == nil && len(b.due) == 0 {
			return
		}
		select {
		case out <- b:
		case <-stop:
			return
		}
		if b.last {
			return
		}
		last := b.due[len(b.due)-1]
		afterStart, afterRow = last.Start, last.RowID
	}
}

// claimedItems says which of b's prepared reminders are of the
// appointments the claim changed (ids); false when one of those was not
// read (see claimedDue).
func claimedItems(b dueBatch, ids []string) ([]bool, bool) {
	claimed := make(map[string]bool, len(ids))
	for _, id := range ids {
		claimed[id] = true
	}
	read := make([]bool, len(b.due))
	n := 0
	for i, a := range b.due {
		if claimed[a.ID] {
			read[i] = true
			n++
		}
	}
	if n != len(claimed) {
		return nil, false
	}
	keep := make([]bool, len(b.of))
	for i, at := range b.of {
		keep[i] = read[at]
	}
	return keep, true
}

// claimedDue keeps the appointments of read that the claim changed (ids),
// in start order, reading those it changed but had not read (a rowid
// renumbered by a VACUUM between the read and the claim).
func claimedDue(app core.App, read []dueAppointment, ids []string) ([]dueAppointment, error) {
	claimed := make(map[string]bool, len(ids))
	for _, id := range ids {
		claimed[id] = true
	}
	out := make([]dueAppointment, 0, len(ids))
	for _, a := range read {
		if claimed[a.ID] {
			out = append(out, a)
			delete(claimed, a.ID)
		}
	}
	if len(claimed) == 0 {
		return out, nil
	}
	missing := make([]string, 0, len(claimed))
	for id := range claimed {
		missing = append(missing, id)
	}
	raw, _ := json.Marshal(missing)
	var more []dueAppointment
	if err := app.DB().NewQuery(describeDueQuery).Bind(dbx.Params{"ids": string(raw)}).All(&more); err != nil {
		return nil, err
	}
	out = append(out, more...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

// SendReminders reminds every PROGRAMADA appointment starting in (now,
// now+24h] whose reminder was not sent, and returns how many it marked.
// It works in batches of reminderBatch, in start order: a reader reads
// batch k+1 (the appointments, what their reminders show and the
// recipients' preferences, one query each) on its own connection while
// the writer runs batch k's transaction, which claims the batch's rows
// with one conditional UPDATE (appointments.ClaimListed: only rows this
// sweep changed count) and writes the client's and the camello's inbox
// notifications. Concurrent or repeated sweeps never remind twice; a
// crash rolls back the claim with its notifications, so nothing is lost;
// memory holds two batches at a time. An appointment booked into the
// window behind the reader's cursor while it runs waits for the next
// sweep.
func SendReminders(app core.App, now time.Time) (int, error) {
	now = now.UTC()
	until := now.Add(ReminderWindow)
	sent := 0
	fallback := config.Of(app).Zone()
	zones := map[string]*time.Location{}
	batches := make(chan dueBatch, 1)
	stop := make(chan struct{})
	var ckpt *writer.Checkpoints // the batches' checkpoints run beside the writer
	if app.TxInfo() == nil {
		go readDue(app, now, until, batches, stop)
		ckpt = writer.DeferCheckpoints(app)
		defer func() {
			close(stop)
			for range batches { // wait for the reader to end
			}
			if err := ckpt.Done(); err != nil {
				app.Logger().Error("reminder sweep: the writer's autocheckpoint not restored", "error", err.Error())
			}
		}()
	} else { // one connection: read each batch before its claim
		close(batches)
		batches = nil
	}
	afterStart, afterRow := "", int64(0)
	for {
		var b dueBatch
		if batches != nil {
			var ok bool
			if b, ok = <-batches; !ok {
				return sent, nil
			}
		} else {
			b = readDueBatch(app, now, until, afterStart, afterRow, zones)
			if b.err == nil && len(b.due) == 0 {
				return sent, nil
			}
		}
		if b.err != nil {
			return sent, b.err
		}
		claimed := 0
		err := writer.Transaction(app, func(txApp core.App) error {
			claimed = 0
			if ckpt != nil {
				if err := ckpt.Hold(txApp); err != nil {
					return err
				}
			}
			rowids := make([]int64, len(b.due))
			for i, a := range b.due {
				rowids[i] = a.RowID
			}
			ids, err := appointments.ClaimListed(txApp, rowids, now, until)
			if err != nil || len(ids) == 0 {
				return err
			}
			if keep, ok := claimedItems(b, ids); ok { // every one claimed was read: its reminders are ready
				if err := notifications.NotifyPrepared(txApp, b.prep, keep); err != nil {
					return err
				}
				claimed = len(ids)
				return nil
			}
			due, err := claimedDue(txApp, b.due, ids)
			if err != nil {
				return err
			}
			items := make([]notifications.Addressed, 0, 2*len(due))
			for _, a := range due {
				items = appendReminders(items, a, zones, fallback)
			}
			if err := notifications.NotifyManyKnown(txApp, items, b.recips); err != nil {
				return err
			}
			claimed = len(due)
			return nil
		})
		if err != nil {
			return sent, err
		}
		if ckpt != nil {
			ckpt.Committed()
		}
		sent += claimed
		remindersCounter(app).Add(int64(claimed))
		if b.last {
			return sent, nil
		}
		last := b.due[len(b.due)-1]
		afterStart, afterRow = last.Start, last.RowID
	}
}

const storeKeyRemindersSent = "camellos.jobs.remindersSent"

func remindersCounter(app core.App) *atomic.Int64 {
	return app.Store().GetOrSet(storeKeyRemindersSent, func() any { return &atomic.Int64{} }).(*atomic.Int64)
}

// RemindersSent is how many appointments this process reminded since it
// started (the sweep, the cron route and the CLI), for the metrics.
func RemindersSent(app core.App) int64 { return remindersCounter(app).Load() }

// appendReminders adds the client's and the camello's reminder of a to
// items; zones caches the time zones already loaded.
func appendReminders(items []notifications.Addressed, a dueAppointment, zones map[string]*time.Location, fallback string) []notifications.Addressed {
	camelloUser, zone := a.camello()
	when := a.Start
	if t, err := time.Parse(timefmt.DBLayout, a.Start); err == nil {
		loc, ok := zones[zone]
		if !ok {
			loc = ReminderLocation(zone, fallback)
			zones[zone] = loc
		}
		when = t.In(loc).Format("02/01/2006 15:04") + " (" + loc.String() + ")"
	}
	data := map[string]any{"appointmentId": a.ID, "jobId": a.Job, "camelloId": a.Camello}
	body := "Tienes una cita el " + when
	if a.Title != "" {
		body += " para el trabajo: " + a.Title
	}
	msg := notifications.Message{
		Kind:  notifications.KindAppointmentReminder,
		Title: "Recordatorio de cita",
		Body:  body,
		URL:   JobURL(a.Job),
		Data:  data,
	}
	for _, user := range []string{a.Client, camelloUser} {
		if user != "" {
			items = append(items, notifications.Addressed{UserID: user, Message: msg})
		}
	}
	return items
}

// ReminderLocation is the zone a reminder shows times in: the camello's
// availability zone (or its profile's), else fallback (the configured
// zone, config.Zone), else America/Bogota.
func ReminderLocation(name, fallback string) *time.Location {
	for _, n := range []string{name, fallback, config.DefaultTimezone} {
		if n == "" || n == "Local" {
			continue
		}
		if loc, err := time.LoadLocation(n); err == nil {
			return loc
		}
	}
	return time.UTC
}

// remindersSweepCron handles POST /api/cron/appointment-reminders (endpoint 5):
// 503 without CRON_SECRET, 401 "No autorizado" without the right bearer
// (compared in constant time), else 200 {sent}.
func remindersSweepCron(e *core.RequestEvent) error {
	secret := config.Of(e.App).CronSecret
	if secret == "" {
		return httpapi.NewError(http.StatusServiceUnavailable, MsgRemindersOff)
	}
	auth := e.Request.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	want, got := sha256.Sum256([]byte(secret)), sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !ok {
		return httpapi.Unauthorized(httpapi.MsgUnauthorized)
	}
	sent, err := SendReminders(e.App, clock.Now(e.App))
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"sent": sent})
}

// scheduleReminders runs the sweep on PocketBase's scheduler with
// REMINDERS_SCHEDULE (default every 15 minutes; "off" disables it).
func scheduleReminders(app core.App) {
	cfg := config.Of(app)
	if cfg.RemindersOff() {
		return
	}
	expr := cfg.RemindersSchedule
	app.Cron().MustAdd("appointmentReminders", expr, func() {
		sent, err := SendReminders(app, clock.Now(app))
		if err != nil {
			app.Logger().Error("appointment reminders failed", "error", err.Error())
			return
		}
		if sent > 0 {
			app.Logger().Info("appointment reminders sent", "sent", sent)
		}
	})
}

// RemindersCommand is the CLI `reminders send`: one sweep now, printing how
// many appointments were reminded; exits non-zero on failure.
func RemindersCommand(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "reminders", Short: "Recordatorios de citas"}
	cmd.AddCommand(&cobra.Command{
		Use:   "send",
		Short: "Envía los recordatorios de las citas de las próximas 24 horas",
		Args:  cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			cli.RunCommand(app, func() error {
				sent, err := SendReminders(app, clock.Now(app))
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "Recordatorios enviados: %d\n", sent)
				return nil
			})
		},
	})
	return cmd
}
