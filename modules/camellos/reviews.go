package camellos

import (
	"errors"

	"camellos/internal/bus"
	"camellos/internal/memo"
	"camellos/internal/records"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// ReviewsCollection is the reviews collection: the clients' ratings of the
// camellos, owned here with the rating they make (ratingAvg, ratingCount).
// The jobs module decides when a job may be reviewed and calls AddReview.
const ReviewsCollection = "reviews"

const reviewChangedKey = "camellos.reviews.changed"

// OnReviewChanged is the app's event fired after every committed write
// (create, update, delete) of a review, Record as written (for a delete, as
// it was). The jobs' open board follows a job's "reviewed" with it.
func OnReviewChanged(app core.App) *hook.Hook[*bus.Change] {
	return app.Store().GetOrSet(reviewChangedKey, func() any {
		return &hook.Hook[*bus.Change]{}
	}).(*hook.Hook[*bus.Change])
}

// bindReviewEvents emits OnReviewChanged after the reviews' record writes
// (AddReview saves a record too).
func bindReviewEvents(app core.App) {
	emit := func(e *core.RecordEvent) error {
		if err := OnReviewChanged(e.App).Trigger(&bus.Change{App: e.App, Record: e.Record}); err != nil {
			return err
		}
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(ReviewsCollection).BindFunc(emit)
	app.OnRecordAfterUpdateSuccess(ReviewsCollection).BindFunc(emit)
	app.OnRecordAfterDeleteSuccess(ReviewsCollection).BindFunc(emit)
}

// ErrAlreadyReviewed: the job already has its review.
var ErrAlreadyReviewed = errors.New("camellos: job already reviewed")

// ReviewRecord is a typed reviews record.
type ReviewRecord struct {
	core.BaseRecordProxy
}

// WrapReview returns rec as a ReviewRecord.
func WrapReview(rec *core.Record) *ReviewRecord {
	r := &ReviewRecord{}
	r.SetProxyRecord(rec)
	return r
}

// JobID is the reviewed job.
func (r *ReviewRecord) JobID() string { return r.GetString("job") }

// CamelloID is the reviewed camello.
func (r *ReviewRecord) CamelloID() string { return r.GetString("camello") }

// Rating is 1 to 5.
func (r *ReviewRecord) Rating() int { return r.GetInt("rating") }

// Comment is the client's comment ("" when none).
func (r *ReviewRecord) Comment() string { return r.GetString("comment") }

// NewReview is a review to add: one per job.
type NewReview struct {
	JobID, CamelloID, ClientID string
	Rating                     int
	Comment                    string
}

// AddReview saves the review of a job and recomputes the camello's rating,
// with txApp (run it in the transaction that checked the job). A job
// reviewed already (also by a racing request, through the unique index)
// is ErrAlreadyReviewed.
func AddReview(txApp core.App, in NewReview) (*ReviewRecord, error) {
	if n, _ := txApp.CountRecords(ReviewsCollection, dbx.HashExp{"job": in.JobID}); n > 0 {
		return nil, ErrAlreadyReviewed
	}
	col, err := txApp.FindCachedCollectionByNameOrId(ReviewsCollection)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	rec.Set("job", in.JobID)
	rec.Set("camello", in.CamelloID)
	rec.Set("client", in.ClientID)
	rec.Set("rating", in.Rating)
	rec.Set("comment", in.Comment)
	if err := txApp.Save(rec); err != nil {
		if records.IsUniqueViolation(err) {
			return nil, ErrAlreadyReviewed
		}
		return nil, err
	}
	return WrapReview(rec), recomputeRating(txApp, in.CamelloID)
}

// recomputeRating stores a camello's ratingAvg and ratingCount from its
// reviews with one UPDATE (no camello record hook runs: the rating is not
// the camello's input; the public index follows the reviews' own hooks).
func recomputeRating(app core.App, camelloID string) error {
	_, err := app.DB().NewQuery(
		"UPDATE " + Collection + " SET " +
			"ratingAvg = (SELECT ROUND(AVG(rating), 2) FROM " + ReviewsCollection + " WHERE camello = {:c}), " +
			"ratingCount = (SELECT COUNT(*) FROM " + ReviewsCollection + " WHERE camello = {:c}) " +
			"WHERE id = {:c}").Bind(dbx.Params{"c": camelloID}).Execute()
	c := summariesOf(app)
	memo.AfterCommit(app, func() { c.byID.Drop(camelloID) })
	return err
}

// RecomputeRatings recomputes every camello's rating from its reviews
// (idempotent; the seed uses it after writing reviews directly).
func RecomputeRatings(app core.App) error {
	_, err := app.DB().NewQuery("UPDATE " + Collection + " SET " +
		"ratingAvg = COALESCE((SELECT ROUND(AVG(rating), 2) FROM " + ReviewsCollection + " r WHERE r.camello = " + Collection + ".id), 0), " +
		"ratingCount = (SELECT COUNT(*) FROM " + ReviewsCollection + " r WHERE r.camello = " + Collection + ".id)").Execute()
	memo.AfterCommit(app, summariesOf(app).byID.DropAll)
	dropIndex(app)
	return err
}

// ReviewedJobs returns which of the jobs have their review, in one query.
func ReviewedJobs(app core.App, jobIDs []any) (map[string]bool, error) {
	out := map[string]bool{}
	if len(jobIDs) == 0 {
		return out, nil
	}
	var ids []string
	if err := app.DB().Select("job").From(ReviewsCollection).Where(dbx.In("job", jobIDs...)).Column(&ids); err != nil {
		return nil, err
	}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}
