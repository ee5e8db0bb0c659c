package search

import (
	"strconv"
	"strings"
	"time"

	"camellos/internal/festivos"
	"camellos/internal/timefmt"
)

// dayPart is a part of the day, in hours from midnight.
type dayPart struct{ from, to int }

var (
	morning   = dayPart{6, 12}
	afternoon = dayPart{12, 18}
	night     = dayPart{18, 24}
)

var partWords = map[string]dayPart{
	"manana": morning, "mananas": morning, "tarde": afternoon, "tardes": afternoon, "noche": night, "noches": night,
}

var weekdays = map[string]time.Weekday{
	"domingo": time.Sunday, "lunes": time.Monday, "martes": time.Tuesday, "miercoles": time.Wednesday,
	"jueves": time.Thursday, "viernes": time.Friday, "sabado": time.Saturday,
}

var months = map[string]time.Month{
	"enero": time.January, "febrero": time.February, "marzo": time.March, "abril": time.April, "mayo": time.May,
	"junio": time.June, "julio": time.July, "agosto": time.August, "septiembre": time.September,
	"setiembre": time.September, "octubre": time.October, "noviembre": time.November, "diciembre": time.December,
}

var numberWords = map[string]int{
	"un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
	"nueve": 9, "diez": 10, "quince": 15,
}

// dateSpec is what the query says about time, before it is laid on the calendar.
type dateSpec struct {
	set     bool
	start   time.Time // local midnight of the first day
	days    int       // length of the range in days
	part    *dayPart
	hour    int // -1 when none
	minute  int
	hourSet bool
}

// findWhen reads relative dates and times in the app's zone: hoy,
// mañana, pasado mañana, el lunes…, este fin de semana, esta semana, la
// próxima semana, en 3 días, el 24 de diciembre, en la mañana/tarde/noche,
// a las 3 (pm). "mañana" after "la"/"esta" is the morning, not tomorrow.
// Festivos (the Colombian public holidays, internal/festivos): "el
// festivo", "el próximo festivo" is the next one from today on; "el lunes
// festivo" the next Monday that is one (any weekday likewise); "el puente"
// the next long weekend, Saturday to its Monday festivo. Whatever the
// range, the festivos in it are named (When.Holidays).
// The answer is nil when nothing in the query is about time.
func findWhen(ts tokens, ws []string, now time.Time, loc *time.Location) *When {
	local := now.In(loc)
	today := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	spec := dateSpec{hour: -1}
	day := func(offset, days int) {
		if !spec.set {
			spec.set, spec.start, spec.days = true, today.AddDate(0, 0, offset), days
		}
	}
	setPart := func(p dayPart) {
		if spec.part == nil {
			spec.part = &p
		}
	}
	for i := 0; i < len(ws); i++ {
		if ts[i].used {
			continue
		}
		w := ws[i]
		switch {
		case w == "pasado" && ts.at(i+1) == "manana":
			ts.use(i, 2)
			day(2, 1)
		case w == "hoy":
			ts.use(i, 1)
			day(0, 1)
		case w == "manana" || w == "mananas":
			prev := ts.at(i - 1)
			if prev == "la" || prev == "las" || prev == "esta" || w == "mananas" {
				ts.use(i, 1)
				markBefore(ts, i, "la", "las", "en", "por", "de", "a")
				if prev == "esta" {
					ts[i-1].used = true
					day(0, 1)
				}
				setPart(morning)
			} else {
				ts.use(i, 1)
				day(1, 1)
			}
		case (w == "tarde" || w == "tardes" || w == "noche" || w == "noches") && isPartIntro(ts.at(i-1)):
			ts.use(i, 1)
			if ts.at(i-1) == "esta" {
				ts[i-1].used = true
				day(0, 1)
			}
			markBefore(ts, i, "la", "las", "en", "por", "de", "a")
			setPart(partWords[w])
		case w == "temprano":
			ts.use(i, 1)
			setPart(morning)
		case w == "mediodia":
			ts.use(i, 1)
			markBefore(ts, i, "al", "a", "el")
			spec.hour, spec.minute, spec.hourSet = 12, 0, true
		case w == "fin" && ts.at(i+1) == "de" && ts.at(i+2) == "semana", w == "finde":
			n := 1
			if w == "fin" {
				n = 3
			}
			ts.use(i, n)
			markBefore(ts, i, "este", "el", "proximo", "otro", "siguiente")
			markAfter(ts, i+n, "que", "viene")
			// Saturday and Sunday of this week (from today when it is the weekend).
			offset := (int(time.Saturday) - int(local.Weekday()) + 7) % 7
			days := 2
			if local.Weekday() == time.Sunday {
				offset, days = 0, 1
			}
			day(offset, days)
		case w == "semana" && isWeekIntro(ts, i):
			ts.use(i, 1)
			next := ts.at(i-1) != "esta"
			markBefore(ts, i, "esta", "la", "proxima", "siguiente", "otra", "entrante")
			markAfter(ts, i+1, "que", "viene", "entrante", "proxima", "siguiente")
			toMonday := (int(time.Monday) - int(local.Weekday()) + 7) % 7
			if toMonday == 0 {
				toMonday = 7
			}
			if next {
				day(toMonday, 7)
			} else {
				day(0, toMonday)
			}
		case isWeekday(w) && isHolidayWord(ts.at(i+1)):
			wd, _ := weekdayOf(w)
			ts.use(i, 2)
			markBefore(ts, i, "el", "los", "este", "proximo", "siguiente")
			if k, ok := nextHoliday(today, func(d time.Time) bool { return d.Weekday() == wd }); ok {
				day(k, 1)
			}
		case isHolidayWord(w):
			ts.use(i, 1)
			markBefore(ts, i, "el", "los", "un", "este", "proximo", "siguiente", "dia", "para", "en")
			if k, ok := nextHoliday(today, nil); ok {
				day(k, 1)
			}
		case w == "puente":
			ts.use(i, 1)
			markBefore(ts, i, "el", "este", "proximo", "siguiente", "para", "en")
			if isHolidayWord(ts.at(i + 1)) {
				ts.use(i+1, 1)
			}
			markAfter(ts, i+1, "que", "viene")
			if k, ok := nextHoliday(today, func(d time.Time) bool { return d.Weekday() == time.Monday }); ok {
				// Saturday to Monday, from today when the weekend has begun.
				from := max(k-2, 0)
				day(from, k-from+1)
			}
		case isWeekday(w):
			wd, _ := weekdayOf(w)
			ts.use(i, 1)
			this := ts.at(i-1) == "este"
			markBefore(ts, i, "el", "los", "este", "proximo", "siguiente")
			markAfter(ts, i+1, "que", "viene", "proximo", "entrante")
			offset := (int(wd) - int(local.Weekday()) + 7) % 7
			if offset == 0 && !this {
				offset = 7
			}
			day(offset, 1)
		case (w == "en" || w == "dentro") && daysAhead(ws, i) > 0:
			n := daysAhead(ws, i)
			width := 3
			if w == "dentro" {
				width = 4
			}
			ts.use(i, width)
			day(n, 1)
		case (w == "a" && (ts.at(i+1) == "las" || ts.at(i+1) == "la")) && parseHour(ts.at(i+2)) >= 0:
			h, m := parseHour(ts.at(i+2)), parseMinute(ts.at(i+2))
			ts.use(i, 3)
			h = adjustHour(ts, i+3, h)
			spec.hour, spec.minute, spec.hourSet = h, m, true
		case isDayOfMonth(ws, i):
			d, _ := strconv.Atoi(w)
			month := local.Month()
			n := 1
			if ts.at(i+1) == "de" {
				if mo, ok := months[ts.at(i+2)]; ok {
					month, n = mo, 3
				}
			}
			ts.use(i, n)
			markBefore(ts, i, "el")
			target := time.Date(local.Year(), month, d, 0, 0, 0, 0, loc)
			if target.Before(today) {
				if n == 3 {
					target = target.AddDate(1, 0, 0)
				} else {
					target = time.Date(local.Year(), month+1, d, 0, 0, 0, 0, loc)
				}
			}
			if !spec.set {
				spec.set, spec.start, spec.days = true, target, 1
			}
		}
	}
	if !spec.set && spec.part == nil && !spec.hourSet {
		return nil
	}
	return spec.lay(now, today)
}

// lay turns the spec into a range: a date alone is the whole day (or
// days); a part of the day narrows it; an hour is a one-hour range. With
// no date the first such time from now on is meant (today, else tomorrow).
// A range that has begun starts now.
func (s dateSpec) lay(now, today time.Time) *When {
	implicit := !s.set
	if implicit {
		s.start, s.days = today, 1
	}
	from, to := s.start, s.start.AddDate(0, 0, s.days)
	if s.part != nil {
		from = s.start.Add(time.Duration(s.part.from) * time.Hour)
		to = s.start.Add(time.Duration(s.part.to) * time.Hour)
	}
	if s.hourSet {
		from = s.start.Add(time.Duration(s.hour)*time.Hour + time.Duration(s.minute)*time.Minute)
		to = from.Add(time.Hour)
	}
	if implicit && !to.After(now) {
		from, to = from.AddDate(0, 0, 1), to.AddDate(0, 0, 1)
	}
	if n := now.Truncate(time.Minute); from.Before(n) && to.After(n) {
		from = n
	}
	return &When{From: timefmt.ISO(from), To: timefmt.ISO(to),
		Holidays: festivos.Between(from.In(today.Location()), to.Add(-time.Nanosecond).In(today.Location()))}
}

// isHolidayWord reads "festivo", "festivos", "feriado", "feriados".
func isHolidayWord(w string) bool {
	switch w {
	case "festivo", "festivos", "feriado", "feriados":
		return true
	}
	return false
}

// holidayScanDays bounds the search for the next festivo (every weekday
// is one within a few years; Monday within months).
const holidayScanDays = 366 * 8

// nextHoliday returns how many days after today the next festivo is
// (today included) for which keep is true (nil: any).
func nextHoliday(today time.Time, keep func(time.Time) bool) (int, bool) {
	y, m, d := today.Date()
	for k := 0; k < holidayScanDays; k++ {
		day := time.Date(y, m, d+k, 0, 0, 0, 0, time.UTC)
		if festivos.Is(day.Date()) && (keep == nil || keep(day)) {
			return k, true
		}
	}
	return 0, false
}

func isPartIntro(w string) bool {
	switch w {
	case "la", "las", "esta", "en", "por":
		return true
	}
	return false
}

// isWeekIntro tells "esta semana", "la próxima semana", "la semana que
// viene", "semana entrante" from "fin de semana" or "entre semana".
func isWeekIntro(ts tokens, i int) bool {
	switch ts.at(i - 1) {
	case "esta", "proxima", "siguiente", "otra", "entrante":
		return true
	case "la":
		return ts.at(i+1) == "que" || ts.at(i+1) == "entrante" || ts.at(i+1) == "proxima" || ts.at(i+1) == "siguiente"
	}
	return ts.at(i+1) == "entrante"
}

// weekdayOf reads a weekday name, singular or plural ("sábados").
func weekdayOf(w string) (time.Weekday, bool) {
	if d, ok := weekdays[w]; ok {
		return d, true
	}
	d, ok := weekdays[strings.TrimSuffix(w, "s")]
	return d, ok
}

func isWeekday(w string) bool {
	_, ok := weekdayOf(w)
	return ok
}

// markBefore marks the unused words just before i that are in set.
func markBefore(ts tokens, i int, set ...string) {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if ts[j].used || !contains(set, ts[j].fold) {
			return
		}
		ts[j].used = true
	}
}

// markAfter marks the unused words from i on that are in set.
func markAfter(ts tokens, i int, set ...string) {
	for j := i; j < len(ts) && j < i+2; j++ {
		if ts[j].used || !contains(set, ts[j].fold) {
			return
		}
		ts[j].used = true
	}
}

func contains(set []string, w string) bool {
	for _, s := range set {
		if s == w {
			return true
		}
	}
	return false
}

// daysAhead reads "en 3 días" / "dentro de tres días" at i (0 when not).
func daysAhead(ws []string, i int) int {
	j := i + 1
	if ws[i] == "dentro" {
		if j >= len(ws) || ws[j] != "de" {
			return 0
		}
		j++
	}
	if j+1 >= len(ws) || (ws[j+1] != "dias" && ws[j+1] != "dia") {
		return 0
	}
	if n, err := strconv.Atoi(ws[j]); err == nil && n > 0 && n <= 60 {
		return n
	}
	return numberWords[ws[j]]
}

// parseHour reads "3", "15", "3:30", "3pm", "10am" (-1 when not an hour).
func parseHour(w string) int {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "am"), "pm")
	if k := strings.IndexByte(w, ':'); k >= 0 {
		w = w[:k]
	}
	h, err := strconv.Atoi(w)
	if err != nil || h < 0 || h > 23 {
		return -1
	}
	return h
}

func parseMinute(w string) int {
	if k := strings.IndexByte(w, ':'); k >= 0 {
		m, _ := strconv.Atoi(strings.TrimRight(w[k+1:], "apm"))
		return m
	}
	return 0
}

// adjustHour makes a 12-hour clock hour a 24-hour one from what follows
// ("pm", "p m", "de la tarde"); without a hint 1–6 are afternoon hours.
func adjustHour(ts tokens, i, h int) int {
	raw := ts.at(i - 1)
	pm := strings.HasSuffix(raw, "pm")
	am := strings.HasSuffix(raw, "am")
	switch {
	case ts.at(i) == "pm" || (ts.at(i) == "p" && ts.at(i+1) == "m"):
		pm = true
	case ts.at(i) == "am" || (ts.at(i) == "a" && ts.at(i+1) == "m"):
		am = true
	}
	if ts.at(i) == "pm" || ts.at(i) == "am" {
		ts.use(i, 1)
	} else if (ts.at(i) == "p" || ts.at(i) == "a") && ts.at(i+1) == "m" {
		ts.use(i, 2)
	}
	if ts.at(i) == "de" && ts.at(i+1) == "la" {
		switch ts.at(i + 2) {
		case "tarde", "noche":
			pm = true
		case "manana":
			am = true
		}
	}
	switch {
	case h > 12:
		return h
	case pm && h < 12:
		return h + 12
	case am && h == 12:
		return 0
	case !am && !pm && h >= 1 && h <= 6:
		return h + 12
	}
	return h
}

// isDayOfMonth reads "el 24", "24 de diciembre".
func isDayOfMonth(ws []string, i int) bool {
	d, err := strconv.Atoi(ws[i])
	if err != nil || d < 1 || d > 31 {
		return false
	}
	if i+2 < len(ws) && ws[i+1] == "de" {
		if _, ok := months[ws[i+2]]; ok {
			return true
		}
	}
	return i > 0 && ws[i-1] == "el"
}
