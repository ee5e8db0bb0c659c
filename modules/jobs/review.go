package jobs

import (
	"errors"
	"math"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/privacy"
	"camellos/internal/records"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

// Messages of the review.
const (
	MsgOnlyClient      = "Solo el cliente del trabajo puede calificarlo"
	MsgReviewNotDone   = "Solo se califica un trabajo completado"
	MsgAlreadyReviewed = "El trabajo ya fue calificado"
)

// Messages of the camello's review of the client.
const (
	MsgOnlyCamelloReviews = "Solo el camello del trabajo califica a su cliente"
	MsgClientReviewed     = "Ya calificaste al cliente de este trabajo"
	MsgReviewsNotParty    = "Solo las partes del trabajo ven sus reseñas"
)

type reviewInput struct {
	Rating  *float64 `json:"rating"`
	Comment *string  `json:"comment"`
}

// readReview reads and checks {rating 1–5, comment ≤ 2000}.
func readReview(e *core.RequestEvent) (int, string, error) {
	var in reviewInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return 0, "", err
	}
	v := httpapi.NewValidation()
	switch {
	case in.Rating == nil:
		v.Add("rating", "Es obligatorio")
	case *in.Rating != math.Trunc(*in.Rating) || *in.Rating < 1 || *in.Rating > 5:
		v.Add("rating", "Debe ser un número entero entre 1 y 5")
	}
	comment := ""
	if in.Comment != nil {
		comment = strings.TrimSpace(*in.Comment)
	}
	httpapi.CheckLength(v, "comment", comment, 0, bounds.ReviewCommentMax)
	if err := v.Err(); err != nil {
		return 0, "", err
	}
	return int(*in.Rating), comment, nil
}

// jobReview handles POST /api/jobs/{id}/review {rating 1–5, comment ≤ 2000}:
// the job's client rates a COMPLETADO job once; the camello's ratingAvg and
// ratingCount are recomputed in the same transaction. 201 {review}. A job
// paid through the platform is under the double-blind rule
// (docs/api/reviews.md): the review may be sealed, and the answer then also
// says published and publishAt.
func jobReview(e *core.RequestEvent) error {
	job, party, err := VisibleJob(e)
	if err != nil {
		return err
	}
	if !party.Client {
		return httpapi.Forbidden(MsgOnlyClient)
	}
	rating, comment, err := readReview(e)
	if err != nil {
		return err
	}
	var review *camellos.ReviewRecord
	err = writeReview(e.App, job.Id, func(txApp core.App, job *core.Record) error {
		rv, err := camellos.AddReview(txApp, camellos.NewReview{
			JobID: job.Id, CamelloID: Wrap(job).ProviderID(), ClientID: Wrap(job).ClientID(),
			Rating: rating, Comment: comment,
		})
		if errors.Is(err, camellos.ErrAlreadyReviewed) {
			return httpapi.Conflict(MsgAlreadyReviewed)
		}
		review = rv
		return err
	})
	if err != nil {
		return err
	}
	out := map[string]any{
		"id":        review.Id,
		"jobId":     review.JobID(),
		"camelloId": review.CamelloID(),
		"rating":    review.Rating(),
		"comment":   review.Comment(),
		"createdAt": timefmt.ISO(review.Created().Time()),
	}
	if review.PublishAt() != "" { // double-blind: say whether it is published yet
		full := camellos.ReviewJSON(review)
		out["published"], out["publishAt"] = full["published"], full["publishAt"]
	}
	return e.JSON(http.StatusCreated, map[string]any{"review": out})
}

// jobClientReview handles POST /api/jobs/{id}/client-review {rating 1–5,
// comment ≤ 2000}: the job's camello rates its client, once, on a
// COMPLETADO job paid through the platform (the double-blind rule). 201
// {review} with published and publishAt.
func jobClientReview(e *core.RequestEvent) error {
	job, party, err := VisibleJob(e)
	if err != nil {
		return err
	}
	if !party.Provider {
		return httpapi.Forbidden(MsgOnlyCamelloReviews)
	}
	rating, comment, err := readReview(e)
	if err != nil {
		return err
	}
	var review *camellos.ClientReview
	err = writeReview(e.App, job.Id, func(txApp core.App, job *core.Record) error {
		rv, err := camellos.AddClientReview(txApp, camellos.NewClientReview{
			JobID: job.Id, CamelloID: Wrap(job).ProviderID(), ClientID: Wrap(job).ClientID(),
			Rating: rating, Comment: comment,
		})
		if errors.Is(err, camellos.ErrAlreadyClientReviewed) {
			return httpapi.Conflict(MsgClientReviewed)
		}
		review = rv
		return err
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"review": camellos.ReviewJSON(&review.ReviewRecord)})
}

// writeReview runs add in one transaction with the job read again inside
// it, refused unless COMPLETADO.
func writeReview(app core.App, jobID string, add func(txApp core.App, job *core.Record) error) error {
	return writer.Transaction(app, func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, jobID)
		if err != nil {
			return err
		}
		if Wrap(job).Status() != StatusCompleted {
			return httpapi.Conflict(MsgReviewNotDone)
		}
		return add(txApp, job)
	})
}

// jobReviews handles GET /api/jobs/{id}/reviews: both reviews of a job as
// its client, its camello or an admin sees them. A review's content is
// shown to its author, to admins and, once published, to the other side;
// a sealed review of the other side shows only that it was written.
// {reviews: {blind, windowEndsAt, canReview, refusal, client, camello}}.
func jobReviews(e *core.RequestEvent) error {
	job, party, err := VisibleJob(e)
	if err != nil {
		return err
	}
	both, err := camellos.ReviewsOfJob(e.App, job.Id)
	if err != nil {
		return err
	}
	terms := &camellos.ReviewTermsEvent{App: e.App, JobID: job.Id}
	var refusal, windowEnds any
	if err := camellos.OnReviewTerms(e.App).Trigger(terms); err != nil {
		var ae *httpapi.Error
		if !errors.As(err, &ae) {
			return err
		}
		refusal = ae.Message
	} else if terms.Blind {
		windowEnds = timefmt.ISO(terms.Until)
	}
	if refusal == nil && Wrap(job).Status() != StatusCompleted {
		refusal = MsgReviewNotDone
	}
	side := func(r *camellos.ReviewRecord, author bool) map[string]any {
		out := map[string]any{"written": r != nil, "published": false, "review": nil}
		if r == nil {
			return out
		}
		out["published"] = !r.Sealed()
		rel := privacy.Relation{Admin: party.Admin, Self: author, Client: party.Client, Provider: party.Provider, Sealed: r.Sealed()}
		if privacy.Visible(privacy.ReviewContent, rel) {
			out["review"] = camellos.ReviewJSON(r)
		}
		return out
	}
	var ofCamello, ofClient *camellos.ReviewRecord
	if both.OfCamello != nil {
		ofCamello = both.OfCamello
	}
	if both.OfClient != nil {
		ofClient = &both.OfClient.ReviewRecord
	}
	mine := ofCamello
	if party.Provider && !party.Client {
		mine = ofClient
	}
	canReview := refusal == nil && !party.Admin && mine == nil && (party.Client || terms.Blind)
	return e.JSON(http.StatusOK, map[string]any{"reviews": map[string]any{
		"blind":        terms.Blind,
		"windowEndsAt": windowEnds,
		"canReview":    canReview,
		"refusal":      refusal,
		"client":       side(ofCamello, party.Client),
		"camello":      side(ofClient, party.Provider),
	}})
}

// IsUniqueViolation is records.IsUniqueViolation (kept for the modules
// that call it here).
func IsUniqueViolation(err error) bool { return records.IsUniqueViolation(err) }
