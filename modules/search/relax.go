package search

import (
	"encoding/json"
	"strings"
	"time"

	"camellos/internal/geo"
	"camellos/internal/text"
	"camellos/internal/timefmt"

	"github.com/pocketbase/pocketbase/core"
)

// maxTimeChecks bounds the candidates whose free slots a search asks the
// agenda for, best ranked first: a time filter over a whole city of
// camellos looks at the best 300.
const maxTimeChecks = 300

// maxShiftDays is how far a time that leaves nobody is moved forward, one
// day at a time, before the time filter is dropped.
const maxShiftDays = 7

// Filters are the filters a search applied (after any relaxation).
type Filters struct {
	Trades []string `json:"trades"`
	City   *string  `json:"city"`
	When   *Window  `json:"when"`
	// Near is the position the camellos were kept and sorted by (their
	// travel radius reaches it), null when none applied.
	Near *geo.Point `json:"near"`
}

// Window is a time range in UTC ISO 8601.
type Window struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Relaxed is one filter the search relaxed because it left nobody:
// filter "when" (moved: To is the window used; dropped: To is null),
// "city" or "trade" (dropped); Message says it in Spanish.
type Relaxed struct {
	Filter  string `json:"filter"`
	From    any    `json:"from"`
	To      any    `json:"to"`
	Message string `json:"message"`
}

// found is a search's outcome before paging.
type found struct {
	applied Filters
	relaxed []Relaxed
	list    []ranked
}

// find runs a search of an interpretation: the filters, the ranking and,
// when the filters leave nobody, their relaxation.
func find(app core.App, it Interpretation, loc *time.Location, now time.Time) (*found, error) {
	out := &found{applied: Filters{Trades: []string{}}}
	var forms []string
	for _, t := range it.Trades {
		forms = append(forms, TradeForms(t)...)
	}
	city := ""
	if it.City != nil {
		city = text.Fold(*it.City)
	}
	terms := rankTerms(it)
	var reviews map[string]string
	if len(terms) > 0 {
		var err error
		if reviews, _, err = reviewText.Get(app, struct{}{}); err != nil {
			return nil, err
		}
	}
	candidates := func(forms []string, city string, near *geo.Point) ([]Candidate, error) {
		e := &CandidatesEvent{App: app, Trades: forms, City: city, Near: near}
		if err := OnCandidates(app).Trigger(e); err != nil {
			return nil, err
		}
		if len(forms) == 0 {
			return e.Out, nil
		}
		// The listing finds the trade anywhere in the search text; the
		// search keeps the camellos that declare it (a trade or a service
		// whose word starts with a form): "pintor" is not "carpintería",
		// and a description that mentions "jardines" only ranks.
		kept := e.Out[:0]
		for _, c := range e.Out {
			if declares(c.Raw, forms) {
				kept = append(kept, c)
			}
		}
		return kept, nil
	}

	// Trade and place: the city goes first, then the trade (with the city
	// back), then both.
	tries := []struct {
		trade, city bool
	}{{true, true}, {true, false}, {false, true}, {false, false}}
	var cands []Candidate
	var used struct{ trade, city, near bool }
	// A position: the camellos who reach it, with the trade then without.
	if it.Near != nil && it.Near.Position != nil {
		for _, trade := range []bool{true, false} {
			if !trade && len(forms) == 0 {
				continue
			}
			f := forms
			if !trade {
				f = nil
			}
			var err error
			if cands, err = candidates(f, "", it.Near.Position); err != nil {
				return nil, err
			}
			if len(cands) > 0 {
				used.trade, used.near = trade, true
				out.applied.Near = it.Near.Position
				tries = nil
				break
			}
		}
		if !used.near {
			out.relaxed = append(out.relaxed, Relaxed{Filter: "near", From: it.Near.Position, To: nil,
				Message: "Ningún camello llega hasta tu ubicación; mostramos camellos de otras zonas."})
		}
	}
	for _, try := range tries {
		if (!try.trade && len(forms) == 0) || (!try.city && city == "") {
			continue // the same as an earlier try
		}
		f, c := forms, city
		if !try.trade {
			f = nil
		}
		if !try.city {
			c = ""
		}
		var err error
		if cands, err = candidates(f, c, nil); err != nil {
			return nil, err
		}
		used.trade, used.city = try.trade, try.city
		if len(cands) > 0 {
			break
		}
	}
	if len(forms) > 0 && used.trade {
		out.applied.Trades = append(out.applied.Trades, it.Trades...)
	}
	if city != "" && used.city {
		out.applied.City = it.City
	}
	if len(cands) > 0 {
		if city != "" && !used.city && !used.near {
			out.relaxed = append(out.relaxed, Relaxed{Filter: "city", From: *it.City, To: nil,
				Message: "Sin resultados en " + *it.City + "; mostramos camellos de otras ciudades."})
		}
		if len(forms) > 0 && !used.trade {
			out.relaxed = append(out.relaxed, Relaxed{Filter: "trade", From: it.Trades, To: nil,
				Message: "Sin camellos de " + strings.Join(it.Trades, " ni de ") + "; mostramos otros que coinciden con tu búsqueda."})
		}
	}
	list := rank(cands, terms, reviews)
	if used.near {
		byDistance(list)
	}

	// Time: who has a free slot then; else the next days; else no time.
	if it.When == nil || len(list) == 0 {
		out.list = list
		return out, nil
	}
	from, okF := timefmt.ParseTime(it.When.From)
	to, okT := timefmt.ParseTime(it.When.To)
	if !okF || !okT || !to.After(from) {
		out.list = list
		return out, nil
	}
	asked := Window{From: it.When.From, To: it.When.To}
	for d := 0; d <= maxShiftDays; d++ {
		f, t, ok := shifted(from, to, d, loc)
		if !ok {
			break
		}
		kept, err := freeIn(app, list, f, t)
		if err != nil {
			return nil, err
		}
		if len(kept) == 0 {
			continue
		}
		w := Window{From: timefmt.ISO(f), To: timefmt.ISO(t)}
		out.applied.When = &w
		if d > 0 {
			out.relaxed = append(out.relaxed, Relaxed{Filter: "when", From: asked, To: w,
				Message: "Sin resultados para " + describe(from, to, loc, now) + "; mostramos los disponibles " + describe(f, t, loc, now) + "."})
		}
		out.list = kept
		return out, nil
	}
	out.relaxed = append(out.relaxed, Relaxed{Filter: "when", From: asked, To: nil,
		Message: "Nadie tiene horarios libres " + describe(from, to, loc, now) + " ni en los días siguientes; mostramos a todos, sin filtrar por fecha."})
	out.list = list
	return out, nil
}

// declares reports whether a camello's public JSON names one of the trade
// forms in its trades or its services' names.
func declares(raw []byte, forms []string) bool {
	var c struct {
		Trades   []string `json:"trades"`
		Services []struct {
			Name string `json:"name"`
		} `json:"services"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return false
	}
	names := c.Trades
	for _, s := range c.Services {
		names = append(names, s.Name)
	}
	for _, n := range names {
		f := text.Fold(n)
		for _, form := range forms {
			if hasWord(f, form) {
				return true
			}
		}
	}
	return false
}

// shifted is the window moved d days forward (d = 0: as asked). A window
// shorter than a day that ends at midnight and starts after it (the rest
// of today) moves to whole days; a window of more than a day moves by a
// week, once.
func shifted(from, to time.Time, d int, loc *time.Location) (time.Time, time.Time, bool) {
	if d == 0 {
		return from, to, true
	}
	lf, lt := from.In(loc), to.In(loc)
	if to.Sub(from) > 26*time.Hour {
		if d > 1 {
			return time.Time{}, time.Time{}, false
		}
		return lf.AddDate(0, 0, 7), lt.AddDate(0, 0, 7), true
	}
	midnight := time.Date(lf.Year(), lf.Month(), lf.Day(), 0, 0, 0, 0, loc)
	if lt.Hour() == 0 && lt.Minute() == 0 && lf.After(midnight) && lf.Minute()+lf.Second() != 0 {
		lf = midnight
	}
	return lf.AddDate(0, 0, d), lt.AddDate(0, 0, d), true
}

// freeIn keeps the candidates (the best maxTimeChecks) with a free slot in
// [from, to), noting how many.
func freeIn(app core.App, list []ranked, from, to time.Time) ([]ranked, error) {
	n := min(len(list), maxTimeChecks)
	ids := make([]string, n)
	for i := range n {
		ids[i] = list[i].ID
	}
	e := &AvailabilityEvent{App: app, IDs: ids, From: from, To: to, Free: map[string]int{}}
	if err := OnAvailability(app).Trigger(e); err != nil {
		return nil, err
	}
	var kept []ranked
	for _, r := range list[:n] {
		if k := e.Free[r.ID]; k > 0 {
			r.free = k
			kept = append(kept, r)
		}
	}
	return kept, nil
}

var weekdayNames = [...]string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"}

// describe names a window in Spanish: "hoy", "mañana", "el sábado", "el
// sábado 5 de diciembre" (a week away or more), "entre hoy y el domingo".
func describe(from, to time.Time, loc *time.Location, now time.Time) string {
	lf := from.In(loc)
	last := to.Add(-time.Nanosecond).In(loc)
	day := func(t time.Time) string {
		n := now.In(loc)
		today := time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, loc)
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		days := int(d.Sub(today).Hours()/24 + 0.5)
		switch {
		case days == 0:
			return "hoy"
		case days == 1:
			return "mañana"
		case days > 1 && days < 7:
			return "el " + weekdayNames[t.Weekday()]
		}
		return "el " + weekdayNames[t.Weekday()] + " " + itoa(t.Day()) + " de " + monthNames[t.Month()-1]
	}
	if lf.Year() == last.Year() && lf.YearDay() == last.YearDay() {
		return day(lf)
	}
	return "entre " + day(lf) + " y " + day(last)
}

var monthNames = [...]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
	"septiembre", "octubre", "noviembre", "diciembre"}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
