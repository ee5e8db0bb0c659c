package search

import (
	"encoding/json"
	"sort"
	"strings"

	"camellos/internal/readmodel"
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
)

// Catalog is what the interpreter learns from the data: categories,
// services, and the trades, cities and neighbourhoods camellos declare.
type Catalog struct {
	Categories []Named
	Services   []Service
	Trades     []string
	Places     []Place // cities and neighbourhoods of camellos (Neighborhood may be "")
}

// Named is an {id, name} of the catalog.
type Named struct {
	ID   string `db:"id"`
	Name string `db:"name"`
}

// Service is a service with its category.
type Service struct {
	ID       string `db:"id"`
	Name     string `db:"name"`
	Category string `db:"category"`
}

// Place is a city, with a neighbourhood of it or "".
type Place struct {
	City         string `db:"city"`
	Neighborhood string `db:"neighborhood"`
}

// phrase is a folded word sequence; the last word may be a prefix.
type phrase []string

func phraseOf(s string) phrase { return phrase(words(text.Fold(s))) }

// words splits folded text into its words (letters and digits; "15:30" is one word).
func words(folded string) []string {
	out := []string{}
	for _, m := range wordPattern.FindAllString(folded, -1) {
		out = append(out, m)
	}
	return out
}

type tradeEntry struct {
	name     string
	prefixes []phrase
	clues    []phrase
}

type placeEntry struct {
	words        phrase
	city         string // display name of the city
	neighborhood string // display name, "" for a city
	needsPrep    bool   // a city named like a common word ("pasto") needs "en"/"de" before it
}

type namedEntry struct {
	id, name, category string
	words              []string // significant folded words
}

// Vocabulary is a Catalog prepared for matching, merged with the static lexicon.
type Vocabulary struct {
	trades     []tradeEntry
	places     []placeEntry // longest first
	services   []namedEntry
	categories []namedEntry
}

// BuildVocabulary prepares a catalog for Interpret.
func BuildVocabulary(c Catalog) *Vocabulary {
	v := &Vocabulary{}
	for _, t := range commonTrades {
		e := tradeEntry{name: t.Name}
		for _, p := range t.Prefixes {
			e.prefixes = append(e.prefixes, phrase(strings.Fields(p)))
		}
		for _, p := range t.Clues {
			e.clues = append(e.clues, phrase(strings.Fields(p)))
		}
		v.trades = append(v.trades, e)
	}
	// Trades camellos declare that the lexicon does not know are learned as is.
	seenTrade := map[string]bool{}
	for _, t := range c.Trades {
		p := phraseOf(t)
		key := strings.Join(p, " ")
		if len(p) == 0 || seenTrade[key] || v.commonTradeOf(p) != "" {
			continue
		}
		seenTrade[key] = true
		v.trades = append(v.trades, tradeEntry{name: strings.ToLower(strings.TrimSpace(t)), prefixes: []phrase{p}})
	}

	cityName := map[string]string{} // folded alias → display
	for _, ci := range knownCities {
		for _, a := range ci.Aliases {
			cityName[a] = ci.Name
			v.places = append(v.places, placeEntry{words: phrase(strings.Fields(a)), city: ci.Name, needsPrep: a == "pasto"})
		}
		for _, n := range ci.Neighborhoods {
			v.places = append(v.places, placeEntry{words: phraseOf(n), city: ci.Name, neighborhood: n})
		}
	}
	seenPlace := map[string]bool{}
	for _, e := range v.places {
		seenPlace[strings.Join(e.words, " ")+"|"+e.city] = true
	}
	for _, p := range c.Places {
		cw := phraseOf(p.City)
		if len(cw) == 0 {
			continue
		}
		display, ok := cityName[strings.Join(cw, " ")]
		if !ok {
			display = strings.TrimSpace(p.City)
			cityName[strings.Join(cw, " ")] = display
			if key := strings.Join(cw, " ") + "|" + display; !seenPlace[key] {
				seenPlace[key] = true
				v.places = append(v.places, placeEntry{words: cw, city: display})
			}
		}
		if nw := phraseOf(p.Neighborhood); len(nw) > 0 {
			if key := strings.Join(nw, " ") + "|" + display; !seenPlace[key] {
				seenPlace[key] = true
				v.places = append(v.places, placeEntry{words: nw, city: display, neighborhood: strings.TrimSpace(p.Neighborhood)})
			}
		}
	}
	sort.SliceStable(v.places, func(i, j int) bool { return len(v.places[i].words) > len(v.places[j].words) })

	for _, s := range c.Services {
		v.services = append(v.services, namedEntry{id: s.ID, name: s.Name, category: s.Category, words: significant(s.Name)})
	}
	for _, cat := range c.Categories {
		v.categories = append(v.categories, namedEntry{id: cat.ID, name: cat.Name, words: significant(cat.Name)})
	}
	return v
}

// significant returns the folded words of a name that are not stop words.
func significant(name string) []string {
	out := []string{}
	for _, w := range words(text.Fold(name)) {
		if !stopWords[w] && !isNumber(w) {
			out = append(out, w)
		}
	}
	return out
}

// commonTradeOf names the lexicon trade a phrase belongs to, or "".
func (v *Vocabulary) commonTradeOf(p phrase) string {
	for _, t := range v.trades[:len(commonTrades)] {
		for _, pre := range t.prefixes {
			if matchPhrase(p, 0, pre, true) == len(p) {
				return t.name
			}
		}
	}
	return ""
}

// vocabulary keeps the app's Vocabulary until a category, service or
// camello changes.
var vocabulary = readmodel.Keyed[struct{}, *Vocabulary]{
	Name: "vocabulary", Tables: []string{"categories", "services", "camellos"}, MaxCost: 1,
	Bound: "one vocabulary (the catalog's names, the camellos' distinct trades and places)",
	Load: func(app core.App, _ struct{}) (*Vocabulary, bool, error) {
		cat, err := LoadCatalog(app)
		return BuildVocabulary(cat), err == nil, err
	},
}

// LoadCatalog reads categories, services and the distinct trades, cities
// and neighbourhoods of camellos.
func LoadCatalog(app core.App) (Catalog, error) {
	var c Catalog
	if err := app.DB().Select("id", "name").From("categories").OrderBy("sortOrder", "name").All(&c.Categories); err != nil {
		return c, err
	}
	if err := app.DB().Select("id", "name", "category").From("services").OrderBy("name", "id").All(&c.Services); err != nil {
		return c, err
	}
	if err := app.DB().Select("city", "neighborhood").Distinct(true).From("camellos").All(&c.Places); err != nil {
		return c, err
	}
	var tradeLists []string
	if err := app.DB().Select("trades").Distinct(true).From("camellos").Column(&tradeLists); err != nil {
		return c, err
	}
	seen := map[string]bool{}
	for _, raw := range tradeLists {
		var list []string
		_ = json.Unmarshal([]byte(raw), &list)
		for _, t := range list {
			if k := text.Fold(t); k != "" && !seen[k] {
				seen[k] = true
				c.Trades = append(c.Trades, t)
			}
		}
	}
	sort.Strings(c.Trades)
	return c, nil
}
