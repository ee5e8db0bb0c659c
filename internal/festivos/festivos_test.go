package festivos_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/festivos"
)

// published are the calendars of the decrees and the official publications
// (date and name, in date order). 2014 and 2025 have Sagrado Corazón and
// San Pedro y San Pablo on the same Monday: 17 days off.
var published = map[int]string{
	2014: `01-01 Año Nuevo; 01-06 Día de los Reyes Magos; 03-24 Día de San José; 04-17 Jueves Santo;
		04-18 Viernes Santo; 05-01 Día del Trabajo; 06-02 Ascensión del Señor; 06-23 Corpus Christi;
		06-30 Sagrado Corazón de Jesús; 06-30 San Pedro y San Pablo; 07-20 Día de la Independencia;
		08-07 Batalla de Boyacá; 08-18 Asunción de la Virgen; 10-13 Día de la Raza; 11-03 Día de Todos los Santos;
		11-17 Independencia de Cartagena; 12-08 Día de la Inmaculada Concepción; 12-25 Navidad`,
	2024: `01-01 Año Nuevo; 01-08 Día de los Reyes Magos; 03-25 Día de San José; 03-28 Jueves Santo;
		03-29 Viernes Santo; 05-01 Día del Trabajo; 05-13 Ascensión del Señor; 06-03 Corpus Christi;
		06-10 Sagrado Corazón de Jesús; 07-01 San Pedro y San Pablo; 07-20 Día de la Independencia;
		08-07 Batalla de Boyacá; 08-19 Asunción de la Virgen; 10-14 Día de la Raza; 11-04 Día de Todos los Santos;
		11-11 Independencia de Cartagena; 12-08 Día de la Inmaculada Concepción; 12-25 Navidad`,
	2025: `01-01 Año Nuevo; 01-06 Día de los Reyes Magos; 03-24 Día de San José; 04-17 Jueves Santo;
		04-18 Viernes Santo; 05-01 Día del Trabajo; 06-02 Ascensión del Señor; 06-23 Corpus Christi;
		06-30 Sagrado Corazón de Jesús; 06-30 San Pedro y San Pablo; 07-20 Día de la Independencia;
		08-07 Batalla de Boyacá; 08-18 Asunción de la Virgen; 10-13 Día de la Raza; 11-03 Día de Todos los Santos;
		11-17 Independencia de Cartagena; 12-08 Día de la Inmaculada Concepción; 12-25 Navidad`,
	2026: `01-01 Año Nuevo; 01-12 Día de los Reyes Magos; 03-23 Día de San José; 04-02 Jueves Santo;
		04-03 Viernes Santo; 05-01 Día del Trabajo; 05-18 Ascensión del Señor; 06-08 Corpus Christi;
		06-15 Sagrado Corazón de Jesús; 06-29 San Pedro y San Pablo; 07-20 Día de la Independencia;
		08-07 Batalla de Boyacá; 08-17 Asunción de la Virgen; 10-12 Día de la Raza; 11-02 Día de Todos los Santos;
		11-16 Independencia de Cartagena; 12-08 Día de la Inmaculada Concepción; 12-25 Navidad`,
	2027: `01-01 Año Nuevo; 01-11 Día de los Reyes Magos; 03-22 Día de San José; 03-25 Jueves Santo;
		03-26 Viernes Santo; 05-01 Día del Trabajo; 05-10 Ascensión del Señor; 05-31 Corpus Christi;
		06-07 Sagrado Corazón de Jesús; 07-05 San Pedro y San Pablo; 07-20 Día de la Independencia;
		08-07 Batalla de Boyacá; 08-16 Asunción de la Virgen; 10-18 Día de la Raza; 11-01 Día de Todos los Santos;
		11-15 Independencia de Cartagena; 12-08 Día de la Inmaculada Concepción; 12-25 Navidad`,
	2028: `01-01 Año Nuevo; 01-10 Día de los Reyes Magos; 03-20 Día de San José; 04-13 Jueves Santo;
		04-14 Viernes Santo; 05-01 Día del Trabajo; 05-29 Ascensión del Señor; 06-19 Corpus Christi;
		06-26 Sagrado Corazón de Jesús; 07-03 San Pedro y San Pablo; 07-20 Día de la Independencia;
		08-07 Batalla de Boyacá; 08-21 Asunción de la Virgen; 10-16 Día de la Raza; 11-06 Día de Todos los Santos;
		11-13 Independencia de Cartagena; 12-08 Día de la Inmaculada Concepción; 12-25 Navidad`,
}

func TestPublishedCalendars(t *testing.T) {
	for year, text := range published {
		want := []string{}
		for _, item := range strings.Split(text, ";") {
			want = append(want, strings.Join(strings.Fields(item), " "))
		}
		got := []string{}
		for _, h := range festivos.Year(year) {
			got = append(got, h.Date.Format("01-02")+" "+h.Name)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%d:\n got %s\nwant %s", year, strings.Join(got, "; "), strings.Join(want, "; "))
		}
	}
}

// The brief's 2025 list of days off, as dates.
func TestDaysOff2025(t *testing.T) {
	want := "2025-01-01 2025-01-06 2025-03-24 2025-04-17 2025-04-18 2025-05-01 2025-06-02 2025-06-23 2025-06-30 " +
		"2025-07-20 2025-08-07 2025-08-18 2025-10-13 2025-11-03 2025-11-17 2025-12-08 2025-12-25"
	got := []string{}
	for _, d := range festivos.Between(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)) {
		got = append(got, d.Date)
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestEasterSunday(t *testing.T) {
	for _, c := range []struct {
		year int
		want string
	}{
		{1818, "1818-03-22"}, {1943, "1943-04-25"}, {1984, "1984-04-22"}, {2000, "2000-04-23"},
		{2008, "2008-03-23"}, {2011, "2011-04-24"}, {2019, "2019-04-21"}, {2024, "2024-03-31"},
		{2025, "2025-04-20"}, {2026, "2026-04-05"}, {2027, "2027-03-28"}, {2028, "2028-04-16"},
		{2029, "2029-04-01"}, {2038, "2038-04-25"}, {2285, "2285-03-22"},
	} {
		if got := festivos.EasterSunday(c.year).Format(time.DateOnly); got != c.want {
			t.Errorf("%d: %s, want %s", c.year, got, c.want)
		}
	}
}

// Properties of every year the law has applied to and many to come.
func TestEveryYearProperties(t *testing.T) {
	offsets := map[string]int{"Jueves Santo": -3, "Viernes Santo": -2, "Ascensión del Señor": 43,
		"Corpus Christi": 64, "Sagrado Corazón de Jesús": 71}
	for year := 1984; year <= 2100; year++ {
		list := festivos.Year(year)
		if len(list) != 18 {
			t.Fatalf("%d: %d holidays", year, len(list))
		}
		easter := festivos.EasterSunday(year)
		if easter.Weekday() != time.Sunday || easter.Before(time.Date(year, 3, 22, 0, 0, 0, 0, time.UTC)) ||
			easter.After(time.Date(year, 4, 25, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("%d: Easter %s", year, easter)
		}
		days := map[string][]string{}
		names := map[string]bool{}
		for i, h := range list {
			if h.Date.Year() != year {
				t.Errorf("%d: %s falls in %d", year, h.Name, h.Date.Year())
			}
			if i > 0 && h.Date.Before(list[i-1].Date) {
				t.Errorf("%d: out of order at %s", year, h.Name)
			}
			names[h.Name] = true
			days[h.DateString()] = append(days[h.DateString()], h.Name)
			switch h.Kind {
			case festivos.Fixed:
				if h.Moved() {
					t.Errorf("%d: fixed %s moved", year, h.Name)
				}
			case festivos.Monday:
				wait := h.Date.Sub(h.Original) / (24 * time.Hour)
				if h.Date.Weekday() != time.Monday || wait < 0 || wait > 6 || h.Moved() != (h.Original.Weekday() != time.Monday) {
					t.Errorf("%d: %s on %s (%s), from %s", year, h.Name, h.DateString(), h.Date.Weekday(), h.Original.Format(time.DateOnly))
				}
			case festivos.Easter:
			default:
				t.Errorf("%d: %s has kind %q", year, h.Name, h.Kind)
			}
			if off, ok := offsets[h.Name]; ok {
				if got := int(h.Date.Sub(easter) / (24 * time.Hour)); got != off {
					t.Errorf("%d: %s is Easter%+d, want %+d", year, h.Name, got, off)
				}
			}
		}
		if len(names) != 18 {
			t.Errorf("%d: %d distinct names", year, len(names))
		}
		// Only Sagrado Corazón and San Pedro y San Pablo can share a day,
		// exactly when Easter falls on 19–25 April.
		shared := easter.Month() == time.April && easter.Day() >= 19
		want := 18
		if shared {
			want = 17
		}
		if len(days) != want {
			t.Errorf("%d (Easter %s): %d days off, want %d", year, easter.Format("01-02"), len(days), want)
		}
		for d, ns := range days {
			if len(ns) == 2 && (ns[0] != "Sagrado Corazón de Jesús" || ns[1] != "San Pedro y San Pablo") {
				t.Errorf("%d: %s shared by %v", year, d, ns)
			}
			y, m, dd := mustDate(t, d)
			name, ok := festivos.Name(y, m, dd)
			if !ok || name != strings.Join(ns, festivos.NameSeparator) {
				t.Errorf("%d: Name(%s) = %q", year, d, name)
			}
		}
		// And no other day of the year is one.
		n := 0
		for d := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() == year; d = d.AddDate(0, 0, 1) {
			if festivos.Is(d.Date()) {
				n++
			}
		}
		if n != want {
			t.Errorf("%d: Is says %d days", year, n)
		}
	}
}

func mustDate(t *testing.T, s string) (int, time.Month, int) {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d.Date()
}

func TestLabelsAndLookups(t *testing.T) {
	bogota, err := time.LoadLocation("America/Bogota")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		y     int
		m     time.Month
		d     int
		label string
	}{
		{2025, time.March, 24, "Lunes festivo — Día de San José"},
		{2025, time.June, 30, "Lunes festivo — Sagrado Corazón de Jesús y San Pedro y San Pablo"},
		{2025, time.July, 20, "Domingo festivo — Día de la Independencia"},
		{2026, time.December, 8, "Martes festivo — Día de la Inmaculada Concepción"},
		{2026, time.April, 2, "Jueves festivo — Jueves Santo"},
		{2026, time.March, 19, ""}, // San José's own date, moved to the 23rd
		{2026, time.December, 7, ""},
		{2026, time.December, 32, "Viernes festivo — Año Nuevo"}, // normalised: 2027-01-01
	}
	for _, c := range cases {
		if got := festivos.Label(c.y, c.m, c.d); got != c.label {
			t.Errorf("%d-%d-%d: %q, want %q", c.y, c.m, c.d, got, c.label)
		}
		if (festivos.DayOf(c.y, c.m, c.d) != nil) != (c.label != "") {
			t.Errorf("%d-%d-%d: DayOf disagrees", c.y, c.m, c.d)
		}
	}
	// On reads the date in the instant's own zone: just before and just
	// after midnight in Bogotá around Día de San José 2025.
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2025, 3, 23, 23, 59, 59, 0, bogota), false},
		{time.Date(2025, 3, 24, 0, 0, 0, 0, bogota), true},
		{time.Date(2025, 3, 24, 23, 59, 59, 0, bogota), true},
		{time.Date(2025, 3, 25, 0, 0, 0, 0, bogota), false},
		{time.Date(2025, 3, 25, 4, 59, 59, 0, time.UTC), true}, // 23:59:59 in Bogotá, but the 25th in UTC
	} {
		at := c.at
		if at.Location() == time.UTC {
			at = at.In(bogota)
		}
		if _, ok := festivos.On(at); ok != c.want {
			t.Errorf("On(%s) = %v", at, ok)
		}
	}
	got := festivos.Between(time.Date(2026, 12, 8, 23, 0, 0, 0, bogota), time.Date(2027, 1, 11, 0, 0, 0, 0, bogota))
	want := []festivos.Day{
		{Date: "2026-12-08", Name: "Día de la Inmaculada Concepción", Label: "Martes festivo — Día de la Inmaculada Concepción"},
		{Date: "2026-12-25", Name: "Navidad", Label: "Viernes festivo — Navidad"},
		{Date: "2027-01-01", Name: "Año Nuevo", Label: "Viernes festivo — Año Nuevo"},
		{Date: "2027-01-11", Name: "Día de los Reyes Magos", Label: "Lunes festivo — Día de los Reyes Magos"},
	}
	if len(got) != len(want) {
		t.Fatalf("Between: %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Between[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := len(festivos.Between(time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))); n != 0 {
		t.Errorf("reversed range: %d", n)
	}
}

func BenchmarkIs(b *testing.B) {
	d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < b.N; i++ {
		festivos.Is(d.AddDate(0, 0, i%730).Date())
	}
}
