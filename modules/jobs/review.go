package jobs

import (
	"errors"
	"math"
	"net/http"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/timefmt"

	validation "github.com/go-ozzo/ozzo-validation/v4"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Messages of the review.
const (
	MsgOnlyClient       = "Solo el cliente del trabajo puede calificarlo"
	MsgReviewNotDone    = "Solo se califica un trabajo completado"
	MsgAlreadyReviewed  = "El trabajo ya fue calificado"
	ReviewsCollection   = "reviews"
	maxReviewCommentLen = 2000
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
	httpapi.CheckLength(v, "comment", comment, 0, maxReviewCommentLen)
	if err := v.Err(); err != nil {
		return err
	}
	var review *core.Record
	err = e.App.RunInTransaction(func(txApp core.App) error {
		job, err := txApp.FindRecordById(Collection, job.Id)
		if err != nil {
			return err
		}
		if job.GetString("status") != StatusCompleted {
			return httpapi.Conflict(MsgReviewNotDone)
		}
		if n, _ := txApp.CountRecords(ReviewsCollection, dbx.HashExp{"job": job.Id}); n > 0 {
			return httpapi.Conflict(MsgAlreadyReviewed)
		}
		col, err := txApp.FindCachedCollectionByNameOrId(ReviewsCollection)
		if err != nil {
			return err
		}
		camelloID := job.GetString("provider")
		review = core.NewRecord(col)
		review.Set("job", job.Id)
		review.Set("camello", camelloID)
		review.Set("client", job.GetString("client"))
		review.Set("rating", int(*in.Rating))
		review.Set("comment", comment)
		if err := txApp.Save(review); err != nil {
			if isUniqueViolation(err) {
				return httpapi.Conflict(MsgAlreadyReviewed)
			}
			return err
		}
		_, err = txApp.DB().NewQuery(
			"UPDATE camellos SET " +
				"ratingAvg = (SELECT ROUND(AVG(rating), 2) FROM reviews WHERE camello = {:c}), " +
				"ratingCount = (SELECT COUNT(*) FROM reviews WHERE camello = {:c}) " +
				"WHERE id = {:c}").Bind(dbx.Params{"c": camelloID}).Execute()
		return err
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusCreated, map[string]any{"review": map[string]any{
		"id":        review.Id,
		"jobId":     review.GetString("job"),
		"camelloId": review.GetString("camello"),
		"rating":    review.GetInt("rating"),
		"comment":   review.GetString("comment"),
		"createdAt": timefmt.ISO(review.GetDateTime("created").Time()),
	}})
}

// isUniqueViolation reports whether err is a unique-index failure, as
// PocketBase's record validation reports it (a validation_not_unique field
// error) or as SQLite does when a racing write reaches the index.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return true
	}
	var verrs validation.Errors
	if errors.As(err, &verrs) {
		for _, fe := range verrs {
			var ve validation.Error
			if errors.As(fe, &ve) && ve.Code() == "validation_not_unique" {
				return true
			}
		}
	}
	return false
}

// IsUniqueViolation is isUniqueViolation for other modules (the agenda maps
// the booked-slot index to 409 with it).
func IsUniqueViolation(err error) bool { return isUniqueViolation(err) }
