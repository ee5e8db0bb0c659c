package camellos

import (
	"database/sql"
	"encoding/json"
	"errors"

	"camellos/internal/dbwatch"
	"camellos/internal/memo"

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

type summaryCache struct {
	byID *memo.Keyed[string, []byte]
}

const summaryKey = "camellos.summaries"

func summariesOf(app core.App) *summaryCache {
	return app.Store().GetOrSet(summaryKey, func() any {
		return &summaryCache{byID: memo.NewKeyed[string, []byte](maxCachedSummaries, nil)}
	}).(*summaryCache)
}

// RatedSummaryJSON is the camello as a quote shows it, rendered: Summary
// with its ratingAvg ({id, name, photo, ratingAvg, trades}); ok false when
// there is no such camello. From memory outside a transaction: dropped
// after every committed write of the camello or of a review of it (its
// rating) and on commits by another process.
func RatedSummaryJSON(app core.App, id string) ([]byte, bool, error) {
	load := func() ([]byte, bool, error) {
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
	if app.IsTransactional() {
		return load()
	}
	return summariesOf(app).byID.Get(id, load)
}

// bindSummaryCache drops a camello's rated summary after each committed
// write of it or of its reviews, and all of them on another process's commit.
func bindSummaryCache(app core.App) {
	c := summariesOf(app)
	dbwatch.OnExternalCommit(app, c.byID.DropAll)
	camello := func(e *core.RecordEvent) error {
		c.byID.Drop(e.Record.Id)
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(Collection).BindFunc(camello)
	app.OnRecordAfterUpdateSuccess(Collection).BindFunc(camello)
	app.OnRecordAfterDeleteSuccess(Collection).BindFunc(camello)
	review := func(e *core.RecordEvent) error {
		c.byID.Drop(e.Record.GetString("camello"))
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(ReviewsCollection).BindFunc(review)
	app.OnRecordAfterUpdateSuccess(ReviewsCollection).BindFunc(review)
	app.OnRecordAfterDeleteSuccess(ReviewsCollection).BindFunc(review)
}

// CachedSummaries is how many rated summaries are in memory (bench, metrics).
func CachedSummaries(app core.App) int {
	n, _ := summariesOf(app).byID.Len()
	return n
}
