package camellos

import (
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
		if e.Near != nil {
			for _, n := range l.near(f, *e.Near) {
				e.Out = append(e.Out, search.Candidate{ID: n.en.id, Text: n.en.searchText, Raw: n.en.raw, DistanceKm: n.km})
			}
			return e.Next()
		}
		list, _, exact := l.candidates(f)
		for _, en := range list {
			if exact || f.match(en) {
				e.Out = append(e.Out, search.Candidate{ID: en.id, Text: en.searchText, Raw: en.raw})
			}
		}
		return e.Next()
	})
	OnReviewChanged(app).BindFunc(func(e *bus.Change) error {
		search.ReviewsChanged(e.App)
		return e.Next()
	})
}
