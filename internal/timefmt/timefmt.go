// Package timefmt is the one time format of the API (ISO 8601 UTC with
// milliseconds) and its parser.
package timefmt

import (
	"time"

	"github.com/pocketbase/pocketbase/tools/types"
)

// TimeLayout is the one format of every timestamp we answer: ISO 8601 in
// UTC with milliseconds and a trailing Z, as JavaScript's toISOString.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// ISO formats a time in UTC with TimeLayout.
func ISO(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ISODate formats a PocketBase date; the zero date is nil (JSON null).
func ISODate(d types.DateTime) *string {
	if d.IsZero() {
		return nil
	}
	s := ISO(d.Time())
	return &s
}

// ParseTime reads an ISO 8601 / RFC 3339 timestamp (with or without
// fractional seconds); a value without zone is rejected.
func ParseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// DBLayout is how PocketBase stores dates in text columns.
const DBLayout = "2006-01-02 15:04:05.000Z"

// DB formats t as a stored PocketBase date (UTC).
func DB(t time.Time) string { return t.UTC().Format(DBLayout) }

// ISOOfStored formats a stored PocketBase date as
// ISO(record.GetDateTime(...).Time()) would; "" and unreadable values give
// the zero time's form, as they do there.
func ISOOfStored(s string) string {
	dt, _ := types.ParseDateTime(s)
	return ISO(dt.Time())
}

// AppendISOOfStored appends ISOOfStored(s) (unquoted) without parsing when
// s is in DBLayout with a real date and time: the same characters with a T
// for the space. Anything else is parsed as ISOOfStored parses it.
func AppendISOOfStored(dst []byte, s string) []byte {
	if !storedOK(s) {
		return append(dst, ISOOfStored(s)...)
	}
	dst = append(dst, s[:10]...)
	dst = append(dst, 'T')
	return append(dst, s[11:]...)
}

// storedOK reports whether s is "YYYY-MM-DD HH:MM:SS.mmmZ" with a real
// date and time (what time.Parse accepts for DBLayout).
func storedOK(s string) bool {
	const layout = "dddd-dd-dd dd:dd:dd.dddZ"
	if len(s) != len(layout) {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != layout[i] {
			return false
		}
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	if month < 1 || month > 12 || day < 1 || num(11, 2) > 23 || num(14, 2) > 59 || num(17, 2) > 59 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}
