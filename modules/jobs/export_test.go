package jobs

import (
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// ReminderBatch is how many appointments one sweep transaction claims
// (tests only).
const ReminderBatch = reminderBatch

// RefreshBoardJob applies one job's committed write to the open board
// (the patch its record hook runs; benchmarks).
func RefreshBoardJob(app core.App, id string, oldServices ...string) {
	boardOf(app).refreshJob(id, oldServices...)
}

// BoardDiffs counts the places where the built board differs from a
// fresh build (the read model's check; tests only).
func BoardDiffs(app core.App) (int, error) { return boardOf(app).compare() }

// BoardEntries is how many entries the built board's store holds and how
// many of them are dead (tests only).
func BoardEntries(app core.App) (entries, dead int) {
	bd, ok := boardOf(app).cache.Peek()
	if !ok {
		return 0, 0
	}
	return len(bd.st.entries), bd.st.dead
}

// LoadParties reads a job's parties from the database (the plain indexed
// query the parties projection keeps; benchmarks).
var LoadParties = loadParties

// BoardRow is the columns of a job the board renders (benchmarks).
type BoardRow = boardRow

// DueAppointment is an appointment as the sweep reads it before claiming
// it (tests only).
type DueAppointment = dueAppointment

// ReadDueBatch reads the sweep's first batch at now without claiming it
// (tests only).
func ReadDueBatch(app core.App, now time.Time) ([]DueAppointment, error) {
	b := readDueBatch(app, now.UTC(), now.UTC().Add(ReminderWindow), "", 0, map[string]*time.Location{})
	return b.due, b.err
}

// ClaimedDue is what the sweep reminds of a read batch once its claim
// changed ids (tests only).
var ClaimedDue = claimedDue

// BoardTwoReadersFrom sets how many open jobs a build of the board reads
// with two readers, and returns a function that restores it (tests only).
func BoardTwoReadersFrom(n int64) (restore func()) {
	old := twoReadersFrom
	twoReadersFrom = n
	return func() { twoReadersFrom = old }
}

// BuildBoard builds the open board from the database without keeping it
// (benchmarks).
func BuildBoard(app core.App) error {
	_, err := boardOf(app).build()
	return err
}
