package camellos

import (
	"errors"
	"github.com/pocketbase/pocketbase/tools/types"

	"camellos/internal/bus"
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
// it was). The reviews' after-commit record hooks are bound once, here:
// the public index and the summaries of this package and the jobs' open
// board (a job's "reviewed") all listen to this event.
func OnReviewChanged(app core.App) *hook.Hook[*bus.Change] {
	return app.Store().GetOrSet(reviewChangedKey, func() any {
		return &hook.Hook[*bus.Change]{}
	}).(*hook.Hook[*bus.Change])
}

// ReviewValidateEvent asks the listeners whether a review may be saved,
// inside the save (every path: our route, the dashboard, a record save).
// The jobs module checks the review's job really happened with that
// camello and client (docs/api/jobs.md, "Reviews"). A listener refuses by
// returning an error.
// JobID, CamelloID and ClientID are the review's, read for the listeners
// (which need not call back into camellos).
type ReviewValidateEvent struct {
	hook.Event
	App                        core.App
	Review                     *ReviewRecord
	JobID, CamelloID, ClientID string
}

const reviewValidateKey = "camellos.reviews.validate"

// newReviewValidate is the validation event of r.
func newReviewValidate(app core.App, r *ReviewRecord) *ReviewValidateEvent {
	return &ReviewValidateEvent{App: app, Review: r, JobID: r.JobID(), CamelloID: r.CamelloID(), ClientID: r.ClientID()}
}

// OnReviewValidate is the app's review validation event.
func OnReviewValidate(app core.App) *hook.Hook[*ReviewValidateEvent] {
	return app.Store().GetOrSet(reviewValidateKey, func() any {
		return &hook.Hook[*ReviewValidateEvent]{}
	}).(*hook.Hook[*ReviewValidateEvent])
}

// bindReviewEvents binds the reviews' record hooks: OnReviewValidate in
// every validation, the camello's rating recomputed in every write's
// transaction (so a review saved from the dashboard counts like one of the
// route), and OnReviewChanged after every committed write (AddReview saves
// a record too).
func bindReviewEvents(app core.App) {
	app.OnRecordValidate(ReviewsCollection).BindFunc(func(e *core.RecordEvent) error {
		if err := OnReviewValidate(e.App).Trigger(newReviewValidate(e.App, WrapReview(e.Record))); err != nil {
			return err
		}
		return e.Next()
	})
	rating := func(e *core.RecordEvent) error {
		ids := []string{e.Record.GetString("camello")}
		if !e.Record.IsNew() {
			if before := records.Stored(e.App, e.Record).GetString("camello"); before != ids[0] {
				ids = append(ids, before)
			}
		}
		if err := e.Next(); err != nil {
			return err
		}
		for _, id := range ids {
			if err := recomputeRating(e.App, id); err != nil {
				return err
			}
		}
		return nil
	}
	app.OnRecordCreate(ReviewsCollection).BindFunc(rating)
	app.OnRecordUpdate(ReviewsCollection).BindFunc(rating)
	app.OnRecordDelete(ReviewsCollection).BindFunc(rating)
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

// ClientID is the client who wrote it.
func (r *ReviewRecord) ClientID() string { return r.GetString("client") }

// Rating is 1 to 5.
func (r *ReviewRecord) Rating() int { return r.GetInt("rating") }

// Created is when the review was written.
func (r *ReviewRecord) Created() types.DateTime { return r.GetDateTime("created") }

// Comment is the client's comment ("" when none).
func (r *ReviewRecord) Comment() string { return r.GetString("comment") }

// NewReview is a review to add: one per job.
type NewReview struct {
	JobID, CamelloID, ClientID string
	Rating                     int
	Comment                    string
}

// AddReview saves the review of a job (its record hooks check the job and
// recompute the camello's rating), with txApp (run it in the transaction that checked the job). A job
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
	return WrapReview(rec), nil
}

// recomputeRating stores a camello's ratingAvg and ratingCount from its
// reviews with one UPDATE (no camello record hook runs: the rating is not
// the camello's input; the public index follows the reviews' own hooks).
func recomputeRating(app core.App, camelloID string) error {
	_, err := app.DB().NewQuery(
		"UPDATE " + Collection + " SET " +
			"ratingAvg = COALESCE((SELECT ROUND(AVG(rating), 2) FROM " + ReviewsCollection + " WHERE camello = {:c} AND sealed = FALSE), 0), " +
			"ratingCount = (SELECT COUNT(*) FROM " + ReviewsCollection + " WHERE camello = {:c} AND sealed = FALSE) " +
			"WHERE id = {:c}").Bind(dbx.Params{"c": camelloID}).Execute()
	summaries.Drop(app, camelloID)
	return err
}

// RecomputeRatings recomputes every camello's rating from its reviews
// (idempotent; the seed uses it after writing reviews directly).
func RecomputeRatings(app core.App) error {
	_, err := app.DB().NewQuery("UPDATE " + Collection + " SET " +
		"ratingAvg = COALESCE((SELECT ROUND(AVG(rating), 2) FROM " + ReviewsCollection + " r WHERE r.camello = " + Collection + ".id AND r.sealed = FALSE), 0), " +
		"ratingCount = (SELECT COUNT(*) FROM " + ReviewsCollection + " r WHERE r.camello = " + Collection + ".id AND r.sealed = FALSE)").Execute()
	summaries.DropWhere(app, func(string, []byte) bool { return true })
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
