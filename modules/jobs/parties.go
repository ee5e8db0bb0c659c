package jobs

import (
	"database/sql"
	"errors"

	"camellos/internal/memo"
	"camellos/internal/readmodel"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// maxCachedParties bounds the parties cache: the jobs most recently read
// (~300 bytes each with the cache's own bookkeeping), not all 200,000 of a
// city.
const maxCachedParties = 30_000

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

type partiesCache struct {
	byJob *memo.Keyed[string, Parties]
}

const partiesKey = "camellos.jobs.parties"

func partiesCacheOf(app core.App) *partiesCache {
	return app.Store().GetOrSet(partiesKey, func() any {
		return &partiesCache{byJob: memo.NewKeyed[string, Parties](maxCachedParties, nil)}
	}).(*partiesCache)
}

// PartiesOf returns the parties of a job (ok false when there is no such
// job), from memory outside a transaction: dropped after every committed
// write of the job (record saves, the conditional assignments, deletes)
// and on commits by another process.
func PartiesOf(app core.App, jobID string) (Parties, bool, error) {
	if app.IsTransactional() {
		return loadParties(app, jobID)
	}
	return partiesCacheOf(app).byJob.Get(jobID, func() (Parties, bool, error) { return loadParties(app, jobID) })
}

func loadParties(app core.App, jobID string) (Parties, bool, error) {
	var p Parties
	err := app.DB().Select("id", "client", "provider", "status", "service").From(Collection).
		Where(dbx.HashExp{"id": jobID}).Limit(1).One(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return p, false, nil
	}
	return p, err == nil, err
}

// bindPartiesCache drops a job's cached parties after each committed write
// of it, and all of them on another process's commit.
func bindPartiesCache(app core.App) {
	c := partiesCacheOf(app)
	readmodel.Declare(app, readmodel.Projection{
		Name: "job-parties", Tables: []string{Collection},
		Bound: "30,000 jobs most recently read (LRU)",
		Drop:  c.byJob.DropAll,
		Check: readmodel.KeyedCheck(c.byJob, loadParties, func(a, b Parties) bool { return a == b }),
	})
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) { c.byJob.Drop(w.Record.Id) })
}

// dropPartiesAfterCommit drops a job's cached parties once the raw write
// of it made with app (a conditional assignment) has committed.
func dropPartiesAfterCommit(app core.App, jobID string) {
	c := partiesCacheOf(app)
	readmodel.AfterCommit(app, func() { c.byJob.Drop(jobID) })
}

// CachedParties is how many jobs' parties are in memory (metrics, bench).
func CachedParties(app core.App) int {
	n, _ := partiesCacheOf(app).byJob.Len()
	return n
}
