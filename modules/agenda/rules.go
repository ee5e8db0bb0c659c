package agenda

import (
	"fmt"
	"time"

	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
)

// Bounds and defaults of the booking rules (minutes, days).
const (
	DefaultMinNoticeMinutes = 120
	MaxMinNoticeMinutes     = 10080 // 7 days
	DefaultBufferMinutes    = 0
	MaxBufferMinutes        = 240
	DefaultHorizonDays      = 60
	MinHorizonDays          = 1
	MaxHorizonDays          = 365
	DefaultTravelMinutes    = 0
	MaxTravelMinutes        = 240

	// MaxFutureAppointments is how many future PROGRAMADA appointments one
	// job may hold.
	MaxFutureAppointments = 12
)

// BookingRules are a camello's booking rules as stored and answered.
type BookingRules struct {
	MinNoticeMinutes    int `json:"minNoticeMinutes"`
	BufferMinutes       int `json:"bufferMinutes"`
	HorizonDays         int `json:"horizonDays"`
	TravelBufferMinutes int `json:"travelBufferMinutes"`
}

// DefaultBookingRules are the rules of a camello that set none.
var DefaultBookingRules = BookingRules{
	MinNoticeMinutes:    DefaultMinNoticeMinutes,
	BufferMinutes:       DefaultBufferMinutes,
	HorizonDays:         DefaultHorizonDays,
	TravelBufferMinutes: DefaultTravelMinutes,
}

// Rules turns the stored rules into the slot arithmetic's durations.
func (b BookingRules) Rules() Rules {
	return Rules{
		MinNotice:    time.Duration(b.MinNoticeMinutes) * time.Minute,
		Buffer:       time.Duration(b.BufferMinutes) * time.Minute,
		Horizon:      time.Duration(b.HorizonDays) * 24 * time.Hour,
		TravelBuffer: time.Duration(b.TravelBufferMinutes) * time.Minute,
	}
}

// ruleBounds lists each rule's field, pointer and bounds.
func (b *BookingRules) ruleBounds() []struct {
	field    string
	value    *int
	min, max int
	def      int
} {
	return []struct {
		field    string
		value    *int
		min, max int
		def      int
	}{
		{"minNoticeMinutes", &b.MinNoticeMinutes, 0, MaxMinNoticeMinutes, DefaultMinNoticeMinutes},
		{"bufferMinutes", &b.BufferMinutes, 0, MaxBufferMinutes, DefaultBufferMinutes},
		{"horizonDays", &b.HorizonDays, MinHorizonDays, MaxHorizonDays, DefaultHorizonDays},
		{"travelBufferMinutes", &b.TravelBufferMinutes, 0, MaxTravelMinutes, DefaultTravelMinutes},
	}
}

// Check adds a Spanish field error to v for each rule out of its bounds.
func (b BookingRules) Check(v *httpapi.Validation) {
	for _, r := range b.ruleBounds() {
		if *r.value < r.min || *r.value > r.max {
			v.Add(r.field, fmt.Sprintf("Debe ser un número entero entre %d y %d", r.min, r.max))
		}
	}
}

// normalised replaces each rule out of its bounds (stored around the
// record hook) by its default.
func (b BookingRules) normalised() BookingRules {
	for _, r := range b.ruleBounds() {
		if *r.value < r.min || *r.value > r.max {
			*r.value = r.def
		}
	}
	return b
}

// rulesOf reads the rules of an availability record.
func rulesOf(rec *core.Record) BookingRules {
	return BookingRules{
		MinNoticeMinutes:    rec.GetInt("minNoticeMinutes"),
		BufferMinutes:       rec.GetInt("bufferMinutes"),
		HorizonDays:         rec.GetInt("horizonDays"),
		TravelBufferMinutes: rec.GetInt("travelBufferMinutes"),
	}.normalised()
}

// setRules writes the rules on an availability record.
func setRules(rec *core.Record, b BookingRules) {
	rec.Set("minNoticeMinutes", b.MinNoticeMinutes)
	rec.Set("bufferMinutes", b.BufferMinutes)
	rec.Set("horizonDays", b.HorizonDays)
	rec.Set("travelBufferMinutes", b.TravelBufferMinutes)
}
