package main

import "fmt"

// nearGoals are the goals of "cerca de mí" (issue 26): the listing by
// distance (`?lat=&lng=`, and with `&service=`) against the bare floor of
// the same size's minute, at every size, and flat from 1,000 to 100,000.
func (r *report) nearGoals() []goal {
	var out []goal
	for _, sc := range []struct{ name, what string }{
		{"listing-near", "listing by distance (`?lat=&lng=`)"},
		{"listing-near-service", "listing by distance with a service (`?lat=&lng=&service=`)"},
	} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			p := r.point(n)
			g := goal{what: fmt.Sprintf("%s at %s camellos vs bare floor", sc.what, thousands(n)), target: "≥ 0.40×", missing: true,
				note: fmt.Sprintf("growth point %s not measured", thousands(n))}
			if p != nil && p.RPS[sc.name] != nil && p.RPS["floor"] != nil && p.RPS["floor"].RPS > 0 && p.RPS[sc.name].Available {
				v := p.RPS[sc.name].RPS / p.RPS["floor"].RPS
				g = goal{what: g.what, target: g.target, value: fmt.Sprintf("%.2f×", v), ok: v >= 0.40}
			}
			out = append(out, g)
		}
		lo, hi := r.point(1_000), r.point(100_000)
		g := goal{what: sc.what + " at 100,000 camellos vs at 1,000 (flat)", target: "≥ 0.80×", missing: true, note: "growth points 1,000 and 100,000 not measured"}
		if lo != nil && hi != nil && lo.RPS[sc.name] != nil && hi.RPS[sc.name] != nil && lo.RPS[sc.name].RPS > 0 && hi.RPS[sc.name].Available {
			v := hi.RPS[sc.name].RPS / lo.RPS[sc.name].RPS
			g = goal{what: g.what, target: g.target, value: fmt.Sprintf("%.2f×", v), ok: v >= 0.8}
		}
		out = append(out, g)
	}
	return out
}
