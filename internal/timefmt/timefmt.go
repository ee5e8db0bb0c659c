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
