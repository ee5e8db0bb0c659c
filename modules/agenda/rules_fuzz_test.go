package agenda

import (
	"testing"
	"time"
)

// FuzzBookingRules checks the rule arithmetic (notice, buffer, horizon,
// travel buffer) against its definition on arbitrary schedules, bookings
// and clocks, in zones with DST changes:
//   - slots are sorted, one SlotLength long, inside the window;
//   - none starts before Now + MinNotice or after Now + Horizon;
//   - each keeps its pad (Rules.Pad) from every busy interval;
//   - the booking check (FreeSlots over the slot alone) accepts each;
//   - rules only remove slots: every slot is also free without them, and
//     a slot free without them is listed unless a rule excludes it.
//
// The seed corpus is in testdata/fuzz/FuzzBookingRules; run it longer with
// go test ./modules/agenda -run '^$' -fuzz FuzzBookingRules -fuzztime 30s.
func FuzzBookingRules(f *testing.F) {
	f.Add(uint16(120), uint8(0), uint16(60), uint8(0), uint8(0), uint16(0), uint8(0), []byte{10, 2, 30, 1})
	f.Add(uint16(0), uint8(60), uint16(1), uint8(120), uint8(1), uint16(500), uint8(1), []byte{0, 0, 5, 1, 9, 2})
	f.Add(uint16(10080), uint8(240), uint16(365), uint8(240), uint8(2), uint16(9000), uint8(2), []byte{})
	zones := []string{"America/Bogota", "Europe/Madrid", "America/Santiago", "UTC"}
	base := time.Date(2027, 3, 20, 0, 0, 0, 0, time.UTC) // a week with DST changes in Madrid and Santiago
	f.Fuzz(func(t *testing.T, notice uint16, buffer uint8, horizon uint16, travel uint8, zone uint8, nowOff uint16, place uint8, busyRaw []byte) {
		loc, err := time.LoadLocation(zones[int(zone)%len(zones)])
		if err != nil {
			t.Skip()
		}
		rules := Rules{
			MinNotice:    time.Duration(notice%10081) * time.Minute,
			Buffer:       time.Duration(buffer%241) * time.Minute,
			Horizon:      time.Duration(horizon%366) * 24 * time.Hour,
			TravelBuffer: time.Duration(travel%241) * time.Minute,
		}
		now := base.Add(time.Duration(nowOff%20000) * time.Minute)
		from, to := base, base.Add(14*24*time.Hour)
		places := []string{"", "bogota|chapinero", "bogota|usaquen"}
		q := SlotQuery{
			Location: loc,
			Weekly:   []Range{{1, 8 * 60, 12 * 60}, {2, 0, 3 * 60}, {6, 1 * 60, 4 * 60}, {0, 22 * 60, 24 * 60}, {3, 9*60 + 30, 17 * 60}},
			Blocked:  map[string]bool{"2027-03-24": true},
			Rules:    rules, Place: places[int(place)%len(places)],
			From: from, To: to, Now: now,
		}
		for i := 0; i+1 < len(busyRaw) && len(q.Busy) < 40; i += 2 {
			start := from.Add(time.Duration(int(busyRaw[i])*90) * time.Minute)
			q.Busy = append(q.Busy, Interval{Start: start, End: start.Add(SlotLength)})
			q.BusyPlaces = append(q.BusyPlaces, places[int(busyRaw[i+1])%len(places)])
		}
		slots := FreeSlots(q)
		plain := q
		plain.Rules = Rules{}
		plain.Busy = nil
		free := map[time.Time]bool{}
		for _, s := range FreeSlots(plain) {
			free[s.Start] = true
		}
		listed := map[time.Time]bool{}
		for _, s := range slots {
			listed[s.Start] = true
		}
		for start := range free {
			if listed[start] {
				continue
			}
			end := start.Add(SlotLength)
			excluded := start.Before(now.Add(rules.MinNotice)) || (rules.Horizon > 0 && start.After(now.Add(rules.Horizon)))
			for j, b := range q.Busy {
				pad := rules.Pad(q.Place, q.BusyPlaces[j])
				excluded = excluded || (start.Before(b.End.Add(pad)) && b.Start.Add(-pad).Before(end))
			}
			if !excluded {
				t.Fatalf("slot %v left out though no rule excludes it", start)
			}
		}
		for i, s := range slots {
			if !s.End.Equal(s.Start.Add(SlotLength)) || s.Start.Before(from) || s.End.After(to) {
				t.Fatalf("slot %v outside the window or not one slot long", s)
			}
			if i > 0 && !slots[i-1].Start.Before(s.Start) {
				t.Fatalf("slots out of order at %d", i)
			}
			if s.Start.Before(now.Add(rules.MinNotice)) {
				t.Fatalf("slot %v within the notice (now %v, %v)", s.Start, now, rules.MinNotice)
			}
			if rules.Horizon > 0 && s.Start.After(now.Add(rules.Horizon)) {
				t.Fatalf("slot %v past the horizon", s.Start)
			}
			for j, b := range q.Busy {
				pad := rules.Pad(q.Place, q.BusyPlaces[j])
				if s.Start.Before(b.End.Add(pad)) && b.Start.Add(-pad).Before(s.End) {
					t.Fatalf("slot %v within %v of busy %v", s.Start, pad, b)
				}
			}
			one := q
			one.From, one.To = s.Start, s.End
			if got := FreeSlots(one); len(got) != 1 || !got[0].Start.Equal(s.Start) {
				t.Fatalf("listed slot %v refused by the booking check: %v", s.Start, got)
			}
			if !free[s.Start] {
				t.Fatalf("slot %v is not a slot without the rules", s.Start)
			}
		}
	})
}
