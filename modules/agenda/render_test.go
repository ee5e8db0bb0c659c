package agenda

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
	"time"

	"camellos/internal/timefmt"
)

// TestSlotsJSONBytes checks that the hand-written slots answer is byte for
// byte what e.JSON renders for map{"holidays": []holidayJSON, "slots":
// []slotJSON}, with and without festivos in the window.
func TestSlotsJSONBytes(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	base := time.Date(2026, 11, 23, 13, 0, 0, 0, time.UTC)
	cases := [][]Interval{nil, {}}
	var many []Interval
	for i := 0; i < 500; i++ {
		s := base.Add(time.Duration(i) * SlotLength)
		many = append(many, Interval{Start: s, End: s.Add(SlotLength)})
	}
	cases = append(cases, many)
	var odd []Interval
	for _, s := range []time.Time{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 29, 1, 30, 0, 0, time.FixedZone("x", 5400)),
		time.Date(2026, 10, 25, 2, 30, 15, 123456789, time.FixedZone("y", -17762)),
	} {
		odd = append(odd, Interval{Start: s, End: s.Add(SlotLength)})
	}
	for i := 0; i < 2000; i++ {
		s := time.Unix(rnd.Int63n(400*365*86400)-100*365*86400, rnd.Int63n(1e9))
		odd = append(odd, Interval{Start: s, End: s.Add(SlotLength)})
	}
	cases = append(cases, odd)
	bogota, _ := time.LoadLocation("America/Bogota")
	windows := [][]holidayJSON{
		nil,
		holidaysIn(bogota, base, base.Add(24*time.Hour), true), // none
		holidaysIn(bogota, time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC), false),
		holidaysIn(bogota, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 12, 0, 0, 0, 0, time.UTC), true),
	}
	if len(windows[2]) != 3 || len(windows[3]) != 4 {
		t.Fatalf("windows: %+v", windows)
	}
	for i, slots := range cases {
		out := make([]slotJSON, 0, len(slots))
		for _, s := range slots {
			out = append(out, slotJSON{Start: timefmt.ISO(s.Start), End: timefmt.ISO(s.End)})
		}
		for j, hs := range windows {
			list := hs
			if list == nil {
				list = []holidayJSON{}
			}
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(map[string]any{"holidays": list, "slots": out}); err != nil {
				t.Fatal(err)
			}
			if got := appendSlotsJSON(nil, slots, hs); !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("case %d, window %d:\ngot  %.300s\nwant %.300s", i, j, got, want.Bytes())
			}
		}
	}
}

// TestBusyCursor compares the cursor's overlap answers with a plain scan,
// for slots asked forward, backward and repeated.
func TestBusyCursor(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	base := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for round := 0; round < 200; round++ {
		var busy []Interval
		for i := rnd.Intn(40); i > 0; i-- {
			s := base.Add(time.Duration(rnd.Intn(48*60)) * time.Minute)
			busy = append(busy, Interval{Start: s, End: s.Add(time.Duration(1+rnd.Intn(180)) * time.Minute)})
		}
		cur := sortedBusy(busy).cursor()
		at := base.Add(-2 * time.Hour)
		for q := 0; q < 100; q++ {
			if rnd.Intn(10) == 0 {
				at = at.Add(-time.Duration(rnd.Intn(600)) * time.Minute)
			} else {
				at = at.Add(time.Duration(rnd.Intn(90)) * time.Minute)
			}
			s := Interval{Start: at, End: at.Add(SlotLength)}
			want := false
			for _, b := range busy {
				want = want || s.Overlaps(b)
			}
			if got := cur.overlaps(s); got != want {
				t.Fatalf("round %d: overlaps(%v) = %v, want %v (busy %v)", round, s.Start, got, want, busy)
			}
		}
	}
}
