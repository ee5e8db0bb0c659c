// Package festivos computes the Colombian public holidays ("festivos") of
// any year, as Ley 51 de 1983 ("Ley Emiliani") sets them:
//
//   - six on their own date, whatever the weekday: 1 January, 1 May,
//     20 July, 7 August, 8 December and 25 December;
//   - seven moved to the following Monday when they do not fall on one:
//     6 January, 19 March, 29 June, 15 August, 12 October, 1 November and
//     11 November;
//   - five that follow Easter Sunday (E): Jueves Santo (E−3) and Viernes
//     Santo (E−2) on their day, and Ascensión (E+39), Corpus Christi (E+60)
//     and Sagrado Corazón (E+68) moved to the following Monday, that is
//     E+43, E+64 and E+71.
//
// That is 18 holidays every year. When Easter falls between 19 and 25
// April, Sagrado Corazón (E+71) lands on the same Monday as San Pedro y San
// Pablo (the first Monday from 29 June): 17 days off that year (2014, 2025,
// 2035…); the day then carries both names.
//
// The rules are applied to every Gregorian year; the law took effect in
// 1984, so earlier years are what it would have made of them, not history.
// Dates are civil dates: which instant a day starts is the caller's zone's
// business (the agenda uses the camello's zone, the search the app's).
package festivos

import (
	"sync"
	"time"
)

// Kinds of holiday.
const (
	Fixed  = "FIXED"  // on its date, whatever the weekday
	Monday = "MONDAY" // moved to the following Monday by Ley 51 de 1983
	Easter = "EASTER" // Jueves and Viernes Santo, on their day
)

// Holiday is one holiday of a year.
type Holiday struct {
	Date     time.Time // midnight UTC of the civil date
	Name     string    // Spanish, e.g. "Día de San José"
	Kind     string    // Fixed, Monday or Easter
	Original time.Time // the date before the move (Date when not moved)
}

// DateString is the holiday's date as "2006-01-02".
func (h Holiday) DateString() string { return h.Date.Format(time.DateOnly) }

// Moved reports whether the law moved the holiday off its original date.
func (h Holiday) Moved() bool { return !h.Date.Equal(h.Original) }

// EasterSunday returns the Gregorian Easter Sunday of year (the anonymous
// Gregorian algorithm, Meeus/Jones/Butcher), at midnight UTC.
func EasterSunday(year int) time.Time {
	a := year % 19
	b, c := year/100, year%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
}

// nextMonday is d when it is a Monday, else the Monday after it.
func nextMonday(d time.Time) time.Time {
	return d.AddDate(0, 0, (int(time.Monday)-int(d.Weekday())+7)%7)
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// compute lays out the 18 holidays of year, sorted by date (a shared date
// keeps the law's order: Sagrado Corazón before San Pedro y San Pablo).
func compute(year int) []Holiday {
	out := make([]Holiday, 0, 18)
	fixed := func(m time.Month, d int, name string) {
		t := date(year, m, d)
		out = append(out, Holiday{Date: t, Original: t, Name: name, Kind: Fixed})
	}
	monday := func(t time.Time, name string) {
		out = append(out, Holiday{Date: nextMonday(t), Original: t, Name: name, Kind: Monday})
	}
	e := EasterSunday(year)
	fixed(time.January, 1, "Año Nuevo")
	monday(date(year, time.January, 6), "Día de los Reyes Magos")
	monday(date(year, time.March, 19), "Día de San José")
	for _, h := range []struct {
		offset int
		name   string
	}{{-3, "Jueves Santo"}, {-2, "Viernes Santo"}} {
		t := e.AddDate(0, 0, h.offset)
		out = append(out, Holiday{Date: t, Original: t, Name: h.name, Kind: Easter})
	}
	fixed(time.May, 1, "Día del Trabajo")
	monday(e.AddDate(0, 0, 39), "Ascensión del Señor")
	monday(e.AddDate(0, 0, 60), "Corpus Christi")
	monday(e.AddDate(0, 0, 68), "Sagrado Corazón de Jesús")
	monday(date(year, time.June, 29), "San Pedro y San Pablo")
	fixed(time.July, 20, "Día de la Independencia")
	fixed(time.August, 7, "Batalla de Boyacá")
	monday(date(year, time.August, 15), "Asunción de la Virgen")
	monday(date(year, time.October, 12), "Día de la Raza")
	monday(date(year, time.November, 1), "Día de Todos los Santos")
	monday(date(year, time.November, 11), "Independencia de Cartagena")
	fixed(time.December, 8, "Día de la Inmaculada Concepción")
	fixed(time.December, 25, "Navidad")
	// Already in date order but for the Easter-based ones among the
	// others: a stable insertion sort keeps the law's order on ties.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Date.Before(out[j-1].Date); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// yearTable is a year's holidays and their names by day of the year.
type yearTable struct {
	list  []Holiday
	byDay [367]string // YearDay → name(s), "" on other days
}

var years sync.Map // int → *yearTable

func tableOf(year int) *yearTable {
	if t, ok := years.Load(year); ok {
		return t.(*yearTable)
	}
	t := &yearTable{list: compute(year)}
	for _, h := range t.list {
		yd := h.Date.YearDay()
		if t.byDay[yd] != "" {
			t.byDay[yd] += NameSeparator + h.Name
		} else {
			t.byDay[yd] = h.Name
		}
	}
	got, _ := years.LoadOrStore(year, t)
	return got.(*yearTable)
}

// NameSeparator joins the names of holidays that share a day.
const NameSeparator = " y "

// Year returns the 18 holidays of year, sorted by date (a copy).
func Year(year int) []Holiday {
	return append([]Holiday(nil), tableOf(year).list...)
}

// Name returns the holiday name(s) of the civil date y-m-d ("" and false
// when it is not a holiday). Out-of-range days are normalised as
// time.Date does.
func Name(y int, m time.Month, d int) (string, bool) {
	t := date(y, m, d)
	name := tableOf(t.Year()).byDay[t.YearDay()]
	return name, name != ""
}

// On is Name of t's civil date as read in t's location.
func On(t time.Time) (string, bool) {
	y, m, d := t.Date()
	return Name(y, m, d)
}

// Is reports whether the civil date y-m-d is a holiday.
func Is(y int, m time.Month, d int) bool {
	_, ok := Name(y, m, d)
	return ok
}

// weekdayNames are the Spanish weekday names, capitalised, from Sunday.
var weekdayNames = [7]string{"Domingo", "Lunes", "Martes", "Miércoles", "Jueves", "Viernes", "Sábado"}

// Label names a holiday date as people say it: "Lunes festivo — Día de
// San José" ("" when the date is not a holiday).
func Label(y int, m time.Month, d int) string {
	name, ok := Name(y, m, d)
	if !ok {
		return ""
	}
	return weekdayNames[date(y, m, d).Weekday()] + " festivo — " + name
}

// Day is a holiday as the API answers it.
type Day struct {
	Date  string `json:"date"`  // "2006-01-02"
	Name  string `json:"name"`  // "Día de San José" (two joined by " y " when they share the day)
	Label string `json:"label"` // "Lunes festivo — Día de San José"
}

// DayOf returns the Day of the civil date y-m-d, or nil when it is not a
// holiday.
func DayOf(y int, m time.Month, d int) *Day {
	name, ok := Name(y, m, d)
	if !ok {
		return nil
	}
	return &Day{Date: date(y, m, d).Format(time.DateOnly), Name: name, Label: Label(y, m, d)}
}

// Between lists the holiday days whose civil date lies in [from, to] (both
// civil dates, read in their own locations), in date order; a day shared by
// two holidays is one entry.
func Between(from, to time.Time) []Day {
	out := []Day{}
	fy, fm, fd := from.Date()
	ty, tm, td := to.Date()
	first, last := date(fy, fm, fd), date(ty, tm, td)
	if last.Before(first) {
		return out
	}
	for y := first.Year(); y <= last.Year(); y++ {
		seen := ""
		for _, h := range tableOf(y).list {
			if h.Date.Before(first) || h.Date.After(last) || h.DateString() == seen {
				continue
			}
			seen = h.DateString()
			y, m, d := h.Date.Date()
			out = append(out, *DayOf(y, m, d))
		}
	}
	return out
}
