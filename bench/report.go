package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"
)

type goal struct {
	what    string
	value   string
	target  string
	ok      bool
	missing bool
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func (r *report) ratio(a, b string) (float64, bool) {
	x, y := r.Results[a], r.Results[b]
	if x == nil || y == nil || !x.Available || !y.Available || y.RPS == 0 {
		return 0, false
	}
	return x.RPS / y.RPS, true
}

func (r *report) goals() []goal {
	var out []goal
	ratioGoal := func(what, a, b string, min float64) {
		v, ok := r.ratio(a, b)
		g := goal{what: what, target: fmt.Sprintf("≥ %.2f×", min), missing: !ok}
		if ok {
			g.value = fmt.Sprintf("%.2f×", v)
			g.ok = v >= min
		}
		out = append(out, g)
	}
	ratioGoal("listing vs PocketBase generic list (same filter)", "listing", "listing-pocketbase", 1.0)
	ratioGoal("listing vs health", "listing", "health", 0.35)
	if l := r.Results["listing"]; l != nil && l.Available {
		out = append(out, goal{what: "listing p99", value: ms(l.P99), target: "≤ 30 ms", ok: l.P99 <= 30*time.Millisecond})
	} else {
		out = append(out, goal{what: "listing p99", target: "≤ 30 ms", missing: true})
	}
	ratioGoal("slots (31 days, 300 booked) vs health", "slots", "health", 0.5)
	ratioGoal("categories vs health", "categories", "health", 0.7)
	if reg := r.Results["register"]; reg != nil && reg.Available && r.Bcrypt > 0 {
		v := reg.RPS / r.Bcrypt
		out = append(out, goal{what: fmt.Sprintf("register camello vs raw bcrypt (cost %d)", r.Cost), value: fmt.Sprintf("%.2f×", v), target: "≥ 0.80×", ok: v >= 0.8})
	} else {
		out = append(out, goal{what: "register camello vs raw bcrypt", target: "≥ 0.80×", missing: true})
	}
	if s := r.Sweep; s != nil && s.Available {
		out = append(out, goal{what: fmt.Sprintf("reminder sweep (%d sent)", s.Sent), value: s.Took.Round(time.Millisecond).String(), target: "≤ 10 s", ok: s.Took <= 10*time.Second})
		out = append(out, goal{what: "reminder sweep memory growth", value: fmt.Sprintf("%d MB", s.GrowthKB/1024), target: "≤ 100 MB", ok: s.GrowthKB <= 100*1024})
	} else {
		out = append(out, goal{what: "reminder sweep", target: "≤ 10 s, ≤ 100 MB", missing: true})
	}
	if r.PeakRSS > 0 {
		out = append(out, goal{what: "peak RSS of the service under the listing load", value: fmt.Sprintf("%d MB", r.PeakRSS/1024), target: "≤ 150 MB", ok: r.PeakRSS <= 150*1024})
	} else {
		out = append(out, goal{what: "peak RSS under the listing load", target: "≤ 150 MB", missing: true})
	}
	return out
}

// Markdown renders BENCHMARKS.md.
func (r *report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\n")
	fmt.Fprintf(&b, "Produced by `go run ./bench` on %s UTC (whole run %s).\n\n", time.Now().UTC().Format("2006-01-02 15:04"), r.Total.Round(time.Second))
	fmt.Fprintf(&b, "**Machine:** %s.\n\n", r.Machine)
	fmt.Fprintf(&b, "**Data set** (seeded by raw SQL in %s into a temporary data dir, folded columns `searchText`/`cityKey` computed with `text.Fold`): "+
		"%d ACTIVO camellos in %d categories, %d services and %d cities; %d clients; %d jobs; %d PROGRAMADA appointments "+
		"(%d due within 24 h, 10 per camello, and %d booked on one camello over 31 days).\n\n",
		r.DS.SeedTime.Round(time.Millisecond), nCamellos, nCategories, nServices, nCities, nClients, nJobs, r.DS.Appointments, nDueAppts, nSlotAppts)
	fmt.Fprintf(&b, "**Load:** the service runs as a child process (this binary in service mode, exactly the modules of `main.go`) on 127.0.0.1; "+
		"the bench's own Go client drives %d connections for %s per scenario. Reference scenarios are measured in the same run. "+
		"PocketBase's generic list is called **as a superuser** (collection rules stay closed) with the equivalent filter "+
		"`status='ACTIVO' && cityKey='<folded city>' && services ?= '<id>'`, sort `-premium,-ratingAvg,-created`, perPage 20.\n\n", r.Cfg.Conns, r.Cfg.Duration)

	if r.Cfg.Idle > 0 || r.Cfg.Open > 0 {
		fmt.Fprintf(&b, "**Experiment:** the service ran with DataMaxIdleConns=%d, DataMaxOpenConns=%d (0 = PocketBase's default), unlike main.go.\n\n", r.Cfg.Idle, r.Cfg.Open)
	}
	fmt.Fprintf(&b, "## Scenarios\n\n| scenario | request | req/s | p50 | p99 | errors | statuses |\n|---|---|---:|---:|---:|---:|---|\n")
	requests := map[string]string{
		"health":             "`GET /api/health` (reference)",
		"listing":            "`GET /api/camellos?city=&service=`",
		"listing-pocketbase": "`GET /api/collections/camellos/records?filter=…` (reference)",
		"categories":         "`GET /api/categories`",
		"slots":              "`GET /api/camellos/{id}/slots` (31 days, 300 booked)",
		"register":           "`POST /api/register/camello`",
	}
	for _, name := range r.Order {
		res := r.Results[name]
		if !res.Available {
			fmt.Fprintf(&b, "| %s | %s | — | — | — | — | %s |\n", name, requests[name], res.Note)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f | %s | %s | %d | %v |\n", name, requests[name], res.RPS, ms(res.P50), ms(res.P99), res.Errors, res.Statuses)
	}
	fmt.Fprintf(&b, "| bcrypt | raw `bcrypt.GenerateFromPassword`, cost %d, %d goroutines (reference) | %.1f | — | — | — | |\n", r.Cost, runtime.NumCPU(), r.Bcrypt)
	if s := r.Sweep; s != nil {
		if s.Available {
			fmt.Fprintf(&b, "| reminder sweep | `POST /api/cron/appointment-reminders` once | %d sent in %s | — | — | — | memory growth %d MB |\n", s.Sent, s.Took.Round(time.Millisecond), s.GrowthKB/1024)
		} else {
			fmt.Fprintf(&b, "| reminder sweep | `POST /api/cron/appointment-reminders` once | — | — | — | — | %s |\n", s.Note)
		}
	}
	fmt.Fprintf(&b, "\n## Goals\n\n| goal | measured | target | verdict |\n|---|---:|---:|---|\n")
	for _, g := range r.goals() {
		verdict := "met"
		switch {
		case g.missing:
			verdict, g.value = "not available (route not merged)", "—"
		case !g.ok:
			verdict = "**missed**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", g.what, g.value, g.target, verdict)
	}
	fmt.Fprintf(&b, "\nPeak RSS of the service over the whole run (VmHWM at the end, reminder sweep included): %d MB. "+
		"Load average when the run started: %s.\n", r.FinalHWM/1024, r.LoadAvg)
	fmt.Fprintf(&b, "\n%s", analysis)
	if len(r.Findings) > 0 {
		fmt.Fprintf(&b, "\n## Findings\n\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	fmt.Fprintf(&b, "\nRe-run with `go run ./bench` (flags: `-d` duration per scenario, `-c` connections, `-profile DIR` to save a CPU profile of the service per scenario, `-keep` to keep the data dir).\n")
	return b.String()
}
