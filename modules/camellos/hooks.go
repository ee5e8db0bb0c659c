package camellos

import (
	"camellos/internal/cities"
	"fmt"
	"strings"
	"time"

	"camellos/internal/bus"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/internal/text"
	"camellos/modules/notifications"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Trade bounds: the interface fixes 1 to 20 trades; the length of each is
// ours to decide.
const (
	MaxTrades   = 20
	MaxTradeLen = 60
)

// transitions lists the camello status changes an admin may make.
var transitions = map[string][]string{
	StatusPending:   {StatusActive, StatusRejected},
	StatusActive:    {StatusSuspended},
	StatusSuspended: {StatusActive},
}

// ValidStatus reports whether s is a camello status.
func ValidStatus(s string) bool {
	switch s {
	case StatusPending, StatusActive, StatusRejected, StatusSuspended:
		return true
	}
	return false
}

// CanTransition reports whether a camello may move from one status to another.
func CanTransition(from, to string) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// TransitionError is the Spanish message for a refused status change.
func TransitionError(from, to string) string {
	return fmt.Sprintf("Transición de estado no permitida: %s → %s", from, to)
}

// NormalizeTrades trims the trades, drops repeats (accent- and
// case-insensitively) and checks the bounds; the message is "" when valid.
func NormalizeTrades(in []string) ([]string, string) {
	if len(in) > MaxTrades { // the bound is on the elements sent, repeats included
		return nil, fmt.Sprintf("Debe tener entre 1 y %d oficios", MaxTrades)
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, "Los oficios no pueden estar vacíos"
		}
		if text.Chars(t) > MaxTradeLen {
			return nil, fmt.Sprintf("Cada oficio debe tener como máximo %d caracteres", MaxTradeLen)
		}
		if k := text.Fold(t); !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	if len(out) < 1 || len(out) > MaxTrades {
		return nil, fmt.Sprintf("Debe tener entre 1 y %d oficios", MaxTrades)
	}
	return out, ""
}

// DefaultTimezone is the zone of new camellos (APP_TIMEZONE, else Bogotá).
func DefaultTimezone(app core.App) string {
	if tz := config.Of(app).Timezone; tz != "" {
		if _, err := time.LoadLocation(tz); err == nil {
			return tz
		}
	}
	return "America/Bogota"
}

// bindHooks keeps the camello invariants wherever a camello is saved (our
// routes, the dashboard, the generic API): trades bounds, allowed status
// transitions, default zone, the folded search columns, and the
// CAMELLO_STATUS notification.
func bindHooks(app core.App) {
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		rec := e.Record
		if name := rec.GetString("name"); name != "" && name != rec.Original().GetString("name") && !text.Visible(name) {
			return httpapi.FieldRuleError("name", httpapi.MsgNoVisibleLetter)
		}
		trades, msg := NormalizeTrades(Trades(rec))
		if msg != "" {
			return httpapi.FieldRuleError("trades", msg)
		}
		rec.Set("trades", trades)

		status := rec.GetString("status")
		if status == "" {
			status = StatusPending
			rec.Set("status", status)
		}
		if status != StatusRejected {
			rec.Set("rejectionReason", "") // the reason of a rejection ends with it
		}
		if !rec.IsNew() {
			if from := records.Stored(e.App, rec).GetString("status"); from != status && !CanTransition(from, status) {
				return httpapi.FieldRuleError("status", TransitionError(from, status))
			}
		}
		if tz := rec.GetString("timezone"); tz == "" {
			rec.Set("timezone", DefaultTimezone(app))
		} else if _, err := time.LoadLocation(tz); err != nil {
			return httpapi.FieldRuleError("timezone", "Zona horaria desconocida")
		}

		names, err := serviceNames(e.App, rec.GetStringSlice("services"))
		if err != nil {
			return err
		}
		rec.Set(FieldCity, cities.Canonical(rec.GetString(FieldCity))) // one spelling per city (issue 24)
		rec.Set("cityKey", text.Fold(rec.GetString("city")))
		rec.Set("searchText", text.Fold(strings.Join(append([]string{
			rec.GetString("name"), strings.Join(trades, " "), rec.GetString("city"),
			rec.GetString("neighborhood"), rec.GetString("description"),
		}, names...), " ")))
		return e.Next()
	})

	app.OnRecordUpdate(Collection).BindFunc(func(e *core.RecordEvent) error {
		stored := records.Stored(e.App, e.Record)
		from := stored.GetString("status")
		recordReview(e.Record, stored)
		if err := e.Next(); err != nil {
			return err
		}
		if to := e.Record.GetString("status"); to != from {
			return notifications.Notify(e.App, e.Record.GetString("user"), notifications.Message{
				Kind:  notifications.KindCamelloStatus,
				Title: statusTitle(to),
				Body:  statusBodyOf(e.Record),
				URL:   "/camello.html?id=" + e.Record.Id,
				Data:  map[string]any{"camelloId": e.Record.Id, "status": to},
			})
		}
		return nil
	})

	// A renamed service changes the search text of the camellos offering it
	// (in the same transaction as the rename).
	bus.Of(app).ServiceSaving.BindFunc(func(e *bus.Saving) error {
		if e.Record.GetString("name") != e.Before.GetString("name") {
			if err := refreshSearchText(e.App, e.Record.Id); err != nil {
				return err
			}
		}
		return e.Next()
	})
}

func serviceNames(app core.App, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	var names []string
	err := app.DB().Select("name").From("services").Where(dbx.In("id", args...)).Column(&names)
	return names, err
}

func refreshSearchText(app core.App, serviceID string) error {
	var ids []string
	err := app.DB().Select("id").From(Collection).
		Where(dbx.Like("services", `"`+serviceID+`"`).Match(true, true)).Column(&ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		rec, err := app.FindRecordById(Collection, id)
		if err != nil {
			continue
		}
		if err := app.Save(rec); err != nil {
			return err
		}
	}
	return nil
}

func statusTitle(status string) string {
	switch status {
	case StatusActive:
		return "Tu perfil de camello está activo"
	case StatusRejected:
		return "Tu registro de camello fue rechazado"
	case StatusSuspended:
		return "Tu perfil de camello fue suspendido"
	}
	return "Tu perfil de camello cambió de estado"
}

// statusBodyOf is the status notification's text (mailed too): a
// rejection carries the admin's reason.
func statusBodyOf(rec *core.Record) string {
	if rec.GetString("status") == StatusRejected {
		if reason := strings.TrimSpace(rec.GetString("rejectionReason")); reason != "" {
			return "Motivo: " + reason + " Revisa tus datos o escríbenos para más información."
		}
	}
	return statusBody(rec.GetString("status"))
}

func statusBody(status string) string {
	switch status {
	case StatusActive:
		return "Ya apareces en el listado público y puedes recibir trabajos."
	case StatusRejected:
		return "Revisa tus datos o escríbenos para más información."
	case StatusSuspended:
		return "Tu perfil no aparece en el listado mientras esté suspendido."
	}
	return "Nuevo estado: " + status
}
