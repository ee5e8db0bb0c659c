package main

import (
	"fmt"
	"net/http"
	"os"
	"sync/atomic"

	"camellos/internal/httpapi"
)

// registerScenario signs up camellos, a new e-mail each time (prefix
// keeps the e-mails of two data dirs apart).
func registerScenario(base, prefix string) scenario {
	var seq atomic.Int64
	return scenario{name: "register", want: http.StatusCreated, next: func() *http.Request {
		n := seq.Add(1)
		return cookieJSON(http.MethodPost, base, "/api/register/camello", "", map[string]any{"name": "Camello Bench", "email": fmt.Sprintf("%s%d@example.com", prefix, n), "phone": "3001234567",
			"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true, "city": "Bogotá", "trades": []string{"pintura"}})
	}}
}

// runRegisterSmall measures registration on a data dir of the small set's
// users (its camellos, and the growth series' clients) when the main set
// is the large one, so one run carries the goal at both sizes.
func runRegisterSmall(r *report) *result {
	small := scales["small"]
	if r.Cfg.Size.Name == small.Name || r.PoolBcrypt == 0 {
		return nil
	}
	res := &result{Name: "register"}
	dir, err := os.MkdirTemp("", "camellos-register-")
	if err != nil {
		res.Note = err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	sz := growthSizes(small.Camellos)
	fmt.Printf("register: seeding %d camellos and %d clients…\n", sz.Camellos, sz.Clients)
	if _, err := seed(dir, sz); err != nil {
		res.Note = err.Error()
		return res
	}
	svc, err := startService(dir, serviceEnv())
	if err != nil {
		res.Note = err.Error()
		return res
	}
	defer svc.stop()
	sc := registerScenario(svc.base, "small")
	client := newClient(r.Cfg.Conns)
	if st, body := once(client, sc.next()); st != sc.want {
		res.Note = fmt.Sprintf("not available (probe answered %d %s)", st, clip(body))
		return res
	}
	res = load(client, r.Cfg.Conns, r.Cfg.Duration, sc.next)
	res.Name = "register"
	fmt.Printf("%-20s %8.1f req/s  p50 %-10s (%d camellos, %d clients)\n", "register (small)", res.RPS, res.P50, sz.Camellos, sz.Clients)
	return res
}

// registerGoals compare registration with the hashing pool's own bcrypt
// rate on the small and the large set.
func (r *report) registerGoals() []goal {
	var out []goal
	row := func(set string, reg *result, note string) {
		g := goal{what: "register camello (" + set + " set) vs the hashing pool's own bcrypt rate", target: "≥ 0.80×"}
		switch {
		case reg == nil || !reg.Available || r.PoolBcrypt == 0:
			g.missing = true
			g.note = note
			if reg != nil && reg.Note != "" {
				g.note = reg.Note
			}
		default:
			v := reg.RPS / r.PoolBcrypt
			g.value = fmt.Sprintf("%.2f× (%.1f vs %.1f/s, p50 %s)", v, reg.RPS, r.PoolBcrypt, ms(reg.P50))
			g.ok = v >= 0.8
			g.note = fmt.Sprintf("raw bcrypt at cost %d with %d goroutine(s), the pool's slots (httpapi.HashWorkers)", r.Cost, httpapi.HashWorkers())
		}
		out = append(out, g)
	}
	main := r.Results["register"]
	if r.Cfg.Size.Name == "large" {
		small := scales["small"]
		row("small", r.RegisterSmall, "not measured")
		if r.RegisterSmall != nil && r.RegisterSmall.Available {
			out[0].note += fmt.Sprintf("; a data dir of %d camellos and %d clients", small.Camellos, growthSizes(small.Camellos).Clients)
		}
		row("large", main, "not measured")
	} else {
		row(r.Cfg.Size.Name, main, "not measured")
		row("large", nil, "the large set's row comes from `-scale large`")
	}
	return out
}
