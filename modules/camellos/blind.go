package camellos

import (
	"database/sql"
	"errors"
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/internal/timefmt"
	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Two-way double-blind reviews (issue 23, docs/api/reviews.md).
//
// A job paid through the platform (the payments area says so through
// OnReviewTerms) is reviewed by both sides: the client's review of the
// camello (reviews) and the camello's review of the client
// (client_reviews, owned here too so that one transaction publishes both).
// Each is written sealed: hidden from everyone but its author (the public
// listing, the rating, the search text and the other side do not see it)
// until the other side writes its review (both are unsealed in the second
// one's transaction) or its publishAt passes (PublishDue, a sweep that
// claims each review with one conditional UPDATE, then saves the record so
// its hooks recompute the rating and its after-commit events reach every
// projection). A job with no payment keeps the interface's rule: the
// client's review is published at once and the camello writes none.

// ClientReviewsCollection is the camellos' reviews of their clients.
const ClientReviewsCollection = "client_reviews"

// Sides of a review: who writes it.
const (
	SideClient  = "CLIENTE" // the client reviews the camello (reviews)
	SideCamello = "CAMELLO" // the camello reviews the client (client_reviews)
)

// Fields of both review collections.
const (
	FieldReviewJob       = "job"
	FieldReviewCamello   = "camello"
	FieldReviewClient    = "client"
	FieldReviewRating    = "rating"
	FieldReviewComment   = "comment"
	FieldReviewSealed    = "sealed"
	FieldReviewPublishAt = "publishAt"
	FieldReviewCreated   = "created"
)

// PublishSchedule is how often the publication sweep runs in process: a
// review whose window ended is published at most this late.
const PublishSchedule = "*/5 * * * *"

// PublishBatch bounds the reviews published per collection and sweep.
const PublishBatch = 500

// MsgClientReviewNotPaid refuses a camello's review of a job not paid
// through the platform.
const MsgClientReviewNotPaid = "Solo se califica al cliente en trabajos pagados a través de Camellos"

// ErrAlreadyClientReviewed: the job already has the camello's review.
var ErrAlreadyClientReviewed = errors.New("camellos: client already reviewed for this job")

// ReviewTermsEvent asks, inside the transaction that creates a review
// (every path: our routes, the dashboard, a record save), whether the job
// is under the double-blind rule. The payments area answers: no payment
// row leaves Blind false (the interface's rule); a payment refused for a
// review (not settled, refunded, cash not confirmed, window over) returns
// its Spanish error; otherwise Blind and Until (the window's end, when the
// sealed review is published anyway).
type ReviewTermsEvent struct {
	hook.Event
	App   core.App
	JobID string
	Side  string
	Blind bool
	Until time.Time
}

const reviewTermsKey = "camellos.reviews.terms"

// OnReviewTerms is the app's review terms event.
func OnReviewTerms(app core.App) *hook.Hook[*ReviewTermsEvent] {
	return app.Store().GetOrSet(reviewTermsKey, func() any {
		return &hook.Hook[*ReviewTermsEvent]{}
	}).(*hook.Hook[*ReviewTermsEvent])
}

// Sealed reports whether the review is not yet published.
func (r *ReviewRecord) Sealed() bool { return r.GetBool(FieldReviewSealed) }

// PublishAt is when a sealed review is published anyway ("" when the job
// is not under the double-blind rule).
func (r *ReviewRecord) PublishAt() string { return r.GetString(FieldReviewPublishAt) }

// ClientReview is a typed client_reviews record (the camello's review of
// the client). Its JobID, CamelloID, ClientID, Rating, Comment, Sealed
// and PublishAt read as a ReviewRecord's.
type ClientReview struct {
	ReviewRecord
}

// WrapClientReview returns rec as a ClientReview.
func WrapClientReview(rec *core.Record) *ClientReview {
	r := &ClientReview{}
	r.SetProxyRecord(rec)
	return r
}

// otherSide is the collection of the other side's review.
func otherSide(collection string) string {
	if collection == ReviewsCollection {
		return ClientReviewsCollection
	}
	return ReviewsCollection
}

// sealOnCreate decides, before a review is inserted, whether it is sealed:
// the job's terms (OnReviewTerms); under the double-blind rule, written
// sealed until Until unless the other side has written, in which case
// both are published in this transaction. A camello's review of a job
// outside the rule is refused.
func sealOnCreate(side string) func(e *core.RecordEvent) error {
	return func(e *core.RecordEvent) error {
		terms := &ReviewTermsEvent{App: e.App, JobID: e.Record.GetString(FieldReviewJob), Side: side}
		if err := OnReviewTerms(e.App).Trigger(terms); err != nil {
			return err
		}
		if !terms.Blind {
			if side == SideCamello {
				return httpapi.Conflict(MsgClientReviewNotPaid)
			}
			e.Record.Set(FieldReviewSealed, false)
			e.Record.Set(FieldReviewPublishAt, "")
			return e.Next()
		}
		e.Record.Set(FieldReviewPublishAt, timefmt.DB(terms.Until))
		other, err := e.App.FindFirstRecordByFilter(otherSide(e.Record.Collection().Name), FieldReviewJob+" = {:job}",
			dbx.Params{"job": terms.JobID})
		if err != nil || other == nil {
			// the other side has not written: sealed
			e.Record.Set(FieldReviewSealed, true)
			return e.Next()
		}
		e.Record.Set(FieldReviewSealed, false)
		if _, err := publish(e.App, other.Collection().Name, other.Id); err != nil {
			return err
		}
		return e.Next()
	}
}

// publish unseals one review with txApp: one conditional UPDATE claims it
// (a racing sweep or second writer finds it unsealed and does nothing),
// then the record is saved so its hooks recompute the camello's rating and
// its after-commit events reach the listing and every projection. It
// answers whether this call published it.
func publish(txApp core.App, collection, id string) (bool, error) {
	res, err := txApp.DB().NewQuery("UPDATE " + collection + " SET " + FieldReviewSealed + " = FALSE WHERE id = {:id} AND " +
		FieldReviewSealed + " = TRUE").Bind(dbx.Params{"id": id}).Execute()
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, nil
	}
	rec, err := txApp.FindRecordById(collection, id)
	if err != nil {
		return false, err
	}
	return true, txApp.Save(rec)
}

// PublishDue publishes, at now, every sealed review (both collections)
// whose publishAt passed, each in its own transaction, PublishBatch per
// collection. It answers how many this call published: racing sweeps (two
// processes, or the cron and the CLI) publish each review once.
func PublishDue(app core.App, now time.Time) (int, error) {
	published := 0
	for _, col := range []string{ReviewsCollection, ClientReviewsCollection} {
		var ids []string
		err := app.DB().Select("id").From(col).
			Where(dbx.NewExp(FieldReviewSealed+" = TRUE AND "+FieldReviewPublishAt+" != '' AND "+FieldReviewPublishAt+" <= {:now}",
				dbx.Params{"now": timefmt.DB(now)})).
			OrderBy(FieldReviewPublishAt).Limit(PublishBatch).Column(&ids)
		if err != nil {
			return published, err
		}
		for _, id := range ids {
			err := writer.Transaction(app, func(tx core.App) error {
				ok, err := publish(tx, col, id)
				if ok {
					published++
				}
				return err
			})
			if err != nil {
				return published, err
			}
		}
	}
	return published, nil
}

// NewClientReview is the camello's review of the client of a job.
type NewClientReview struct {
	JobID, CamelloID, ClientID string
	Rating                     int
	Comment                    string
}

// AddClientReview saves the camello's review of a job's client with txApp
// (the transaction that checked the job). Its record hooks check the job
// (OnReviewValidate), refuse a job outside the double-blind rule and seal
// or publish it (sealOnCreate). One per job: ErrAlreadyClientReviewed.
func AddClientReview(txApp core.App, in NewClientReview) (*ClientReview, error) {
	if n, _ := txApp.CountRecords(ClientReviewsCollection, dbx.HashExp{FieldReviewJob: in.JobID}); n > 0 {
		return nil, ErrAlreadyClientReviewed
	}
	col, err := txApp.FindCachedCollectionByNameOrId(ClientReviewsCollection)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	rec.Set(FieldReviewJob, in.JobID)
	rec.Set(FieldReviewCamello, in.CamelloID)
	rec.Set(FieldReviewClient, in.ClientID)
	rec.Set(FieldReviewRating, in.Rating)
	rec.Set(FieldReviewComment, in.Comment)
	if err := txApp.Save(rec); err != nil {
		if records.IsUniqueViolation(err) {
			return nil, ErrAlreadyClientReviewed
		}
		return nil, err
	}
	return WrapClientReview(rec), nil
}

// JobReviews are both reviews of one job (nil when not written).
type JobReviews struct {
	OfCamello *ReviewRecord // the client's review of the camello
	OfClient  *ClientReview // the camello's review of the client
}

// ReviewsOfJob reads both reviews of a job.
func ReviewsOfJob(app core.App, jobID string) (JobReviews, error) {
	var out JobReviews
	if rec, err := app.FindFirstRecordByFilter(ReviewsCollection, FieldReviewJob+" = {:job}", dbx.Params{"job": jobID}); err == nil {
		out.OfCamello = WrapReview(rec)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return out, err
	}
	if rec, err := app.FindFirstRecordByFilter(ClientReviewsCollection, FieldReviewJob+" = {:job}", dbx.Params{"job": jobID}); err == nil {
		out.OfClient = WrapClientReview(rec)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return out, err
	}
	return out, nil
}

// ReviewJSON is one review as its readers see it: {id, jobId, camelloId,
// clientId, rating, comment, published, publishAt|null, createdAt}.
func ReviewJSON(r *ReviewRecord) map[string]any {
	var publishAt any
	if t, err := time.Parse(timefmt.DBLayout, r.PublishAt()); err == nil {
		publishAt = timefmt.ISO(t)
	}
	return map[string]any{
		"id": r.Id, "jobId": r.JobID(), "camelloId": r.CamelloID(), "clientId": r.ClientID(),
		"rating": r.Rating(), "comment": r.Comment(), "published": !r.Sealed(), "publishAt": publishAt,
		"createdAt": timefmt.ISO(r.GetDateTime(FieldReviewCreated).Time()),
	}
}

// PublishedClientReviews are the published reviews of a client by the
// camellos (the client's own view and export), newest first, at most limit.
func PublishedClientReviews(app core.App, clientID string, limit int) ([]*ClientReview, error) {
	recs, err := app.FindRecordsByFilter(ClientReviewsCollection, FieldReviewClient+" = {:c} && "+FieldReviewSealed+" = false",
		"-"+FieldReviewCreated, limit, 0, dbx.Params{"c": clientID})
	if err != nil {
		return nil, err
	}
	out := make([]*ClientReview, 0, len(recs))
	for _, r := range recs {
		out = append(out, WrapClientReview(r))
	}
	return out, nil
}

// bindBlindReviews binds the sealing of both collections, the client
// reviews' validation (the same job checks as a review's) and the
// publication sweep's cron.
func bindBlindReviews(app core.App) {
	app.OnRecordCreate(ReviewsCollection).BindFunc(sealOnCreate(SideClient))
	app.OnRecordCreate(ClientReviewsCollection).BindFunc(sealOnCreate(SideCamello))
	app.OnRecordValidate(ClientReviewsCollection).BindFunc(func(e *core.RecordEvent) error {
		if err := OnReviewValidate(e.App).Trigger(newReviewValidate(e.App, WrapReview(e.Record))); err != nil {
			return err
		}
		return e.Next()
	})
	app.Cron().MustAdd("reviewsPublishDue", PublishSchedule, func() {
		if n, err := PublishDue(app, clock.Now(app)); err != nil {
			app.Logger().Warn("reviews: publication sweep failed", "error", err.Error())
		} else if n > 0 {
			app.Logger().Info("reviews: published at the end of their window", "published", n)
		}
	})
}
