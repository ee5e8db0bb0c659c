package jobs

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"camellos/hooks"
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
	reminderBatch = 500
)

// dueAppointment is what a reminder needs of an appointment.
type dueAppointment struct {
	ID          string `db:"id"`
	Job         string `db:"job"`
	Camello     string `db:"camello"`
	Client      string `db:"client"`
	CamelloUser string `db:"camelloUser"`
	Start       string `db:"start"`
	Title       string `db:"title"`
	Timezone    string `db:"timezone"`
}

// SendReminders reminds every PROGRAMADA appointment starting in (now,
// now+24h] whose reminder was not sent, and returns how many it marked.
// It works in batches, one transaction each: a single conditional UPDATE
// claims up to reminderBatch due appointments whose reminderSentAt is
// still empty (RETURNING the ids it changed, so only rows this sweep
// changed count), then the client's and the camello's inbox notifications
// are written in the same transaction. Concurrent or repeated sweeps never
// remind twice; a crash rolls back the claim with its notifications, so
// nothing is lost; memory holds one batch at a time.
func SendReminders(app core.App, now time.Time) (int, error) {
	now = now.UTC()
	params := dbx.Params{
		"now":   DBTimeOf(now),
		"until": DBTimeOf(now.Add(ReminderWindow)),
		"limit": reminderBatch,
	}
	sent := 0
	for {
		claimed := 0
		err := app.RunInTransaction(func(txApp core.App) error {
			claimed = 0
			var ids []string
			err := txApp.DB().NewQuery(
				"UPDATE appointments SET reminderSentAt = {:now}, updated = {:now} " +
					"WHERE id IN (SELECT id FROM appointments " +
					"WHERE status = 'PROGRAMADA' AND reminderSentAt = '' " +
					"AND start > {:now} AND start <= {:until} ORDER BY start LIMIT {:limit}) " +
					"AND reminderSentAt = '' AND status = 'PROGRAMADA' " +
					"RETURNING id").Bind(params).Column(&ids)
			if err != nil || len(ids) == 0 {
				return err
			}
			in := make([]any, len(ids))
			for i, id := range ids {
				in[i] = id
			}
			var due []dueAppointment
			err = txApp.DB().Select("a.id AS id", "a.job AS job", "a.camello AS camello", "a.client AS client",
				"COALESCE(c.user, '') AS camelloUser", "a.start AS start", "COALESCE(j.title, '') AS title",
				"COALESCE(NULLIF(av.timezone, ''), c.timezone, '') AS timezone").
				From("appointments a").
				LeftJoin("camellos c", dbx.NewExp("c.id = a.camello")).
				LeftJoin("jobs j", dbx.NewExp("j.id = a.job")).
				LeftJoin("availability av", dbx.NewExp("av.camello = a.camello")).
				Where(dbx.In("a.id", in...)).OrderBy("a.start").All(&due)
			if err != nil {
				return err
			}
			for _, a := range due {
				if err := notifyReminder(txApp, a); err != nil {
					return err
				}
			}
			claimed = len(ids)
			return nil
		})
		if err != nil {
			return sent, err
		}
		sent += claimed
		if claimed < reminderBatch {
			return sent, nil
		}
	}
}

// notifyReminder writes the client's and the camello's reminder.
func notifyReminder(app core.App, a dueAppointment) error {
	when := a.Start
	if t, err := time.Parse(DBTime, a.Start); err == nil {
		loc := ReminderLocation(a.Timezone)
		when = t.In(loc).Format("02/01/2006 15:04") + " (" + loc.String() + ")"
	}
	data := map[string]any{"appointmentId": a.ID, "jobId": a.Job, "camelloId": a.Camello}
	body := "Tienes una cita el " + when
	if a.Title != "" {
		body += " para el trabajo: " + a.Title
	}
	for _, user := range []string{a.Client, a.CamelloUser} {
		if user == "" {
			continue
		}
		err := notifications.Notify(app, user, notifications.Message{
			Kind:  notifications.KindAppointmentReminder,
			Title: "Recordatorio de cita",
			Body:  body,
			URL:   JobURL(a.Job),
			Data:  data,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ReminderLocation is the zone a reminder shows times in: the camello's
// availability zone (or its profile's), else APP_TIMEZONE, else
// America/Bogota.
func ReminderLocation(name string) *time.Location {
	for _, n := range []string{name, os.Getenv("APP_TIMEZONE"), "America/Bogota"} {
		if n == "" || n == "Local" {
			continue
		}
		if loc, err := time.LoadLocation(n); err == nil {
			return loc
		}
	}
	return time.UTC
}

// remindersCron handles POST /api/cron/appointment-reminders (endpoint 5):
// 503 without CRON_SECRET, 401 "No autorizado" without the right bearer
// (compared in constant time), else 200 {sent}.
func remindersCron(e *core.RequestEvent) error {
	secret := os.Getenv("CRON_SECRET")
	if secret == "" {
		return hooks.NewError(http.StatusServiceUnavailable, MsgRemindersOff)
	}
	auth := e.Request.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	want, got := sha256.Sum256([]byte(secret)), sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !ok {
		return hooks.Unauthorized(hooks.MsgUnauthorized)
	}
	sent, err := SendReminders(e.App, Now(e.App))
	if err != nil {
		return hooks.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"sent": sent})
}

// scheduleReminders runs the sweep on PocketBase's scheduler with
// REMINDERS_SCHEDULE (default every 15 minutes; "off" disables it).
func scheduleReminders(app core.App) {
	expr := strings.TrimSpace(os.Getenv("REMINDERS_SCHEDULE"))
	if expr == "" {
		expr = DefaultReminderSchedule
	}
	if strings.EqualFold(expr, "off") {
		return
	}
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
			hooks.RunCommand(app, func() error {
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
