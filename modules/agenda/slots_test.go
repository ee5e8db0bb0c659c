package agenda_test

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"camellos/modules/agenda"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func starts(slots []agenda.Interval) string {
	out := make([]string, 0, len(slots))
	for _, s := range slots {
		out = append(out, s.Start.UTC().Format("01-02T15:04"))
	}
	return strings.Join(out, " ")
}

// TestFreeSlots checks the slot arithmetic (2026-11-23 is a Monday; Madrid
// changes clocks on Sundays 2026-03-29 and 2026-10-25, Santiago at the end
// of Saturday 2026-04-04 and of Saturday 2026-09-05).
func TestFreeSlots(t *testing.T) {
	const mon, tue, sat, sun = 1, 2, 6, 0
	r := func(weekday, h1, m1, h2, m2 int) agenda.Range {
		return agenda.Range{Weekday: weekday, Start: h1*60 + m1, End: h2*60 + m2}
	}
	bogWeek := utc("2026-11-23T00:00:00Z")
	cases := []struct {
		name     string
		zone     string
		weekly   []agenda.Range
		blocked  []string
		busy     [][2]string
		from, to string
		now      string
		want     string
	}{
		{name: "range not a multiple of 60 minutes", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 10, 30)},
			want: "11-23T13:00 11-23T14:00"},
		{name: "slots laid from the range start", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 9, 15, 11, 15)},
			want: "11-23T14:15 11-23T15:15"},
		{name: "range shorter than a slot", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 9, 0, 9, 59)}, want: ""},
		{name: "evening crosses UTC midnight", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 20, 0, 24, 0)},
			want: "11-24T01:00 11-24T02:00 11-24T03:00 11-24T04:00"},
		{name: "availability across local midnight is two ranges", zone: "America/Bogota",
			weekly: []agenda.Range{r(mon, 22, 0, 24, 0), r(tue, 0, 0, 1, 30)},
			want:   "11-24T03:00 11-24T04:00 11-24T05:00"},
		{name: "two ranges of a day", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 14, 0, 16, 0), r(mon, 8, 0, 9, 0)},
			want: "11-23T13:00 11-23T19:00 11-23T20:00"},
		{name: "blocked local date", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 9, 0), r(mon, 23, 0, 24, 0), r(tue, 8, 0, 9, 0)},
			blocked: []string{"2026-11-23"}, want: "11-24T13:00"},
		{name: "busy overlap removes both slots it touches", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 12, 0)},
			busy: [][2]string{{"2026-11-23T13:30:00Z", "2026-11-23T14:30:00Z"}}, want: "11-23T15:00 11-23T16:00"},
		{name: "adjacent busy keeps the slot", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 10, 0)},
			busy: [][2]string{{"2026-11-23T12:00:00Z", "2026-11-23T13:00:00Z"}, {"2026-11-23T14:00:00Z", "2026-11-23T15:00:00Z"}},
			want: "11-23T13:00"},
		{name: "from clips a slot that started before it", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 11, 0)},
			from: "2026-11-23T13:30:00Z", to: "2026-11-24T00:00:00Z", want: "11-23T14:00 11-23T15:00"},
		{name: "to clips a slot that ends after it", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 11, 0)},
			from: "2026-11-23T00:00:00Z", to: "2026-11-23T15:59:59Z", want: "11-23T13:00 11-23T14:00"},
		{name: "slot ending exactly at to is kept", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 11, 0)},
			from: "2026-11-23T13:00:00Z", to: "2026-11-23T16:00:00Z", want: "11-23T13:00 11-23T14:00 11-23T15:00"},
		{name: "past slots are dropped", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 11, 0)},
			now: "2026-11-23T13:00:01Z", want: "11-23T14:00 11-23T15:00"},
		{name: "slot starting now is kept", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 10, 0)},
			now: "2026-11-23T13:00:00Z", want: "11-23T13:00 11-23T14:00"},
		{name: "every week in the window", zone: "America/Bogota", weekly: []agenda.Range{r(mon, 8, 0, 9, 0)},
			from: "2026-11-23T00:00:00Z", to: "2026-12-08T00:00:00Z", want: "11-23T13:00 11-30T13:00 12-07T13:00"},
		{name: "Madrid spring forward: 6 wall hours hold 5 slots", zone: "Europe/Madrid", weekly: []agenda.Range{r(sun, 0, 0, 6, 0)},
			from: "2026-03-28T12:00:00Z", to: "2026-03-29T12:00:00Z",
			want: "03-28T23:00 03-29T00:00 03-29T01:00 03-29T02:00 03-29T03:00"},
		{name: "Madrid fall back: 6 wall hours hold 7 slots", zone: "Europe/Madrid", weekly: []agenda.Range{r(sun, 0, 0, 6, 0)},
			from: "2026-10-24T12:00:00Z", to: "2026-10-25T12:00:00Z",
			want: "10-24T22:00 10-24T23:00 10-25T00:00 10-25T01:00 10-25T02:00 10-25T03:00 10-25T04:00"},
		{name: "Madrid range starting in the skipped hour moves forward", zone: "Europe/Madrid", weekly: []agenda.Range{r(sun, 2, 30, 5, 0)},
			from: "2026-03-28T12:00:00Z", to: "2026-03-29T12:00:00Z", want: "03-29T01:30"},
		{name: "Madrid range starting in the repeated hour takes the first", zone: "Europe/Madrid", weekly: []agenda.Range{r(sun, 2, 30, 5, 0)},
			from: "2026-10-24T12:00:00Z", to: "2026-10-25T12:00:00Z", want: "10-25T00:30 10-25T01:30 10-25T02:30"},
		{name: "Madrid ordinary Sunday", zone: "Europe/Madrid", weekly: []agenda.Range{r(sun, 0, 0, 3, 0)},
			from: "2026-11-28T12:00:00Z", to: "2026-11-29T12:00:00Z", want: "11-28T23:00 11-29T00:00 11-29T01:00"},
		{name: "Santiago fall back at midnight repeats 23:00", zone: "America/Santiago", weekly: []agenda.Range{r(sat, 20, 0, 24, 0)},
			from: "2026-04-04T12:00:00Z", to: "2026-04-05T12:00:00Z",
			want: "04-04T23:00 04-05T00:00 04-05T01:00 04-05T02:00 04-05T03:00"},
		{name: "Santiago spring forward skips midnight", zone: "America/Santiago", weekly: []agenda.Range{r(sun, 0, 0, 3, 0)},
			from: "2026-09-05T12:00:00Z", to: "2026-09-06T12:00:00Z", want: "09-06T04:00 09-06T05:00"},
		{name: "Santiago blocked date of the transition", zone: "America/Santiago", weekly: []agenda.Range{r(sat, 20, 0, 24, 0)},
			blocked: []string{"2026-04-04"}, from: "2026-04-04T12:00:00Z", to: "2026-04-05T12:00:00Z", want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := agenda.SlotQuery{Location: zone(t, c.zone), Weekly: c.weekly, From: bogWeek, To: bogWeek.Add(48 * time.Hour)}
			if c.from != "" {
				q.From, q.To = utc(c.from), utc(c.to)
			}
			q.Now = q.From.Add(-time.Hour)
			if c.now != "" {
				q.Now = utc(c.now)
			}
			q.Blocked = map[string]bool{}
			for _, d := range c.blocked {
				q.Blocked[d] = true
			}
			for _, b := range c.busy {
				q.Busy = append(q.Busy, agenda.Interval{Start: utc(b[0]), End: utc(b[1])})
			}
			got := agenda.FreeSlots(q)
			if s := starts(got); s != c.want {
				t.Fatalf("slots %q\n want %q", s, c.want)
			}
			for _, s := range got {
				if s.End.Sub(s.Start) != time.Hour || s.Start.Location() != time.UTC {
					t.Fatalf("slot %v–%v is not 60 minutes in UTC", s.Start, s.End)
				}
			}
		})
	}
	if got := agenda.FreeSlots(agenda.SlotQuery{Weekly: []agenda.Range{r(mon, 0, 0, 24, 0)}, From: bogWeek, To: bogWeek}); len(got) != 0 {
		t.Fatal("empty window must have no slots")
	}
}

func TestWallTime(t *testing.T) {
	madrid := zone(t, "Europe/Madrid")
	for _, c := range []struct {
		y       int
		m       time.Month
		d, mins int
		want    string
	}{
		{2026, 3, 29, 90, "2026-03-29T00:30:00Z"},   // 01:30 CET
		{2026, 3, 29, 150, "2026-03-29T01:30:00Z"},  // 02:30 does not exist → 03:30 CEST
		{2026, 3, 29, 180, "2026-03-29T01:00:00Z"},  // 03:00 CEST
		{2026, 10, 25, 150, "2026-10-25T00:30:00Z"}, // 02:30 happens twice → first (CEST)
		{2026, 10, 25, 210, "2026-10-25T02:30:00Z"}, // 03:30 CET
		{2026, 10, 24, 1440, "2026-10-24T22:00:00Z"},
	} {
		if got := agenda.WallTime(c.y, c.m, c.d, c.mins, madrid).Format(time.RFC3339); got != c.want {
			t.Errorf("%d-%02d-%02d +%dmin: %s, want %s", c.y, c.m, c.d, c.mins, got, c.want)
		}
	}
}

// FuzzFreeSlots checks the invariants of any schedule and window: sorted,
// 60 minutes, inside the window and its ranges, never past, never busy.
func FuzzFreeSlots(f *testing.F) {
	f.Add(uint8(0), []byte{1, 8, 0, 10, 30}, int64(0), uint16(48), int64(3600), int64(7200))
	f.Add(uint8(1), []byte{0, 0, 0, 24, 0, 6, 22, 0, 24, 0}, int64(-86400*240), uint16(744), int64(0), int64(0))
	f.Add(uint8(2), []byte{6, 20, 0, 24, 0, 0, 0, 0, 3, 0}, int64(-86400*233), uint16(300), int64(5000), int64(600))
	zones := []string{"America/Bogota", "Europe/Madrid", "America/Santiago", "Australia/Lord_Howe", "UTC"}
	base := utc("2026-11-23T00:00:00Z")
	f.Fuzz(func(t *testing.T, z uint8, raw []byte, fromOff int64, hours uint16, nowOff, busyOff int64) {
		loc := zone(t, zones[int(z)%len(zones)])
		var weekly []agenda.Range
		for i := 0; i+4 < len(raw) && len(weekly) < 20; i += 5 {
			start := int(raw[i+1]%24)*60 + int(raw[i+2]%60)
			end := int(raw[i+3]%25)*60 + int(raw[i+4]%60)
			if end > agenda.DayMinutes {
				end = agenda.DayMinutes
			}
			weekly = append(weekly, agenda.Range{Weekday: int(raw[i] % 7), Start: start, End: end})
		}
		from := base.Add(time.Duration(fromOff%(86400*400)) * time.Second)
		to := from.Add(time.Duration(hours%800) * time.Hour)
		now := from.Add(time.Duration(nowOff%(86400*40)) * time.Second)
		busyStart := from.Add(time.Duration(busyOff%(86400*40)) * time.Second)
		busy := []agenda.Interval{{Start: busyStart, End: busyStart.Add(time.Hour)}}
		got := agenda.FreeSlots(agenda.SlotQuery{Location: loc, Weekly: weekly, Busy: busy, From: from, To: to, Now: now})
		for i, s := range got {
			if s.End.Sub(s.Start) != time.Hour {
				t.Fatalf("slot %v not 60 minutes", s)
			}
			if s.Start.Before(from) || s.End.After(to) || s.Start.Before(now) {
				t.Fatalf("slot %v outside [%v, %v] or before %v", s.Start, from, to, now)
			}
			if s.Overlaps(busy[0]) {
				t.Fatalf("slot %v overlaps busy %v", s.Start, busy[0].Start)
			}
			if i > 0 && !got[i-1].Start.Before(s.Start) {
				t.Fatalf("slots not sorted/unique at %d", i)
			}
			local := s.Start.In(loc)
			inRange := false
			for _, r := range weekly {
				y, m, d := local.Date()
				day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
				for _, back := range []int{0, 1} { // a slot may sit on the previous local date's range
					dd := day.AddDate(0, 0, -back)
					if int(dd.Weekday()) != r.Weekday || r.Start >= r.End {
						continue
					}
					rs := agenda.WallTime(dd.Year(), dd.Month(), dd.Day(), r.Start, loc)
					re := agenda.WallTime(dd.Year(), dd.Month(), dd.Day(), r.End, loc)
					if !s.Start.Before(rs) && !s.End.After(re) && s.Start.Sub(rs)%time.Hour == 0 {
						inRange = true
					}
				}
			}
			if !inRange {
				t.Fatalf("slot %v (%v local) lies in no range of %v", s.Start, local, weekly)
			}
		}
	})
}
