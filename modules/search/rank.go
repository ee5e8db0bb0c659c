package search

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"camellos/internal/geo"
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// A search (GET /api/search) keeps three filters of what the query means:
// the trade, the place (city) and the time. Every other word ranks: a
// camello whose description, trades, services or neighbourhood name the
// words (2 points each) or whose reviews do (1 point) comes first. When
// the filters leave nobody, they are relaxed one at a time (the time moved
// to the next days, then dropped; then the city; then the trade) and the
// answer says which (see relax.go).
//
// The search owns no collection: the camellos' listing index gives the
// candidates (OnCandidates, bound by modules/camellos), the agenda says who
// is free when (OnAvailability, bound by modules/agenda), and the reviews'
// text is read here (reviewIndex) and forgotten when a review changes
// (ReviewsChanged, called by modules/camellos).

// Candidate is an ACTIVO camello that passes the trade and city filters,
// as the listing index holds it.
type Candidate struct {
	ID   string
	Text string // folded search text: name, trades, city, neighbourhood, description, services
	Raw  []byte // public JSON, as GET /api/camellos answers it
	// DistanceKm is the distance from the position asked (Near), exact.
	DistanceKm float64
}

// CandidatesEvent asks the listing for the ACTIVO camellos whose search text
// holds one of Trades (folded word beginnings, TradeForms; none: any) and
// whose folded city is City or starts with City + " " ("": any), in the
// listing's order (premium first, then rating, then newest).
type CandidatesEvent struct {
	hook.Event
	App    core.App
	Trades []string
	City   string
	// Near, when set, keeps only the camellos whose travel radius reaches
	// it, nearest first, with their DistanceKm (City is then "").
	Near *geo.Point
	Out  []Candidate
}

// AvailabilityEvent asks the agenda how many free slots each camello of IDs
// has within [From, To); Free is filled by the listener (absent: none).
type AvailabilityEvent struct {
	hook.Event
	App      core.App
	IDs      []string
	From, To time.Time
	Free     map[string]int
}

const (
	candidatesKey   = "search.candidates"
	availabilityKey = "search.availability"
)

// OnCandidates is the app's candidates event (bound by modules/camellos).
func OnCandidates(app core.App) *hook.Hook[*CandidatesEvent] {
	return app.Store().GetOrSet(candidatesKey, func() any { return &hook.Hook[*CandidatesEvent]{} }).(*hook.Hook[*CandidatesEvent])
}

// OnAvailability is the app's availability event (bound by modules/agenda).
func OnAvailability(app core.App) *hook.Hook[*AvailabilityEvent] {
	return app.Store().GetOrSet(availabilityKey, func() any { return &hook.Hook[*AvailabilityEvent]{} }).(*hook.Hook[*AvailabilityEvent])
}

// term is a word that ranks: as typed (for the answer) and its folded stem.
type term struct {
	word, stem string
}

// Ranking weights: a word of the camello's own text counts more than one
// of its reviews.
const (
	weightOwn    = 2
	weightReview = 1
)

// rankTerms are the words of an interpretation that rank: its keywords and
// the neighbourhood's words, each once.
func rankTerms(it Interpretation) []term {
	var out []term
	seen := map[string]bool{}
	add := func(w string) {
		st := stem(text.Fold(w))
		if utf8.RuneCountInString(st) < 3 || seen[st] || stopWords[st] {
			return
		}
		seen[st] = true
		out = append(out, term{word: w, stem: st})
	}
	for _, k := range it.Keywords {
		add(k)
	}
	if it.Neighborhood != nil {
		for _, w := range words(text.Fold(*it.Neighborhood)) {
			add(w)
		}
	}
	return out
}

func foldWord(w string) string { return text.Fold(w) }

// stem is the folded word without a plural s, cut to 6 letters: "tuberías"
// finds "tubería", "arreglos" finds "arreglo" and "arreglar".
func stem(folded string) string {
	w := singular(folded)
	if r := []rune(w); len(r) > 6 {
		w = string(r[:6])
	}
	return w
}

// hasWord reports whether some word of folded text starts with st.
func hasWord(folded, st string) bool {
	for from := 0; from < len(folded); {
		i := strings.Index(folded[from:], st)
		if i < 0 {
			return false
		}
		i += from
		if i == 0 {
			return true
		}
		r, _ := utf8.DecodeLastRuneInString(folded[:i])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return true
		}
		from = i + 1
	}
	return false
}

// ranked is a candidate with its score and the words it matched.
type ranked struct {
	Candidate
	score   int
	matched []string
	free    int // free slots in the time asked (-1: no time asked)
}

// rank scores every candidate (reviews: folded review text by camello id)
// and orders them by score, keeping the listing's order among equals.
func rank(cands []Candidate, terms []term, reviews map[string]string) []ranked {
	out := make([]ranked, len(cands))
	for i, c := range cands {
		r := ranked{Candidate: c, free: -1}
		for _, t := range terms {
			switch {
			case hasWord(c.Text, t.stem):
				r.score += weightOwn
			case reviews != nil && hasWord(reviews[c.ID], t.stem):
				r.score += weightReview
			default:
				continue
			}
			r.matched = append(r.matched, t.word)
		}
		out[i] = r
	}
	if len(terms) > 0 {
		slices.SortStableFunc(out, func(a, b ranked) int { return b.score - a.score })
	}
	return out
}
