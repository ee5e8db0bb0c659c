package search_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/search"
)

// Festivos in the search, at the fixed Wednesday 18 November 2026 unless
// said (the next ones: Tuesday 8 December, Friday 25 December, Friday 1
// January, Monday 11 January 2027).
func TestInterpretHolidays(t *testing.T) {
	v := testVocabulary()
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, bogota) }
	cases := []struct {
		query    string
		now      time.Time
		from, to string // local; "" = when null
		holidays string // "date name" joined by "; "
		trades   string
		keywords string
	}{
		{"plomero el lunes festivo", time.Time{}, "2027-01-11 00:00", "2027-01-12 00:00", "2027-01-11 Día de los Reyes Magos", "plomería", ""},
		{"el próximo lunes festivo", time.Time{}, "2027-01-11 00:00", "2027-01-12 00:00", "2027-01-11 Día de los Reyes Magos", "", ""},
		{"el jueves festivo", time.Time{}, "2027-03-25 00:00", "2027-03-26 00:00", "2027-03-25 Jueves Santo", "", ""},
		{"festivo", time.Time{}, "2026-12-08 00:00", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "", ""},
		{"pintor para el próximo festivo en la mañana", time.Time{}, "2026-12-08 06:00", "2026-12-08 12:00",
			"2026-12-08 Día de la Inmaculada Concepción", "pintura", ""},
		{"aseo el día festivo", time.Time{}, "2026-12-08 00:00", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "aseo", ""},
		{"mudanza el puente festivo", time.Time{}, "2027-01-09 00:00", "2027-01-12 00:00", "2027-01-11 Día de los Reyes Magos", "mudanzas", ""},
		{"el puente", at(2027, 1, 9, 15, 0), "2027-01-09 15:00", "2027-01-12 00:00", "2027-01-11 Día de los Reyes Magos", "", ""},
		{"el 8 de diciembre", time.Time{}, "2026-12-08 00:00", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "", ""},
		{"el 24 de diciembre", time.Time{}, "2026-12-24 00:00", "2026-12-25 00:00", "", "", ""},
		{"la próxima semana", time.Time{}, "2026-11-23 00:00", "2026-11-30 00:00", "", "", ""},
		{"el lunes", at(2026, 11, 12, 9, 0), "2026-11-16 00:00", "2026-11-17 00:00", "2026-11-16 Independencia de Cartagena", "", ""},
		{"la semana que viene", at(2026, 12, 2, 9, 0), "2026-12-07 00:00", "2026-12-14 00:00", "2026-12-08 Día de la Inmaculada Concepción", "", ""},
		// Just before and just after midnight in Bogotá.
		{"hoy", at(2026, 12, 7, 23, 59), "2026-12-07 23:59", "2026-12-08 00:00", "", "", ""},
		{"mañana", at(2026, 12, 7, 23, 59), "2026-12-08 00:00", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "", ""},
		{"hoy", at(2026, 12, 8, 0, 0), "2026-12-08 00:00", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "", ""},
		{"festivo", at(2026, 12, 8, 23, 59), "2026-12-08 23:59", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "", ""},
		{"festivo", at(2026, 12, 9, 0, 0), "2026-12-25 00:00", "2026-12-26 00:00", "2026-12-25 Navidad", "", ""},
		{"hoy", at(2026, 12, 9, 0, 0), "2026-12-09 00:00", "2026-12-10 00:00", "", "", ""},
		// A holiday's name is not a keyword; other words stay.
		{"electricista festivos urgente", time.Time{}, "2026-12-08 00:00", "2026-12-09 00:00", "2026-12-08 Día de la Inmaculada Concepción", "electricidad", ""},
		{"plomeros baratos", time.Time{}, "", "", "", "plomería", "baratos"},
	}
	for _, c := range cases {
		t.Run(c.query+" "+c.now.Format("01-02T15:04"), func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = wednesday10
			}
			got := search.Interpret(c.query, v, now, bogota)
			if strings.Join(got.Trades, ",") != c.trades || strings.Join(got.Keywords, ",") != c.keywords {
				t.Errorf("trades %v keywords %v", got.Trades, got.Keywords)
			}
			if c.from == "" {
				if got.When != nil {
					t.Fatalf("when = %+v", *got.When)
				}
				return
			}
			if got.When == nil {
				t.Fatal("when = null")
			}
			if got.When.From != local(c.from) || got.When.To != local(c.to) {
				t.Errorf("when %s – %s, want %s – %s", got.When.From, got.When.To, local(c.from), local(c.to))
			}
			hs := []string{}
			for _, h := range got.When.Holidays {
				hs = append(hs, h.Date+" "+h.Name)
				if !strings.HasSuffix(h.Label, " festivo — "+h.Name) {
					t.Errorf("label %q", h.Label)
				}
			}
			if strings.Join(hs, "; ") != c.holidays {
				t.Errorf("holidays %q, want %q", strings.Join(hs, "; "), c.holidays)
			}
		})
	}
}

// Over HTTP (the route reads the real clock): the answer names the
// festivos, whatever today is.
func TestInterpretRouteHolidays(t *testing.T) {
	k := testkit.New(t)
	for _, c := range []struct {
		query, date, name, label string
	}{
		{"el 8 de diciembre", "-12-08", "Día de la Inmaculada Concepción", "festivo — Día de la Inmaculada Concepción"},
		{"el 25 de diciembre", "-12-25", "Navidad", "festivo — Navidad"},
		{"el lunes festivo", "", "", "Lunes festivo — "},
		{"jardinero el próximo festivo", "", "", " festivo — "},
	} {
		r := k.Post("/api/search/interpret", "", map[string]any{"query": c.query})
		testkit.Expect(t, r, 200, "")
		hs, _ := r.Get("interpretation.when.holidays").([]any)
		date, name, label := r.Str("interpretation.when.holidays.0.date"), r.Str("interpretation.when.holidays.0.name"),
			r.Str("interpretation.when.holidays.0.label")
		if len(hs) != 1 || !strings.HasSuffix(date, c.date) || !strings.HasPrefix(name, c.name) || !strings.Contains(label, c.label) {
			t.Errorf("%q: %s", c.query, r.Raw)
		}
		if kw, _ := r.Get("interpretation.keywords").([]any); len(kw) != 0 {
			t.Errorf("%q keywords: %s", c.query, r.Raw)
		}
	}
	// A range without festivos answers an empty list, never null.
	r := k.Post("/api/search/interpret", "", map[string]any{"query": "el 24 de diciembre"})
	if !strings.Contains(string(r.Raw), `"holidays":[]`) {
		t.Errorf("no festivo: %s", r.Raw)
	}
}
