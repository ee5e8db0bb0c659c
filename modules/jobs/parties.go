package jobs

import (
	"database/sql"
	"errors"

	"camellos/internal/readmodel"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Parties is who takes part in a job and where it stands: what the access
// rules of the job's quotes and conversation read on every request.
type Parties struct {
	ID       string `db:"id"`
	Client   string `db:"client"`
	Provider string `db:"provider"` // camello id, "" before one is set
	Status   string `db:"status"`
	Service  string `db:"service"`
}

// PartiesOfRecord reads the parties of a job record.
func PartiesOfRecord(job *core.Record) Parties {
	return Parties{ID: job.Id, Client: job.GetString("client"), Provider: job.GetString("provider"),
		Status: job.GetString("status"), Service: job.GetString("service")}
}

// parties keeps the parties of the jobs most recently read (~300 bytes
// each with the cache's bookkeeping), not all 200,000 of a city; dropped
// after every committed write of the job (record saves, the conditional
// assignments, deletes).
var parties = readmodel.Keyed[string, Parties]{
	Name: "job-parties", Tables: []string{Collection}, Bound: "30,000 jobs most recently read (LRU)",
	MaxCost: 30_000, Load: loadParties,
}

// PartiesOf returns the parties of a job (ok false when there is no such
// job), from memory outside a transaction.
func PartiesOf(app core.App, jobID string) (Parties, bool, error) { return parties.Get(app, jobID) }

func loadParties(app core.App, jobID string) (Parties, bool, error) {
	var p Parties
	err := app.DB().Select("id", "client", "provider", "status", "service").From(Collection).
		Where(dbx.HashExp{"id": jobID}).Limit(1).One(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	return p, err == nil, err
}

func bindPartiesCache(app core.App) {
	parties.Declare(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) { parties.Drop(w.App, w.Record.Id) })
}

// dropPartiesAfterCommit drops a job's cached parties once the raw write
// of it made with app (a conditional assignment) has committed.
func dropPartiesAfterCommit(app core.App, jobID string) { parties.Drop(app, jobID) }

// CachedParties is how many jobs' parties are in memory (metrics, bench).
func CachedParties(app core.App) int {
	n, _ := parties.Of(app).Len()
	return n
}
