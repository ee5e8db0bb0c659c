package main

import (
	"fmt"
	"strconv"
	"strings"
)

// heldTolerance is how far below the previous report's ratio a read may
// fall and still count as held: runs a minute apart on the same quiet
// machine moved a few percent (BENCHMARKS.md, analysis 2).
const heldTolerance = 0.10

// previousReadRatios reads, from a report this bench wrote before (the
// -out file as it was when the run started), each read scenario's ratio to
// the bare floor: the "× floor" column of its Reads table.
func previousReadRatios(report, scale string) map[string]float64 {
	out := map[string]float64{}
	if !strings.Contains(report, "**Data set `"+scale+"`**") {
		return out // another data set's ratios are not comparable
	}
	in := false
	for _, line := range strings.Split(report, "\n") {
		switch {
		case strings.HasPrefix(line, "## Reads"):
			in = true
			continue
		case strings.HasPrefix(line, "## "):
			in = false
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 4 {
			continue
		}
		name := strings.TrimSpace(cells[0])
		ratio := strings.TrimSuffix(strings.TrimSpace(cells[3]), "×")
		if v, err := strconv.ParseFloat(ratio, 64); err == nil && name != "floor" {
			out[name] = v
		}
	}
	return out
}

// heldGoals: every read ratio of the previous report is held, within
// heldTolerance of it (issue 27).
func (r *report) heldGoals() []goal {
	if len(r.Cfg.Previous) == 0 {
		return []goal{{what: "every read ratio of the previous report held", target: fmt.Sprintf("≥ %.0f %% of before", 100*(1-heldTolerance)), missing: true,
			note: "no previous report of the " + r.Cfg.Size.Name + " set at -out"}}
	}
	var out []goal
	for _, name := range r.Order {
		before, ok := r.Cfg.Previous[name]
		res := r.Results[name]
		if !ok || before <= 0 || res == nil || name == "floor" || name == "register" {
			continue
		}
		g := goal{what: fmt.Sprintf("%s vs bare floor, held from the previous report (%.2f×)", name, before), target: fmt.Sprintf("≥ %.2f×", before*(1-heldTolerance))}
		if now, ok := r.ratio(name, "floor"); ok {
			g.value = fmt.Sprintf("%.2f×", now)
			g.ok = now >= before*(1-heldTolerance)
		} else {
			g.missing = true
			g.note = res.Note
		}
		out = append(out, g)
	}
	return out
}
