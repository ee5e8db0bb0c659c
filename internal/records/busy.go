package records

import (
	"errors"
	"strings"
)

// SQLite's primary result codes for a lock another connection holds.
const (
	sqliteBusy   = 5 // SQLITE_BUSY (and its extended codes: 261 recovery, 517 snapshot, 773 timeout)
	sqliteLocked = 6 // SQLITE_LOCKED
)

// IsBusy reports whether err is SQLite refusing a write because of another
// connection's lock or commit: "database is locked" after the busy
// timeout (SQLITE_BUSY), or at once when the transaction's read snapshot
// went stale before its first write (SQLITE_BUSY_SNAPSHOT, 517). Running
// the transaction again can succeed.
func IsBusy(err error) bool {
	if err == nil {
		return false
	}
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff {
		case sqliteBusy, sqliteLocked:
			return true
		}
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "database table is locked") ||
		strings.Contains(msg, "SQLITE_BUSY")
}
