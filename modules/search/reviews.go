package search

import (
	"maps"

	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
)

// reviewTextMax bounds the folded review text kept per camello (bytes):
// the first reviews' words rank, a camello with thousands of reviews does
// not grow the index past it.
const reviewTextMax = 4000

// reviewIndex is the folded text of every camello's reviews, read in one
// query on the first search with words after a change, kept until a review
// changes (ReviewsChanged) or another process commits to reviews.
type reviewIndex struct {
	cache memo.Cache[map[string]string]
}

const reviewIndexKey = "search.reviews"

func reviewsOf(app core.App) *reviewIndex {
	return app.Store().GetOrSet(reviewIndexKey, func() any { return &reviewIndex{} }).(*reviewIndex)
}

// bindReviews declares the reviews' text as a projection (internal/
// readmodel): dropped when another process commits to reviews, compared
// with a fresh build by the background check.
func bindReviews(app core.App) {
	x := reviewsOf(app)
	readmodel.Declare(app, readmodel.Projection{
		Name: "search-reviews", Tables: []string{"reviews"},
		Bound: "the folded text of every camello's reviews, at most 4,000 bytes each",
		Drop:  x.cache.Invalidate,
		Check: func(app core.App) (int, error) {
			built, ok := x.cache.Peek()
			if !ok {
				return 0, nil
			}
			fresh, err := readReviews(app)
			if err != nil {
				return 0, err
			}
			if !maps.Equal(built, fresh) {
				return 1, nil
			}
			return 0, nil
		},
	})
}

// ReviewsChanged forgets the reviews' text after a committed review write
// (modules/camellos, the reviews' owner, calls it).
func ReviewsChanged(app core.App) {
	reviewsOf(app).cache.Invalidate()
}

func (x *reviewIndex) get(app core.App) (map[string]string, error) {
	return x.cache.Get(func() (map[string]string, error) { return readReviews(app) })
}

// readReviews reads the folded review text of every camello.
func readReviews(app core.App) (map[string]string, error) {
	{
		rows, err := app.DB().NewQuery("SELECT camello, comment FROM reviews WHERE comment != '' AND sealed = FALSE ORDER BY created").Rows()
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var camello, comment string
			if err := rows.Scan(&camello, &comment); err != nil {
				return nil, err
			}
			have := out[camello]
			if len(have) >= reviewTextMax {
				continue
			}
			if have != "" {
				have += " "
			}
			out[camello] = have + text.Fold(comment)
		}
		return out, rows.Err()
	}
}
