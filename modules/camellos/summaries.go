package camellos

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"

	"camellos/internal/readmodel"
	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
)

// maxCachedSummaries bounds the rated-summary cache: the camellos most
// recently shown (a few hundred bytes each), not every camello.
const maxCachedSummaries = 10_000

// ratedSummary is Summary plus ratingAvg, its fields in the order
// encoding/json writes that map's keys (sorted): the same bytes.
type ratedSummary struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Photo     string   `json:"photo"`
	RatingAvg float64  `json:"ratingAvg"`
	Trades    []string `json:"trades"`
}

// summaries keeps the rated summaries of the camellos most recently
// shown, ofUser the camello profiles of the users most recently read:
// dropped after every committed write of the camello (of a review of it:
// its rating) and on commits by another process.
var (
	summaries = readmodel.Keyed[string, []byte]{
		Name: "camello-summaries", Tables: []string{Collection, ReviewsCollection},
		Bound: "10,000 camellos most recently shown (LRU)", MaxCost: maxCachedSummaries,
		Load: loadSummary, Equal: bytes.Equal,
	}
	ofUser = readmodel.Keyed[string, UserCamello]{
		Name: "camello-of-user", Tables: []string{Collection},
		Bound: "10,000 users most recently read (LRU)", MaxCost: maxCachedSummaries,
		Load: loadOfUser, Equal: func(a, b UserCamello) bool {
			return a.ID == b.ID && a.Status == b.Status && slices.Equal(a.Services, b.Services)
		},
	}
)

// UserCamello is what the access rules of a job's quotes and conversation
// read of the caller's camello profile.
type UserCamello struct {
	ID       string
	Status   string
	Services []string // never modified: shared by the readers
}

// RatedSummaryJSON is the camello as a quote shows it, rendered: Summary
// with its ratingAvg ({id, name, photo, ratingAvg, trades}); ok false when
// there is no such camello. From memory outside a transaction: dropped
// after every committed write of the camello or of a review of it (its
// rating) and on commits by another process.
func RatedSummaryJSON(app core.App, id string) ([]byte, bool, error) { return summaries.Get(app, id) }

func loadSummary(app core.App, id string) ([]byte, bool, error) {
	rec, err := app.FindRecordById(Collection, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	raw, err := json.Marshal(ratedSummary{ID: rec.Id, Name: rec.GetString("name"), Photo: PhotoPath(rec),
		RatingAvg: rec.GetFloat("ratingAvg"), Trades: Trades(rec)})
	return raw, err == nil, err
}

// CachedOfUser is the camello profile of a user (ok false without one), as
// FindFirstRecordByData(Collection, "user", id) reads it (one per user),
// from memory outside a transaction: dropped after every committed write
// of a camello of that user (before and after the write) and on commits by
// another process.
func CachedOfUser(app core.App, userID string) (UserCamello, bool, error) {
	return ofUser.Get(app, userID)
}

func loadOfUser(app core.App, userID string) (UserCamello, bool, error) {
	rec, err := app.FindFirstRecordByData(Collection, "user", userID)
	if errors.Is(err, sql.ErrNoRows) {
		return UserCamello{}, false, nil
	}
	if err != nil {
		return UserCamello{}, false, err
	}
	return UserCamello{ID: rec.Id, Status: rec.GetString("status"), Services: rec.GetStringSlice("services")}, true, nil
}

// bindSummaryCache drops a camello's rated summary after each committed
// write of it or of its reviews, and all of them on another process's commit.
func bindSummaryCache(app core.App) {
	summaries.Declare(app)
	ofUser.Declare(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) {
		summaries.Drop(w.App, w.Record.Id)
		ofUser.Drop(w.App, w.Record.GetString("user"))
	})
	// A profile moved to another user (the dashboard) leaves its old user.
	app.OnRecordUpdate(Collection).BindFunc(func(e *core.RecordEvent) error {
		before := records.Stored(e.App, e.Record).GetString("user")
		if err := e.Next(); err != nil {
			return err
		}
		if before != e.Record.GetString("user") {
			ofUser.Drop(e.App, before)
		}
		return nil
	})
	readmodel.OnWrite(app, ReviewsCollection, func(w readmodel.Write) { summaries.Drop(w.App, w.Record.GetString("camello")) })
}

// CachedSummaries is how many rated summaries are in memory (bench, metrics).
func CachedSummaries(app core.App) int {
	n, _ := summaries.Of(app).Len()
	return n
}
