package search

import (
	"camellos/internal/readmodel"
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
)

// reviewTextMax bounds the folded review text kept per camello (bytes):
// the first reviews' words rank, a camello with thousands of reviews does
// not grow the index past it.
const reviewTextMax = 4000

// reviewText is the folded text of every camello's reviews, read in one
// query on the first search with words after a change, kept until a review
// changes (ReviewsChanged) or another process commits to reviews.
var reviewText = readmodel.Keyed[struct{}, map[string]string]{
	Name: "search-reviews", Tables: []string{"reviews"}, MaxCost: 1,
	Bound: "the folded text of every camello's reviews, at most 4,000 bytes each",
	Load:  readReviews,
}

// ReviewsChanged forgets the reviews' text after a committed review write
// (modules/camellos, the reviews' owner, calls it).
func ReviewsChanged(app core.App) { reviewText.Drop(app, struct{}{}) }

// readReviews reads the folded review text of every camello.
func readReviews(app core.App, _ struct{}) (map[string]string, bool, error) {
	rows, err := app.DB().NewQuery("SELECT camello, comment FROM reviews WHERE comment != '' AND sealed = FALSE ORDER BY created").Rows()
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var camello, comment string
		if err := rows.Scan(&camello, &comment); err != nil {
			return nil, false, err
		}
		if have := out[camello]; have == "" {
			out[camello] = text.Fold(comment)
		} else if len(have) < reviewTextMax {
			out[camello] = have + " " + text.Fold(comment)
		}
	}
	return out, true, rows.Err()
}
