package search

import (
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"camellos/internal/festivos"
	"camellos/internal/text"
)

var wordPattern = regexp.MustCompile(`[\p{L}\p{N}]+(?::[0-9]{2})?`)

// When is the time range a search asks for, in UTC ISO 8601, with the
// festivos whose date (in the app's zone) it touches.
type When struct {
	From     string         `json:"from"`
	To       string         `json:"to"`
	Holidays []festivos.Day `json:"holidays"`
}

// Interpretation is what a natural-language search means.
type Interpretation struct {
	Query        string   `json:"query"`
	CategoryID   *string  `json:"categoryId"`
	ServiceIDs   []string `json:"serviceIds"`
	Trades       []string `json:"trades"`
	City         *string  `json:"city"`
	Neighborhood *string  `json:"neighborhood"`
	When         *When    `json:"when"`
	Urgent       bool     `json:"urgent"`
	Keywords     []string `json:"keywords"`
	// Near is set when the search asks for camellos close to the client
	// ("cerca de mí") or a position was sent; Place is a place of the
	// gazetteer the search names, with its point (near.go).
	Near  *Near           `json:"near"`
	Place *GazetteerPlace `json:"place"`
}

// token is one word of the query: as typed (lower case) and folded.
type token struct {
	orig, fold string
	used       bool
}

type tokens []*token

func tokenize(query string) tokens {
	out := tokens{}
	for _, m := range wordPattern.FindAllString(strings.ToLower(query), -1) {
		out = append(out, &token{orig: m, fold: text.Fold(m)})
	}
	return out
}

func (ts tokens) folded() []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.fold
	}
	return out
}

// free reports whether tokens i..i+n-1 are all unused.
func (ts tokens) free(i, n int) bool {
	for j := i; j < i+n; j++ {
		if ts[j].used {
			return false
		}
	}
	return true
}

func (ts tokens) use(i, n int) {
	for j := i; j < i+n && j < len(ts); j++ {
		ts[j].used = true
	}
}

// at returns the folded word at i, or "" outside the query.
func (ts tokens) at(i int) string {
	if i < 0 || i >= len(ts) {
		return ""
	}
	return ts[i].fold
}

// matchPhrase reports how many words of ws, from i, make p (0 when they
// do not); with lastPrefix the last word of p need only start the word.
func matchPhrase(ws []string, i int, p phrase, lastPrefix bool) int {
	if len(p) == 0 || i+len(p) > len(ws) {
		return 0
	}
	for k, w := range p {
		got := ws[i+k]
		if k == len(p)-1 && lastPrefix {
			if !strings.HasPrefix(got, w) {
				return 0
			}
		} else if got != w {
			return 0
		}
	}
	return len(p)
}

// Interpret reads a Spanish search ("plomero en Chapinero mañana en la
// tarde, urgente") against a vocabulary. now is the current instant and
// loc the app's time zone, for relative dates. It is deterministic.
func Interpret(query string, v *Vocabulary, now time.Time, loc *time.Location) Interpretation {
	out := Interpretation{Query: query, ServiceIDs: []string{}, Trades: []string{}, Keywords: []string{}}
	ts := tokenize(query)
	ws := ts.folded()

	out.Urgent = findUrgency(ts, ws)
	out.When = findWhen(ts, ws, now, loc)
	out.Near = findNear(ts, ws) // before the place: "en mi barrio" names none
	findPlace(&out, ts, ws, v)
	categoryID, catalogWords := findCatalog(&out, ts, ws, v)
	findTrades(&out, ts, ws, v)
	for _, i := range catalogWords { // after the trades: "limpieza" is a category and a trade
		ts[i].used = true
	}
	linkTradeServices(&out, v)
	if categoryID == "" {
		categoryID = commonCategory(out.ServiceIDs, v)
	}
	if categoryID != "" {
		out.CategoryID = &categoryID
	}

	seen := map[string]bool{}
	for _, t := range ts {
		if t.used || stopWords[t.fold] || isNumber(t.fold) || seen[t.fold] || len([]rune(t.fold)) < 2 {
			continue
		}
		seen[t.fold] = true
		out.Keywords = append(out.Keywords, t.orig)
	}
	return out
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != ':' {
			return false
		}
	}
	return s != ""
}

// findUrgency marks urgency phrases ("urgente", "ya", "lo antes posible").
// "hoy mismo" is urgent and leaves "hoy" for the date.
func findUrgency(ts tokens, ws []string) bool {
	urgent := false
	for i := range ws {
		if ws[i] == "hoy" && ts.at(i+1) == "mismo" {
			ts[i+1].used = true
			urgent = true
			continue
		}
		for _, p := range urgentPhrases {
			if n := matchPhrase(ws, i, p, false); n > 0 && ts.free(i, n) {
				ts.use(i, n)
				urgent = true
				break
			}
		}
	}
	return urgent
}

// findPlace finds the city and the neighbourhood, longest names first.
// A neighbourhood of one known city gives the city too; "barrio X" names
// a neighbourhood the vocabulary does not know.
func findPlace(out *Interpretation, ts tokens, ws []string, v *Vocabulary) {
	var cities []string
	var hoods []placeEntry
	hoodAt := -1
	for _, e := range v.places {
		for i := range ws {
			n := matchPhrase(ws, i, e.words, false)
			if n == 0 {
				continue
			}
			// The same neighbourhood name in another city is another candidate.
			sameHood := e.neighborhood != "" && i == hoodAt && len(hoods) > 0 && strings.Join(hoods[0].words, " ") == strings.Join(e.words, " ")
			if !sameHood && !ts.free(i, n) {
				continue
			}
			if e.needsPrep && !isPrep(ts.at(i-1)) {
				continue
			}
			if e.neighborhood == "" {
				ts.use(i, n)
				cities = append(cities, e.city)
			} else if len(hoods) == 0 || sameHood {
				ts.use(i, n)
				hoods = append(hoods, e)
				hoodAt = i
			}
		}
	}
	if len(cities) > 0 {
		out.City = &cities[0]
	}
	if len(hoods) > 0 {
		chosen := hoods[0]
		if out.City != nil {
			for _, h := range hoods {
				if h.city == *out.City {
					chosen = h
				}
			}
		} else if distinctCities(hoods) == 1 {
			c := chosen.city
			out.City = &c
		}
		n := chosen.neighborhood
		out.Neighborhood = &n
		return
	}
	for i := range ws {
		if ws[i] != "barrio" || ts[i].used || i+1 >= len(ws) {
			continue
		}
		var name []string
		for j := i + 1; j < len(ws) && j <= i+3 && !ts[j].used && !stopWords[ws[j]] && !isPrep(ws[j]); j++ {
			name = append(name, titleCase(ts[j].orig))
			ts[j].used = true
		}
		if len(name) > 0 {
			n := strings.Join(name, " ")
			out.Neighborhood = &n
			return
		}
	}
}

func isPrep(w string) bool {
	switch w {
	case "en", "de", "para", "a", "desde", "hacia", "por":
		return true
	}
	return false
}

func distinctCities(hoods []placeEntry) int {
	seen := map[string]bool{}
	for _, h := range hoods {
		seen[h.city] = true
	}
	return len(seen)
}

func titleCase(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// similar compares words loosely: plural s ignored, and long words that
// share their first five letters match ("reparar" ~ "reparación").
func similar(a, b string) bool {
	a, b = singular(a), singular(b)
	if a == b {
		return true
	}
	if len(a) < 5 || len(b) < 5 {
		return false
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n >= 5
}

func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") {
		return w[:len(w)-1]
	}
	return w
}

// matchNamed finds the query words that make every significant word of a
// name; nil when some word is missing.
func matchNamed(ts tokens, ws []string, e namedEntry) []int {
	if len(e.words) == 0 {
		return nil
	}
	var idx []int
	for _, w := range e.words {
		found := -1
		for i := range ws {
			if !ts[i].used && similar(ws[i], w) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil
		}
		idx = append(idx, found)
	}
	return idx
}

// findCatalog finds the services and the category the query names; it
// returns the category named explicitly (or "") and the words it used.
func findCatalog(out *Interpretation, ts tokens, ws []string, v *Vocabulary) (string, []int) {
	var used []int
	for _, s := range v.services {
		if idx := matchNamed(ts, ws, s); idx != nil {
			out.ServiceIDs = appendUnique(out.ServiceIDs, s.id)
			used = append(used, idx...)
		}
	}
	categoryID := ""
	for _, c := range v.categories {
		if idx := matchNamed(ts, ws, c); idx != nil && categoryID == "" {
			categoryID = c.id
			used = append(used, idx...)
		}
	}
	return categoryID, used
}

// findTrades finds trades named by one of their forms (those words are
// consumed) in the order they appear; when none is named, trades pointed
// at by a clue word ("fuga" → plomería; the clue stays a keyword).
func findTrades(out *Interpretation, ts tokens, ws []string, v *Vocabulary) {
	type hit struct {
		pos  int
		name string
	}
	var hits []hit
	scan := func(clues bool) {
		for _, t := range v.trades {
			list := t.prefixes
			if clues {
				list = t.clues
			}
			best := -1
			for i := range ws {
				for _, p := range list {
					if n := matchPhrase(ws, i, p, !clues); n > 0 && ts.free(i, n) {
						if !clues {
							ts.use(i, n)
						}
						if best < 0 {
							best = i
						}
					}
				}
			}
			if best >= 0 {
				hits = append(hits, hit{best, t.name})
			}
		}
	}
	scan(false)
	if len(hits) == 0 {
		scan(true)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
	for _, h := range hits {
		out.Trades = appendUnique(out.Trades, h.name)
	}
}

// linkTradeServices adds the services whose names belong to a trade found
// ("Reparación de tuberías" belongs to plomería by its clue "tuberías").
func linkTradeServices(out *Interpretation, v *Vocabulary) {
	for _, name := range out.Trades {
		for _, t := range v.trades {
			if t.name != name {
				continue
			}
			for _, s := range v.services {
				for _, w := range s.words {
					if tradeWord(t, w) {
						out.ServiceIDs = appendUnique(out.ServiceIDs, s.id)
						break
					}
				}
			}
		}
	}
}

func tradeWord(t tradeEntry, w string) bool {
	for _, p := range t.prefixes {
		if len(p) == 1 && strings.HasPrefix(w, p[0]) {
			return true
		}
	}
	for _, c := range t.clues {
		if len(c) == 1 && c[0] == w {
			return true
		}
	}
	return false
}

// commonCategory is the category shared by every service found, or "".
func commonCategory(ids []string, v *Vocabulary) string {
	cat := ""
	for _, id := range ids {
		for _, s := range v.services {
			if s.id != id {
				continue
			}
			if cat != "" && cat != s.category {
				return ""
			}
			cat = s.category
		}
	}
	return cat
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
