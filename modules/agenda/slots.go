package agenda

import (
	"sort"
	"time"

	"camellos/internal/festivos"
	"camellos/modules/appointments"
)

// SlotLength is the length of every slot: one appointment.
const SlotLength = appointments.Length

// DayMinutes is the end of a day ("24:00") in minutes after midnight.
const DayMinutes = 24 * 60

// Range is one weekly availability range: on Weekday (0 = Sunday) from
// Start to End, in minutes after local midnight (0 ≤ Start < End ≤ 1440;
// End 1440 is "24:00"). A range never crosses midnight: availability that
// does is two ranges, e.g. Mon 22:00–24:00 and Tue 00:00–02:00.
type Range struct {
	Weekday int
	Start   int
	End     int
}

// Interval is a span of absolute time [Start, End).
type Interval struct {
	Start time.Time
	End   time.Time
}

// Overlaps reports whether two intervals share some time.
func (i Interval) Overlaps(o Interval) bool {
	return i.Start.Before(o.End) && o.Start.Before(i.End)
}

// Rules are a camello's booking rules, as durations; the zero value has
// none (FreeSlots then lists every free slot from Now on).
type Rules struct {
	MinNotice    time.Duration // a slot starts at least this long after Now
	Buffer       time.Duration // kept free before and after every busy interval
	Horizon      time.Duration // a slot starts at most this long after Now (0: no limit)
	TravelBuffer time.Duration // kept instead of Buffer, when larger, around a busy interval in another place
}

// Pad is the gap kept between a slot at place and a busy interval at
// busyPlace: Buffer, or TravelBuffer when it is larger and the places
// differ or either is unknown ("").
func (r Rules) Pad(place, busyPlace string) time.Duration {
	if r.TravelBuffer > r.Buffer && (place == "" || busyPlace == "" || place != busyPlace) {
		return r.TravelBuffer
	}
	return r.Buffer
}

// uniform reports whether every busy interval gets the same pad (Buffer),
// whatever the places.
func (r Rules) uniform() bool { return r.TravelBuffer <= r.Buffer }

// maxPad is the largest gap kept around a busy interval.
func (r Rules) maxPad() time.Duration { return max(r.Buffer, r.TravelBuffer) }

// SlotQuery is everything FreeSlots needs; it reads no clock and no database.
type SlotQuery struct {
	Location *time.Location  // the camello's IANA zone (nil = UTC)
	Weekly   []Range         // weekly availability in that zone
	Blocked  map[string]bool // blocked local dates, "2006-01-02"
	// SkipHolidays: no slot on a Colombian public holiday (the local
	// date in Location), for a camello who does not work festivos.
	SkipHolidays bool
	Busy         []Interval // PROGRAMADA appointments
	BusyPlaces   []string   // optional: BusyPlaces[i] is the place of Busy[i] ("" or missing: unknown)
	Place        string     // the place of the booking asked for ("" unknown)
	Rules        Rules      // notice, buffers, horizon
	From, To     time.Time  // the window asked for
	Now          time.Time  // slots starting before Now + Rules.MinNotice are too soon
}

// FreeSlots lists the free 60-minute slots of a weekly schedule within
// [From, To], sorted and in UTC. Slots are laid back to back from the start
// of each range, in the range's local date and zone, measured in real time:
// on a day whose clocks jump forward a range holds fewer slots, on one
// whose clocks fall back it holds more (see WallTime for wall times that do
// not exist or exist twice). A slot is kept when it fits wholly inside its
// range and inside [From, To], starts no earlier than Now + MinNotice and
// no later than Now + Horizon, is not on a blocked date (nor on a festivo
// with SkipHolidays) and keeps its pad
// (Rules.Pad) from every busy interval.
//
// It is the one slot arithmetic of the service: the slots listing and the
// booking, rescheduling and series checks all ask it.
func FreeSlots(q SlotQuery) []Interval {
	return freeSlots(q, blocking(q.Rules, q.Busy, q.BusyPlaces, q.Place))
}

// blocking indexes the busy intervals widened by their pads for a slot at
// place: a slot is free when it overlaps none of them.
func blocking(r Rules, busy []Interval, places []string, place string) busyIndex {
	if r.Buffer == 0 && r.uniform() {
		return sortedBusy(busy)
	}
	wide := make([]Interval, len(busy))
	for i, b := range busy {
		bp := ""
		if i < len(places) {
			bp = places[i]
		}
		pad := r.Pad(place, bp)
		wide[i] = Interval{Start: b.Start.Add(-pad), End: b.End.Add(pad)}
	}
	return sortedBusy(wide)
}

// freeSlots is FreeSlots with the blocking intervals already indexed (q.Busy
// is not read).
func freeSlots(q SlotQuery, busyList busyIndex) []Interval {
	loc := q.Location
	if loc == nil {
		loc = time.UTC
	}
	if !q.To.After(q.From) {
		return []Interval{}
	}
	earliest := q.From
	if soonest := q.Now.Add(max(q.Rules.MinNotice, 0)); soonest.After(earliest) {
		earliest = soonest
	}
	latest := q.To // the latest start
	if q.Rules.Horizon > 0 {
		if h := q.Now.Add(q.Rules.Horizon); h.Before(latest) {
			latest = h
		}
	}
	if latest.Before(earliest) {
		return []Interval{}
	}
	var byDay [7][]Range
	weekHours := 0
	for _, r := range q.Weekly {
		if r.Weekday >= 0 && r.Weekday < 7 && r.Start >= 0 && r.End <= DayMinutes && r.Start < r.End {
			byDay[r.Weekday] = append(byDay[r.Weekday], r)
			weekHours += (r.End - r.Start) / 60
		}
	}
	// Local calendar dates that can hold a slot of the window: a range of
	// date D lies within [D 00:00, D+1 00:00] local time.
	fy, fm, fd := q.From.In(loc).Date()
	lastEnd := q.To
	if l := latest.Add(SlotLength); l.Before(lastEnd) {
		lastEnd = l
	}
	ty, tm, td := lastEnd.In(loc).Date()
	first := time.Date(fy, fm, fd-1, 0, 0, 0, 0, time.UTC)
	last := time.Date(ty, tm, td, 0, 0, 0, 0, time.UTC)
	// room for the slots of the window less its bookings (a guess)
	days := int(last.Sub(first)/(24*time.Hour)) + 1
	guess := weekHours*days/7 - busyList.count(earliest, q.To) + 8
	out := make([]Interval, 0, max(min(guess, 2048), 8))
	cur := busyList.cursor()
	for day := first; !day.After(last); day = day.AddDate(0, 0, 1) {
		if len(q.Blocked) > 0 && q.Blocked[day.Format(DateLayout)] {
			continue
		}
		y, m, d := day.Date()
		if q.SkipHolidays && festivos.Is(y, m, d) {
			continue
		}
		for _, r := range byDay[day.Weekday()] {
			rangeEnd := WallTime(y, m, d, r.End, loc)
			for t := WallTime(y, m, d, r.Start, loc); !t.Add(SlotLength).After(rangeEnd); t = t.Add(SlotLength) {
				s := Interval{Start: t, End: t.Add(SlotLength)} // WallTime is in UTC
				if s.End.After(q.To) || s.Start.After(latest) {
					break
				}
				if s.Start.Before(earliest) || cur.overlaps(s) {
					continue
				}
				out = append(out, s)
			}
		}
	}
	// Days and their sorted, disjoint ranges lay the slots in order; sort
	// only when they did not (ranges given out of order or overlapping).
	// Keep each start once, so ranges saved around the hook (raw SQL)
	// cannot double a slot.
	inOrder := true
	for i := 1; i < len(out); i++ {
		if !out[i-1].Start.Before(out[i].Start) {
			inOrder = false
			break
		}
	}
	if inOrder {
		return out
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	uniq := out[:0]
	for i, s := range out {
		if i == 0 || !s.Start.Equal(uniq[len(uniq)-1].Start) {
			uniq = append(uniq, s)
		}
	}
	return uniq
}

// busyIndex is the busy intervals sorted by start, with the running
// maximum of their ends, so one overlap test is a binary search.
type busyIndex struct {
	list   []Interval
	maxEnd []time.Time // maxEnd[i] = latest End among list[:i+1]
}

func sortedBusy(in []Interval) busyIndex {
	list := append([]Interval(nil), in...)
	sort.Slice(list, func(i, j int) bool { return list[i].Start.Before(list[j].Start) })
	maxEnd := make([]time.Time, len(list))
	for i, b := range list {
		maxEnd[i] = b.End
		if i > 0 && maxEnd[i-1].After(b.End) {
			maxEnd[i] = maxEnd[i-1]
		}
	}
	return busyIndex{list: list, maxEnd: maxEnd}
}

// before returns how many intervals start before t (a binary search).
func (x busyIndex) before(t time.Time) int {
	lo, hi := 0, len(x.list)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x.list[mid].Start.Before(t) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// count returns how many intervals start within [from, to).
func (x busyIndex) count(from, to time.Time) int {
	if !from.Before(to) {
		return 0
	}
	return x.before(to) - x.before(from)
}

// busyCursor tells whether a slot overlaps some busy interval: among those
// starting before the slot ends, the latest end must be after it starts.
// Slots are asked mostly in increasing order:
// it walks forward from the previous answer, and searches again only when
// a slot ends earlier than the previous one.
type busyCursor struct {
	x       busyIndex
	n       int // intervals starting before end
	end     time.Time
	started bool
}

func (x busyIndex) cursor() *busyCursor { return &busyCursor{x: x} }

func (c *busyCursor) overlaps(s Interval) bool {
	list := c.x.list
	if !c.started || s.End.Before(c.end) {
		c.n, c.started = c.x.before(s.End), true
	} else {
		for c.n < len(list) && list[c.n].Start.Before(s.End) {
			c.n++
		}
	}
	c.end = s.End
	return c.n > 0 && c.x.maxEnd[c.n-1].After(s.Start)
}

// WallTime is the instant at which the wall clock of loc reads the given
// date plus minutes after midnight (minutes may reach 1440, the next
// midnight). Like JavaScript's Temporal "compatible" rule, a wall time
// that happens twice (clocks falling back) is its earlier instant, and one
// that never happens (clocks jumping forward) is moved forward by the
// length of the jump (02:30 on a 02:00→03:00 day is 03:30).
func WallTime(y int, m time.Month, d, minutes int, loc *time.Location) time.Time {
	naive := time.Date(y, m, d, 0, minutes, 0, 0, time.UTC)
	_, before := naive.Add(-24 * time.Hour).In(loc).Zone()
	_, after := naive.Add(24 * time.Hour).In(loc).Zone()
	var best time.Time
	found := false
	for _, off := range []int{before, after} {
		t := naive.Add(-time.Duration(off) * time.Second)
		if _, o := t.In(loc).Zone(); o == off && (!found || t.Before(best)) {
			best, found = t, true
		}
	}
	if !found {
		best = naive.Add(-time.Duration(before) * time.Second)
	}
	return best.UTC()
}
