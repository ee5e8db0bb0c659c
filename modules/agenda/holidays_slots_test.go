package agenda

import (
	"testing"
	"time"

	"camellos/internal/festivos"
)

// TestSkipHolidays checks the slot arithmetic's festivo rule against its
// definition over whole years, in zones east and west of UTC and with DST:
// with SkipHolidays the slots are exactly those without it whose local
// date is not a festivo, and at least one festivo really had slots.
func TestSkipHolidays(t *testing.T) {
	// Every day, around both midnights and at noon.
	weekly := []Range{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, Range{d, 0, 60}, Range{d, 12 * 60, 13 * 60}, Range{d, 23 * 60, 24 * 60})
	}
	for _, zone := range []string{"America/Bogota", "Europe/Madrid", "Asia/Tokyo", "America/Santiago", "UTC"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, year := range []int{2025, 2026, 2027} {
			from := time.Date(year, 1, 1, 0, 0, 0, 0, loc)
			to := time.Date(year+1, 1, 1, 0, 0, 0, 0, loc)
			q := SlotQuery{Location: loc, Weekly: weekly, From: from, To: to, Now: from.Add(-time.Hour)}
			all := FreeSlots(q)
			q.SkipHolidays = true
			open := FreeSlots(q)
			want := []Interval{}
			onHolidays := 0
			for _, s := range all {
				if festivos.Is(s.Start.In(loc).Date()) {
					onHolidays++
					continue
				}
				want = append(want, s)
			}
			days := len(festivos.Between(from, to.Add(-time.Nanosecond)))
			if onHolidays != 3*days || len(open) != len(want) {
				t.Fatalf("%s %d: %d slots on %d festivos, %d kept, want %d", zone, year, onHolidays, days, len(open), len(want))
			}
			for i := range want {
				if !open[i].Start.Equal(want[i].Start) {
					t.Fatalf("%s %d: slot %d is %v, want %v", zone, year, i, open[i].Start, want[i].Start)
				}
			}
		}
	}
}
