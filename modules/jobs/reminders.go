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

// dueAppointment is what a reminder needs of an appointment: the claimed
// columns (appointments.Due) and, read once per batch by describeDue, the
// camello's user and time zone (its availability's, else its profile's)
// and the job's title.
type dueAppointment struct {
	appointments.Due
	CamelloUser string
	Zone        string
	Title       string
}

// camello is the camello's user and time zone.
func (a dueAppointment) camello() (user, zone string) { return a.CamelloUser, a.Zone }

// dueDescription is one row of describeDueQuery.
type dueDescription struct {
	ID          string `db:"id"`
	CamelloInfo string `db:"camelloInfo"`
	Title       string `db:"title"`
}

// describeDueQuery reads, in one statement for a claimed batch (the
// appointments' ids as a JSON array), each one's camello user and zone as
// "user|zone" (user ids have no "|") and its job's title.
const describeDueQuery = "SELECT a.id AS id, " +
	"COALESCE((SELECT c.user || '|' || COALESCE(NULLIF(av.timezone, ''), c.timezone, '') FROM camellos c " +
	"LEFT JOIN availability av ON av.camello = c.id WHERE c.id = a.camello), '') AS camelloInfo, " +
	"COALESCE((SELECT j.title FROM jobs j WHERE j.id = a.job), '') AS title " +
	"FROM appointments a WHERE a.id IN (SELECT value FROM json_each({:ids}))"

// describeDue completes the claimed appointments with what their
// reminders show, in one query whatever the batch's size.
func describeDue(app core.App, claimed []appointments.Due) ([]dueAppointment, error) {
	ids := make([]string, len(claimed))
	for i, d := range claimed {
		ids[i] = d.ID
	}
	raw, _ := json.Marshal(ids)
	var rows []dueDescription
	if err := app.DB().NewQuery(describeDueQuery).Bind(dbx.Params{"ids": string(raw)}).All(&rows); err != nil {
		return nil, err
	}
	byID := make(map[string]dueDescription, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := make([]dueAppointment, len(claimed))
	for i, d := range claimed {
		r := byID[d.ID]
		user, zone, _ := strings.Cut(r.CamelloInfo, "|")
		out[i] = dueAppointment{Due: d, CamelloUser: user, Zone: zone, Title: r.Title}
	}
	return out, nil
}

// SendReminders reminds every PROGRAMADA appointment starting in (now,
// now+24h] whose reminder was not sent, and returns how many it marked.
// It works in batches, one transaction each: a single conditional UPDATE
// claims up to reminderBatch due appointments whose reminderSentAt is
// still empty (appointments.ClaimDue: only rows this sweep changed
// count), one query reads what their reminders show, then the
// client's and the camello's inbox notifications are written in the same
// transaction. Concurrent or repeated sweeps never remind twice; a crash
// rolls back the claim with its notifications, so nothing is lost; memory
// holds one batch at a time.
func SendReminders(app core.App, now time.Time) (int, error) {
	now = now.UTC()
	sent := 0
	fallback := config.Of(app).Zone()
	zones := map[string]*time.Location{}
	for {
		claimed := 0
		err := app.RunInTransaction(func(txApp core.App) error {
			claimed = 0
			claimedDue, err := appointments.ClaimDue(txApp, now, now.Add(ReminderWindow), reminderBatch)
			if err != nil || len(claimedDue) == 0 {
				return err
			}
			due, err := describeDue(txApp, claimedDue)
			if err != nil {
				return err
			}
			sort.SliceStable(due, func(i, j int) bool { return due[i].Start < due[j].Start })
			items := make([]notifications.Addressed, 0, 2*len(due))
			for _, a := range due {
				items = appendReminders(items, a, zones, fallback)
			}
			if err := notifications.NotifyMany(txApp, items); err != nil {
				return err
			}
			claimed = len(due)
			return nil
		})
		if err != nil {
			return sent, err
		}
		sent += claimed
		remindersCounter(app).Add(int64(claimed))
		if claimed < reminderBatch {
			return sent, nil
		}
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
