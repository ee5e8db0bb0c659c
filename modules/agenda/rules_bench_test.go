package agenda

import (
	"testing"
	"time"
)

// BenchmarkSlotsView is the slots route's arithmetic on the benchmark's
// camello (06:00–22:00 every day, 300 bookings, a 31-day window) from a
// built view, without rules, with notice, buffer and horizon, with the
// travel buffer (the listing widens every interval by it), and skipping
// festivos (8 December falls in the window).
func BenchmarkSlotsView(b *testing.B) {
	loc, _ := time.LoadLocation("America/Bogota")
	now := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	weekly := []Range{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, Range{d, 6 * 60, 22 * 60})
	}
	day0 := time.Date(2026, 11, 24, 0, 0, 0, 0, loc)
	busy := []Interval{}
	for k := 0; k < 300; k++ {
		st := day0.AddDate(0, 0, k/10).Add(time.Duration(7+k%10) * time.Hour).UTC()
		busy = append(busy, Interval{st, st.Add(SlotLength)})
	}
	for _, c := range []struct {
		name     string
		rules    Rules
		holidays bool // skip festivos (the default of a camello)
	}{
		{"none", Rules{}, false},
		{"notice+buffer+horizon", Rules{MinNotice: 2 * time.Hour, Buffer: 30 * time.Minute, Horizon: 60 * 24 * time.Hour}, false},
		{"travel", Rules{MinNotice: 2 * time.Hour, Buffer: 15 * time.Minute, Horizon: 60 * 24 * time.Hour, TravelBuffer: 45 * time.Minute}, false},
		{"notice+buffer+horizon+festivos", Rules{MinNotice: 2 * time.Hour, Buffer: 30 * time.Minute, Horizon: 60 * 24 * time.Hour}, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := &view{active: true, loc: loc, ranges: weekly, blocked: map[string]bool{}, rules: c.rules,
				busy: blocking(c.rules, busy, nil, "")}
			q := SlotQuery{Location: loc, Weekly: weekly, Blocked: v.blocked, Rules: c.rules, SkipHolidays: c.holidays,
				From: now, To: now.Add(31 * 24 * time.Hour), Now: now}
			b.ReportAllocs()
			for b.Loop() {
				_ = freeSlots(q, v.busy)
			}
		})
	}
}
