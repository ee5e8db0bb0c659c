package jobs

import (
	"errors"
	"math"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
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

type reviewInput struct {
	Rating  *float64 `json:"rating"`
	Comment *string  `json:"comment"`
}

// jobReview handles POST /api/jobs/{id}/review {rating 1–5, comment ≤ 2000}:
// the job's client rates a COMPLETADO job once; the camello's ratingAvg and
// ratingCount are recomputed in the same transaction. 201 {review}.
func jobReview(e *core.RequestEvent) error {
	job, party, err := VisibleJob(e)
	if err != nil {
		return err
	}
	if !party.Client {
		return httpapi.Forbidden(MsgOnlyClient)
	}
	var in reviewInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
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
		return err
	}
	var review *camellos.ReviewRecord
	err = writer.Transaction(e.App, func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, job.Id)
		if err != nil {
			return err
		}
		if job.GetString("status") != StatusCompleted {
			return httpapi.Conflict(MsgReviewNotDone)
		}
		rv, err := camellos.AddReview(txApp, camellos.NewReview{
			JobID: job.Id, CamelloID: job.GetString("provider"), ClientID: job.GetString("client"),
			Rating: int(*in.Rating), Comment: comment,
		})
		if errors.Is(err, camellos.ErrAlreadyReviewed) {
			return httpapi.Conflict(MsgAlreadyReviewed)
		}
		if err != nil {
			return err
		}
		review = rv
		return nil
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"review": map[string]any{
		"id":        review.Id,
		"jobId":     review.JobID(),
		"camelloId": review.CamelloID(),
		"rating":    review.Rating(),
		"comment":   review.Comment(),
		"createdAt": timefmt.ISO(review.Created().Time()),
	}})
}

// IsUniqueViolation is records.IsUniqueViolation (kept for the modules
// that call it here).
func IsUniqueViolation(err error) bool { return records.IsUniqueViolation(err) }
