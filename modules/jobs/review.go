package jobs

import (
	"errors"
	"math"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"

	validation "github.com/go-ozzo/ozzo-validation/v4"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Messages of the review.
const (
	MsgOnlyClient      = "Solo el cliente del trabajo puede calificarlo"
	MsgReviewNotDone   = "Solo se califica un trabajo completado"
	MsgAlreadyReviewed = "El trabajo ya fue calificado"
	ReviewsCollection  = "reviews"
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
		rating, err := RatingOf(txApp, camelloID)
		if err != nil {
			return err
		}
		return camellos.SetRating(txApp, camelloID, rating)
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

// RatingOf is the average (two decimals) and count of a camello's reviews.
func RatingOf(app core.App, camelloID string) (camellos.Rating, error) {
	var r camellos.Rating
	err := app.DB().NewQuery("SELECT COALESCE(ROUND(AVG(rating), 2), 0) AS average, COUNT(*) AS count FROM " +
		ReviewsCollection + " WHERE camello = {:c}").Bind(dbx.Params{"c": camelloID}).One(&r)
	return r, err
}

// Ratings is RatingOf every camello with reviews, by camello id.
func Ratings(app core.App) (map[string]camellos.Rating, error) {
	var rows []struct {
		Camello string  `db:"camello"`
		Average float64 `db:"average"`
		Count   int     `db:"count"`
	}
	err := app.DB().NewQuery("SELECT camello, ROUND(AVG(rating), 2) AS average, COUNT(*) AS count FROM " +
		ReviewsCollection + " GROUP BY camello").All(&rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]camellos.Rating, len(rows))
	for _, r := range rows {
		out[r.Camello] = camellos.Rating{Average: r.Average, Count: r.Count}
	}
	return out, nil
}
