package jobs

import "github.com/pocketbase/pocketbase/core"

// ReminderBatch is how many appointments one sweep transaction claims
// (tests only).
const ReminderBatch = reminderBatch

// RefreshBoardJob applies one job's committed write to the open board
// (the patch its record hook runs; benchmarks).
func RefreshBoardJob(app core.App, id string) { boardOf(app).refreshJob(id) }

// LoadParties reads a job's parties from the database (the plain indexed
// query the parties projection keeps; benchmarks).
var LoadParties = loadParties
