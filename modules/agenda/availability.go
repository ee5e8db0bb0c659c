package agenda

import (
	"fmt"
	"math"
	"net/http"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// MsgNoProfile answers a CAMELLOS user without a camello profile.
const MsgNoProfile = "Perfil de camello no encontrado"

// myCamello is the signed-in user's camello profile (404 without one).
func myCamello(e *core.RequestEvent) (*core.Record, error) {
	c := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if c == nil {
		return nil, httpapi.NotFound(MsgNoProfile)
	}
	return c, nil
}

func availabilityJSON(s Schedule, updated *core.Record) map[string]any {
	out := map[string]any{
		"timezone":     s.Timezone,
		"weekly":       s.Weekly,
		"blockedDates": s.Blocked,
		"updatedAt":    nil,
	}
	if updated != nil {
		out["updatedAt"] = timefmt.ISO(updated.GetDateTime("updated").Time())
	}
	return out
}

// availabilityGet handles GET /api/agenda/availability: the saved schedule,
// or an empty one in the camello's default zone.
func availabilityGet(e *core.RequestEvent) error {
	camello, err := myCamello(e)
	if err != nil {
		return err
	}
	rec := findAvailability(e.App, camello.Id)
	s := LoadSchedule(e.App, camello)
	return e.JSON(http.StatusOK, map[string]any{"availability": availabilityJSON(s, rec)})
}

type availabilityInput struct {
	Timezone     *string           `json:"timezone"`
	Weekly       *[]map[string]any `json:"weekly"`
	BlockedDates *[]string         `json:"blockedDates"`
}

// availabilityPut handles PUT /api/agenda/availability {timezone?, weekly,
// blockedDates?}: weekly is required and replaces the saved ranges; an
// absent timezone or blockedDates keeps the saved value (or the default).
func availabilityPut(e *core.RequestEvent) error {
	camello, err := myCamello(e)
	if err != nil {
		return err
	}
	var in availabilityInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	current := LoadSchedule(e.App, camello)
	tz, blocked := current.Timezone, current.Blocked
	if in.Timezone != nil {
		tz = *in.Timezone
	}
	if in.BlockedDates != nil {
		blocked = *in.BlockedDates
	}
	v := httpapi.NewValidation()
	var weekly []WeeklyRange
	if in.Weekly == nil {
		v.Add("weekly", "Es obligatorio (una lista, puede estar vacía)")
	} else {
		weekly = readRanges(v, *in.Weekly)
	}
	if !v.OK() {
		return v.Err()
	}
	s := CheckSchedule(v, tz, weekly, blocked)
	if err := v.Err(); err != nil {
		return err
	}
	var saved *core.Record
	err = e.App.RunInTransaction(func(txApp core.App) error {
		rec := findAvailability(txApp, camello.Id)
		if rec == nil {
			col, err := txApp.FindCachedCollectionByNameOrId(AvailabilityCollection)
			if err != nil {
				return err
			}
			rec = core.NewRecord(col)
			rec.Set("camello", camello.Id)
		}
		rec.Set("timezone", s.Timezone)
		rec.Set("weekly", s.Weekly)
		rec.Set("blockedDates", s.Blocked)
		saved = rec
		return txApp.Save(rec)
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"availability": availabilityJSON(s, saved)})
}

// readRanges turns the request's range objects into WeeklyRange values,
// with a field error for each member of the wrong type.
func readRanges(v *httpapi.Validation, list []map[string]any) []WeeklyRange {
	out := make([]WeeklyRange, 0, len(list))
	for i, item := range list {
		field := fmt.Sprintf("weekly.%d", i)
		if item == nil {
			v.Add(field, "Debe ser un objeto {weekday, start, end}")
			continue
		}
		var w WeeklyRange
		switch n := item["weekday"].(type) {
		case float64:
			if n != math.Trunc(n) {
				v.Add(field+".weekday", "Debe ser un número entero de 0 a 6")
			}
			w.Weekday = int(n)
		case nil:
			v.Add(field+".weekday", "Es obligatorio")
		default:
			v.Add(field+".weekday", "Debe ser un número entero de 0 a 6")
		}
		for _, key := range []string{"start", "end"} {
			s, ok := item[key].(string)
			switch {
			case item[key] == nil:
				v.Add(field+"."+key, "Es obligatorio")
			case !ok:
				v.Add(field+"."+key, "Debe ser un texto HH:MM")
			case key == "start":
				w.Start = s
			default:
				w.End = s
			}
		}
		out = append(out, w)
	}
	return out
}
