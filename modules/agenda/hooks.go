package agenda

import (
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
)

// bindHooks keeps availability valid whatever saves it,
// and drops the agenda views after the writes that change them.
func bindHooks(app core.App) {
	bindViewHooks(app)
	// An availability saved without the booking rules (horizonDays 0: the
	// dashboard, a raw create) gets the defaults.
	app.OnRecordCreate(AvailabilityCollection).BindFunc(func(e *core.RecordEvent) error {
		if e.Record.GetInt("horizonDays") == 0 {
			if e.Record.GetInt("minNoticeMinutes") == 0 {
				e.Record.Set("minNoticeMinutes", DefaultMinNoticeMinutes)
			}
			e.Record.Set("horizonDays", DefaultHorizonDays)
		}
		return e.Next()
	})
	app.OnRecordValidate(AvailabilityCollection).BindFunc(func(e *core.RecordEvent) error {
		if err := validateAvailability(e.Record); err != nil {
			return err
		}
		return e.Next()
	})
}

// validateAvailability applies CheckSchedule to a record: bad JSON or any
// invalid range, overlap, date or zone is refused with the first message.
func validateAvailability(rec *core.Record) error {
	var weekly []WeeklyRange
	var blocked []string
	if err := decodeJSONField(rec, "weekly", &weekly); err != nil {
		return httpapi.FieldRuleError("weekly", "Debe ser una lista de rangos {weekday, start, end}")
	}
	if err := decodeJSONField(rec, "blockedDates", &blocked); err != nil {
		return httpapi.FieldRuleError("blockedDates", "Debe ser una lista de fechas AAAA-MM-DD")
	}
	v := httpapi.NewValidation()
	CheckSchedule(v, rec.GetString("timezone"), weekly, blocked)
	BookingRules{
		MinNoticeMinutes:    rec.GetInt("minNoticeMinutes"),
		BufferMinutes:       rec.GetInt("bufferMinutes"),
		HorizonDays:         rec.GetInt("horizonDays"),
		TravelBufferMinutes: rec.GetInt("travelBufferMinutes"),
	}.Check(v)
	if err := v.Err(); err != nil {
		issues := httpapi.ToError(err).Issues
		for field, msgs := range issues.FieldErrors {
			return httpapi.FieldRuleError(field, msgs[0])
		}
	}
	return nil
}
