package main

import (
	"fmt"
	"time"
)

// nearGoals are the goals of the listing at 100,000 camellos: "cerca de
// mí" (issue 26), the listing by distance (`?lat=&lng=`, and with
// `&service=`) against the bare floor of the same size's minute, at every
// size, and flat from 1,000 to 100,000; the plain listing by city against
// the same floor (issue 22: every read ratio held); and its cold build
// (issue 27).
func (r *report) nearGoals() []goal {
	var out []goal
	for _, sc := range []struct {
		name, what string
		floor      float64 // of the bare floor, at every size
		flat       bool    // a goal of 100,000 vs 1,000 (the city row's is printed with the others)
	}{
		{"listing-near", "listing by distance (`?lat=&lng=`)", 0.40, true},
		{"listing-near-service", "listing by distance with a service (`?lat=&lng=&service=`)", 0.40, true},
		{"listing-city", "listing by city (`?city=`, a page of 20)", 0.47, false},
	} {
		target := fmt.Sprintf("≥ %.2f×", sc.floor)
		for _, n := range []int{1_000, 10_000, 100_000} {
			g := goal{what: fmt.Sprintf("%s at %s camellos vs bare floor", sc.what, thousands(n)), target: target, missing: true,
				note: fmt.Sprintf("growth point %s not measured", thousands(n))}
			if p := r.point(n); p != nil && p.RPS[sc.name] != nil && p.RPS["floor"] != nil && p.RPS["floor"].RPS > 0 && p.RPS[sc.name].Available {
				v := p.RPS[sc.name].RPS / p.RPS["floor"].RPS
				g = goal{what: g.what, target: target, value: fmt.Sprintf("%.2f×", v), ok: v >= sc.floor}
			}
			out = append(out, g)
		}
		if !sc.flat {
			continue
		}
		lo, hi := r.point(1_000), r.point(100_000)
		g := goal{what: sc.what + " at 100,000 camellos vs at 1,000 (flat)", target: "≥ 0.80×", missing: true, note: "growth points 1,000 and 100,000 not measured"}
		if lo != nil && hi != nil && lo.RPS[sc.name] != nil && hi.RPS[sc.name] != nil && lo.RPS[sc.name].RPS > 0 && hi.RPS[sc.name].Available {
			v := hi.RPS[sc.name].RPS / lo.RPS[sc.name].RPS
			g = goal{what: g.what, target: g.target, value: fmt.Sprintf("%.2f×", v), ok: v >= 0.8}
		}
		out = append(out, g)
	}
	// The listing's own cold build (issue 27: it regressed to 3.82 s when
	// the listing was packed), whichever index is the slowest.
	g := goal{what: "cold listing build at 100,000 camellos (the first `GET /api/camellos` of a fresh service)", target: "≤ 2 s", missing: true,
		note: "growth point 100,000 not measured"}
	if p := r.point(100_000); p != nil {
		for _, c := range p.Cold {
			if c.Name == "listing" && c.Available {
				g = goal{what: g.what, target: g.target, value: c.Took.Round(time.Millisecond).String(), ok: c.Took <= 2*time.Second}
			}
		}
	}
	return append(out, g)
}
