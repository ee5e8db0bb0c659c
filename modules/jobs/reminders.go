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
	"camellos/internal/config"
	"camellos/internal/httpapi"
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
	reminderBatch = 2000
)

// dueAppointment is what a reminder needs of an appointment.
type dueAppointment struct {
	appointments.Due
	CamelloUser string
	Title       string
	Timezone    string
}

// SendReminders reminds every PROGRAMADA appointment starting in (now,
// now+24h] whose reminder was not sent, and returns how many it marked.
// It works in batches, one transaction each: a single conditional UPDATE
// claims up to reminderBatch due appointments whose reminderSentAt is
// still empty (appointments.ClaimDue: only rows this sweep changed
// count), then the client's and the camello's inbox notifications
// are written in the same transaction. Concurrent or repeated sweeps never
// remind twice; a crash rolls back the claim with its notifications, so
// nothing is lost; memory holds one batch at a time.
func SendReminders(app core.App, now time.Time) (int, error) {
	now = now.UTC()
	sent := 0
	for {
		claimed := 0
		err := app.RunInTransaction(func(txApp core.App) error {
			claimed = 0
			claims, err := appointments.ClaimDue(txApp, now, now.Add(ReminderWindow), reminderBatch)
			if err != nil || len(claims) == 0 {
				return err
			}
			due := make([]dueAppointment, len(claims))
			for i, c := range claims {
				due[i].Due = c
			}
			if err := describeDue(txApp, due); err != nil {
				return err
			}
			items := make([]notifications.Addressed, 0, 2*len(due))
			zones := map[string]*time.Location{}
			fallback := config.Of(app).Zone()
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

// describeDue completes the claimed appointments with what their
// reminders show (the camello's user and time zone, the job's title) by
// reading each distinct camello and job once, and sorts them by start.
func describeDue(app core.App, due []dueAppointment) error {
	camelloIDs, jobIDs := []string{}, []string{}
	seen := map[string]bool{}
	for _, a := range due {
		if !seen["c"+a.Camello] {
			seen["c"+a.Camello] = true
			camelloIDs = append(camelloIDs, a.Camello)
		}
		if !seen["j"+a.Job] {
			seen["j"+a.Job] = true
			jobIDs = append(jobIDs, a.Job)
		}
	}
	var cams []struct {
		ID       string `db:"id"`
		User     string `db:"user"`
		Timezone string `db:"timezone"`
	}
	err := app.DB().NewQuery("SELECT c.id AS id, c.user AS user, " +
		"COALESCE(NULLIF(av.timezone, ''), c.timezone, '') AS timezone FROM camellos c " +
		"LEFT JOIN availability av ON av.camello = c.id " +
		"WHERE c.id IN (SELECT value FROM json_each({:ids}))").
		Bind(dbx.Params{"ids": jsonList(camelloIDs)}).All(&cams)
	if err != nil {
		return err
	}
	var titles []struct {
		ID    string `db:"id"`
		Title string `db:"title"`
	}
	err = app.DB().NewQuery("SELECT id, title FROM jobs WHERE id IN (SELECT value FROM json_each({:ids}))").
		Bind(dbx.Params{"ids": jsonList(jobIDs)}).All(&titles)
	if err != nil {
		return err
	}
	camUser, camZone, jobTitle := map[string]string{}, map[string]string{}, map[string]string{}
	for _, c := range cams {
		camUser[c.ID], camZone[c.ID] = c.User, c.Timezone
	}
	for _, j := range titles {
		jobTitle[j.ID] = j.Title
	}
	for i := range due {
		a := &due[i]
		a.CamelloUser, a.Timezone, a.Title = camUser[a.Camello], camZone[a.Camello], jobTitle[a.Job]
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].Start < due[j].Start })
	return nil
}

// appendReminders adds the client's and the camello's reminder of a to
// items; zones caches the time zones already loaded.
func appendReminders(items []notifications.Addressed, a dueAppointment, zones map[string]*time.Location, fallback string) []notifications.Addressed {
	when := a.Start
	if t, err := time.Parse(DBTime, a.Start); err == nil {
		loc, ok := zones[a.Timezone]
		if !ok {
			loc = ReminderLocation(a.Timezone, fallback)
			zones[a.Timezone] = loc
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
	for _, user := range []string{a.Client, a.CamelloUser} {
		if user != "" {
			items = append(items, notifications.Addressed{UserID: user, Message: msg})
		}
	}
	return items
}

// jsonList is ids as a JSON array, one bound value read with json_each.
func jsonList(ids []string) string {
	raw, _ := json.Marshal(ids)
	return string(raw)
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
	sent, err := SendReminders(e.App, Now(e.App))
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
		sent, err := SendReminders(app, Now(app))
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
				sent, err := SendReminders(app, Now(app))
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
