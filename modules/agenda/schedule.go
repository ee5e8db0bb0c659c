package agenda

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"camellos/internal/config"
	"camellos/internal/festivos"
	"camellos/internal/httpapi"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collections of the agenda and their limits.
const (
	AvailabilityCollection = "availability"

	DateLayout      = "2006-01-02"
	DefaultTimezone = config.DefaultTimezone
	MaxRanges       = 70
	MaxBlockedDates = 366
)

// WeeklyRange is a range as stored and answered: {weekday, start, end}.
type WeeklyRange struct {
	Weekday int    `json:"weekday"`
	Start   string `json:"start"`
	End     string `json:"end"`
}

// Schedule is a camello's availability, parsed.
type Schedule struct {
	Timezone string
	Location *time.Location
	Weekly   []WeeklyRange
	Ranges   []Range
	Blocked  []string
	Booking  BookingRules // notice, buffers, horizon
	// WorksHolidays: the camello takes bookings on Colombian public
	// holidays (festivos). false, the default: no slot on a festivo.
	WorksHolidays bool
}

// LoadZone loads an IANA zone name; "", "Local" and unknown names fail.
func LoadZone(name string) (*time.Location, bool) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	return loc, err == nil
}

// DefaultZone is the zone of a camello without saved availability: its
// profile's timezone, else APP_TIMEZONE, else America/Bogota.
func DefaultZone(app core.App, camello *core.Record) string {
	return defaultZoneOf(app, camello.GetString("timezone"))
}

// defaultZoneOf is DefaultZone of a camello whose profile's timezone is tz.
func defaultZoneOf(app core.App, tz string) string {
	for _, name := range []string{tz, config.Of(app).Timezone} {
		if _, ok := LoadZone(name); ok {
			return name
		}
	}
	return DefaultTimezone
}

// ParseClock reads "HH:MM" as minutes after midnight; "24:00" only when
// allowEnd (the end of a range).
func ParseClock(s string, allowEnd bool) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	h, err1 := strconv.Atoi(s[:2])
	m, err2 := strconv.Atoi(s[3:])
	if err1 != nil || err2 != nil || h < 0 || m < 0 || m > 59 {
		return 0, false
	}
	if h == 24 && m == 0 && allowEnd {
		return DayMinutes, true
	}
	if h > 23 {
		return 0, false
	}
	return h*60 + m, true
}

// CheckSchedule validates a timezone, weekly ranges and blocked dates,
// adding Spanish field errors to v ("timezone", "weekly.N.start", ...), and
// returns the normalised schedule (ranges sorted, dates sorted and unique).
// The PUT route and the availability record hook share it.
func CheckSchedule(v *httpapi.Validation, tz string, weekly []WeeklyRange, blocked []string) Schedule {
	s := Schedule{Timezone: tz, Weekly: []WeeklyRange{}, Ranges: []Range{}, Blocked: []string{}, Booking: DefaultBookingRules}
	if loc, ok := LoadZone(tz); ok {
		s.Location = loc
	} else {
		v.Add("timezone", "Zona horaria IANA inválida (por ejemplo America/Bogota)")
	}
	if len(weekly) > MaxRanges {
		v.Add("weekly", fmt.Sprintf("Como máximo %d rangos", MaxRanges))
		return s
	}
	type indexed struct {
		Range
		i int
	}
	ok := []indexed{}
	for i, w := range weekly {
		field := fmt.Sprintf("weekly.%d", i)
		bad := false
		if w.Weekday < 0 || w.Weekday > 6 {
			v.Add(field+".weekday", "Debe ser un día de 0 (domingo) a 6 (sábado)")
			bad = true
		}
		start, okS := ParseClock(w.Start, false)
		if !okS {
			v.Add(field+".start", "Hora inválida: usa HH:MM entre 00:00 y 23:59")
			bad = true
		}
		end, okE := ParseClock(w.End, true)
		if !okE {
			v.Add(field+".end", "Hora inválida: usa HH:MM entre 00:00 y 24:00")
			bad = true
		}
		if okS && okE && end <= start {
			v.Add(field+".end", "La hora de fin debe ser posterior a la de inicio (usa 24:00 para medianoche)")
			bad = true
		}
		if !bad {
			ok = append(ok, indexed{Range{w.Weekday, start, end}, i})
		}
	}
	sort.SliceStable(ok, func(a, b int) bool {
		if ok[a].Weekday != ok[b].Weekday {
			return ok[a].Weekday < ok[b].Weekday
		}
		return ok[a].Start < ok[b].Start
	})
	for k, r := range ok {
		if k > 0 && ok[k-1].Weekday == r.Weekday && r.Start < ok[k-1].End {
			v.Add(fmt.Sprintf("weekly.%d", r.i), fmt.Sprintf("Se cruza con otro rango del mismo día (weekly.%d)", ok[k-1].i))
			continue
		}
		s.Ranges = append(s.Ranges, r.Range)
		s.Weekly = append(s.Weekly, weeklyOf(r.Range))
	}
	if len(blocked) > MaxBlockedDates {
		v.Add("blockedDates", fmt.Sprintf("Como máximo %d fechas", MaxBlockedDates))
		return s
	}
	seen := map[string]bool{}
	for i, d := range blocked {
		if t, err := time.Parse(DateLayout, d); err != nil || t.Format(DateLayout) != d {
			v.Add(fmt.Sprintf("blockedDates.%d", i), "Fecha inválida: usa AAAA-MM-DD")
			continue
		}
		if !seen[d] {
			seen[d] = true
			s.Blocked = append(s.Blocked, d)
		}
	}
	sort.Strings(s.Blocked)
	return s
}

func hhmm(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

func weeklyOf(r Range) WeeklyRange {
	return WeeklyRange{Weekday: r.Weekday, Start: hhmm(r.Start), End: hhmm(r.End)}
}

// decodeJSONField reads a JSON field of a record into dst.
func decodeJSONField(rec *core.Record, field string, dst any) error {
	raw, err := json.Marshal(rec.Get(field))
	if err != nil {
		return err
	}
	return decodeJSONText(string(raw), dst)
}

// decodeJSONText reads JSON text into dst; empty, null and "" leave it alone.
func decodeJSONText(raw string, dst any) error {
	if s := strings.TrimSpace(raw); s == "" || s == "null" || s == `""` {
		return nil
	}
	return json.Unmarshal([]byte(raw), dst)
}

// findAvailability returns the camello's availability record, or nil.
func findAvailability(app core.App, camelloID string) *core.Record {
	rec, err := app.FindFirstRecordByData(AvailabilityCollection, "camello", camelloID)
	if err != nil {
		return nil
	}
	return rec
}

// LoadSchedule returns the camello's saved schedule, or an empty one in its
// default zone. It reads the availability's columns (one row, no record
// built), as scheduleOf reads the record.
func LoadSchedule(app core.App, camello *core.Record) Schedule {
	var row struct {
		Zone     string `db:"zone"`
		Weekly   string `db:"weekly"`
		Blocked  string `db:"blocked"`
		Notice   int    `db:"notice"`
		Buffer   int    `db:"buffer"`
		Horizon  int    `db:"horizon"`
		Travel   int    `db:"travel"`
		Holidays bool   `db:"holidays"`
	}
	err := app.DB().NewQuery("SELECT IFNULL(timezone, '') AS zone, IFNULL(weekly, '') AS weekly, IFNULL(blockedDates, '') AS blocked, " +
		"IFNULL(minNoticeMinutes, 0) AS notice, IFNULL(bufferMinutes, 0) AS buffer, IFNULL(horizonDays, 0) AS horizon, " +
		"IFNULL(travelBufferMinutes, 0) AS travel, IFNULL(worksHolidays, 0) AS holidays " +
		"FROM " + AvailabilityCollection + " WHERE camello = {:id} LIMIT 1").Bind(dbx.Params{"id": camello.Id}).One(&row)
	if err != nil {
		return emptySchedule(DefaultZone(app, camello))
	}
	return scheduleOfJSON(row.Zone, row.Weekly, row.Blocked, BookingRules{row.Notice, row.Buffer, row.Horizon, row.Travel}, row.Holidays)
}

// emptySchedule is the schedule of a camello without saved availability,
// in the zone tz.
func emptySchedule(tz string) Schedule {
	loc, _ := LoadZone(tz)
	return Schedule{Timezone: tz, Location: loc, Weekly: []WeeklyRange{}, Ranges: []Range{}, Blocked: []string{},
		Booking: DefaultBookingRules}
}

// scheduleOf parses an availability record; whatever does not validate is
// left out (the record hook keeps stored data valid).
func scheduleOf(rec *core.Record) Schedule {
	var weekly []WeeklyRange
	var blocked []string
	_ = decodeJSONField(rec, "weekly", &weekly)
	_ = decodeJSONField(rec, "blockedDates", &blocked)
	s := storedSchedule(rec.GetString("timezone"), weekly, blocked)
	s.Booking = rulesOf(rec)
	s.WorksHolidays = rec.GetBool("worksHolidays")
	return s
}

// scheduleOfJSON is scheduleOf for the stored columns of an availability
// (weekly and blockedDates as their JSON text).
func scheduleOfJSON(tz, weeklyJSON, blockedJSON string, b BookingRules, worksHolidays bool) Schedule {
	var weekly []WeeklyRange
	var blocked []string
	_ = decodeJSONText(weeklyJSON, &weekly)
	_ = decodeJSONText(blockedJSON, &blocked)
	s := storedSchedule(tz, weekly, blocked)
	s.Booking = b.normalised()
	s.WorksHolidays = worksHolidays
	return s
}

// storedSchedule normalises a stored schedule, in America/Bogota when its
// zone does not load.
func storedSchedule(tz string, weekly []WeeklyRange, blocked []string) Schedule {
	s := CheckSchedule(httpapi.NewValidation(), tz, weekly, blocked)
	if s.Location == nil {
		s.Location, _ = LoadZone(DefaultTimezone)
	}
	return s
}

// ClosedOn reports whether the schedule takes no booking on the local date
// y-m-d because it is a festivo the camello does not work, with the
// holiday's name.
func (s Schedule) ClosedOn(y int, m time.Month, d int) (string, bool) {
	if s.WorksHolidays {
		return "", false
	}
	return festivos.Name(y, m, d)
}

// BlockedSet returns the schedule's blocked dates as a set.
func (s Schedule) BlockedSet() map[string]bool {
	m := make(map[string]bool, len(s.Blocked))
	for _, d := range s.Blocked {
		m[d] = true
	}
	return m
}
