package camellos

import (
	"strings"

	"camellos/internal/bus"
	"camellos/modules/search"

	"github.com/pocketbase/pocketbase/core"
)

// bindSearchSource answers the search's questions from the listing index:
// the ACTIVO camellos of a trade and a city (search.OnCandidates), and
// tells it when a review changes (the reviews' words rank).
func bindSearchSource(app core.App, x *publicIndex) {
	search.OnCandidates(app).BindFunc(func(e *search.CandidatesEvent) error {
		l, err := x.get(e.App)
		if err != nil {
			return err
		}
		f := &filter{trades: e.Trades, city: e.City, cityPrefix: e.City + " "}
		candidate := func(i int32) search.Candidate {
			en := &l.recs[i]
			return search.Candidate{ID: strings.Clone(l.str(en.id)), Text: strings.Clone(l.str(en.search)), Raw: l.rendered(i)}
		}
		if e.Near != nil {
			found, _ := l.near(f, *e.Near, -1)
			for _, n := range found {
				c := candidate(n.idx)
				c.DistanceKm = n.km
				e.Out = append(e.Out, c)
			}
			return e.Next()
		}
		list, _, exact := l.candidates(f)
		for _, i := range list {
			if exact || l.match(f, i) {
				e.Out = append(e.Out, candidate(i))
			}
		}
		return e.Next()
	})
	OnReviewChanged(app).BindFunc(func(e *bus.Change) error {
		search.ReviewsChanged(e.App)
		return e.Next()
	})
}
