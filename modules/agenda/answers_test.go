package agenda

import (
	"math/rand"
	"slices"
	"testing"
	"time"
	_ "time/tzdata"
)

// A kept answer is exactly freeSlots' answer at every instant of its
// validity: random weekly schedules, bookings and rules (notice, horizon,
// buffers), clocks just before, at and after every boundary that matters
// (slot starts minus the notice, minus the horizon).
func TestSlotsAnswerHoldsUntilItsInstant(t *testing.T) {
	loc, err := time.LoadLocation("America/Bogota")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	base := time.Date(2026, 11, 22, 13, 17, 0, 0, time.UTC)
	checked, reused := 0, 0
	for round := 0; round < 300; round++ {
		var weekly []Range
		for d := 0; d < 7; d++ {
			if rng.Intn(4) == 0 {
				continue
			}
			start := 60 * rng.Intn(10)
			weekly = append(weekly, Range{Weekday: d, Start: start + 30*rng.Intn(2), End: start + 60*(2+rng.Intn(12))})
		}
		rules := Rules{
			MinNotice: time.Duration(rng.Intn(4)) * 90 * time.Minute,
			Buffer:    time.Duration(rng.Intn(3)) * 15 * time.Minute,
		}
		if rng.Intn(2) == 0 {
			rules.Horizon = time.Duration(1+rng.Intn(5)) * 24 * time.Hour
		}
		var busy []Interval
		for i := 0; i < rng.Intn(20); i++ {
			s := base.Add(time.Duration(rng.Intn(10*24)) * time.Hour)
			busy = append(busy, Interval{Start: s, End: s.Add(time.Hour)})
		}
		idx := blocking(rules, busy, nil, "")
		from := base.Add(time.Duration(rng.Intn(48)-24) * time.Hour)
		to := from.Add(time.Duration(1+rng.Intn(10*24)) * time.Hour)
		q := SlotQuery{Location: loc, Weekly: weekly, Rules: rules, From: from, To: to}
		now := base
		for step := 0; step < 40; step++ {
			q.Now = now
			got, until := slotsAnswer(q, idx)
			if want := freeSlots(q, idx); !slices.Equal(got, want) {
				t.Fatalf("round %d at %v: answer %v, freeSlots %v", round, now, got, want)
			}
			if !until.After(now) {
				now = now.Add(time.Duration(1+rng.Intn(90)) * time.Minute)
				continue
			}
			// Instants inside the validity: the start, just before the end,
			// and random ones between.
			probes := []time.Time{now, until.Add(-time.Nanosecond)}
			if span := until.Sub(now); span > 0 && span < 365*24*time.Hour {
				for i := 0; i < 3; i++ {
					probes = append(probes, now.Add(time.Duration(rng.Int63n(int64(span)))))
				}
			}
			for _, p := range probes {
				q2 := q
				q2.Now = p
				if want := freeSlots(q2, idx); !slices.Equal(got, want) {
					t.Fatalf("round %d: answer of %v kept until %v differs at %v:\nkept %v\nfreeSlots %v", round, now, until, p, got, want)
				}
				checked++
			}
			reused++
			if until.Sub(now) > 12*time.Hour || until.Equal(farFuture) {
				now = now.Add(time.Duration(1+rng.Intn(12*60)) * time.Minute)
			} else {
				now = until // the next answer starts where this one ends
			}
		}
	}
	if checked < 1000 || reused < 1000 {
		t.Fatalf("too few instants checked: %d (%d answers)", checked, reused)
	}
	t.Logf("%d instants checked over %d kept answers", checked, reused)
}
