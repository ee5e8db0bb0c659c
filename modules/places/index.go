package places

import (
	"fmt"
	"sort"
	"strings"

	"camellos/internal/cities"
	"camellos/internal/readmodel"
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
)

// gazetteer is the in-memory projection of the places (about 1,200 rows,
// ~250 KB): lookups by id and by folded name, never changed once readers
// see it (a write drops it, the next reader builds it again in a few ms).
type gazetteer struct {
	all   []*Info // by city, then name
	byID  map[string]*Info
	byKey map[string][]*Info // folded name → places of that name
	// maxWords is the most words of a name (Mention's longest phrase).
	maxWords int
}

// gazetteerOf keeps the app's gazetteer: dropped by every write of a place
// (any path: routes, dashboard), checked against a fresh build.
var gazetteerOf = readmodel.Keyed[struct{}, *gazetteer]{
	Name: "gazetteer", Tables: []string{Collection}, MaxCost: 1,
	Bound: "every place (~200 B each: 250 KB for the 1,207 seeded)",
	Load: func(app core.App, _ struct{}) (*gazetteer, bool, error) {
		g, err := build(app)
		return g, err == nil, err
	},
	Equal: func(a, b *gazetteer) bool { return fmt.Sprint(infos(a.all)) == fmt.Sprint(infos(b.all)) },
}

func indexOf(app core.App) (*gazetteer, error) {
	g, _, err := gazetteerOf.Get(app, struct{}{})
	return g, err
}

func build(app core.App) (*gazetteer, error) {
	var rows []*Info
	err := app.DB().Select("id", FieldName, FieldKind, FieldCity, FieldDepartment, FieldLat, FieldLng, FieldSource, FieldNameKey).
		From(Collection).OrderBy(FieldCity, FieldName, "id").All(&rows)
	if err != nil {
		return nil, err
	}
	g := &gazetteer{all: rows, byID: make(map[string]*Info, len(rows)), byKey: make(map[string][]*Info, len(rows))}
	for _, p := range rows {
		g.byID[p.ID] = p
		g.byKey[p.NameKey] = append(g.byKey[p.NameKey], p)
		g.maxWords = max(g.maxWords, len(strings.Fields(p.NameKey)))
	}
	return g, nil
}

func declareIndex(app core.App) {
	gazetteerOf.Declare(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) { gazetteerOf.Drop(w.App, struct{}{}) })
}

func infos(list []*Info) []Info {
	out := make([]Info, len(list))
	for i, p := range list {
		out[i] = *p
	}
	return out
}

// Lookup returns the place of id.
func Lookup(app core.App, id string) (Info, bool, error) {
	g, err := indexOf(app)
	if err != nil {
		return Info{}, false, err
	}
	if p := g.byID[id]; p != nil {
		return *p, true, nil
	}
	return Info{}, false, nil
}

// Resolve finds the place a client names by id or by name ("Chapinero",
// "Kennedy"): an id first, then the places of that folded name, of city
// only when given, the smallest kind first (a barrio over a town of the
// same name).
func Resolve(app core.App, ref, city string) (Info, bool, error) {
	g, err := indexOf(app)
	if err != nil {
		return Info{}, false, err
	}
	if p := g.byID[ref]; p != nil {
		return *p, true, nil
	}
	if p := g.pick(g.byKey[text.Fold(strings.Join(strings.Fields(ref), " "))], city); p != nil {
		return *p, true, nil
	}
	return Info{}, false, nil
}

// pick chooses among places of one name: only those of city (when
// given), the smallest kind first (barrio, comuna, localidad, city).
func (g *gazetteer) pick(list []*Info, city string) *Info {
	var best *Info
	city = text.Fold(cities.Canonical(city)) // any spelling: "Bogotá D.C."
	rank := func(p *Info) int {
		r := 0
		for i, k := range Kinds {
			if k == p.Kind {
				r += i
			}
		}
		return r
	}
	for _, p := range list {
		if city != "" && text.Fold(p.City) != city {
			continue // a place of another city is not the one meant
		}
		if best == nil || rank(p) > rank(best) {
			best = p
		}
	}
	return best
}

// Mention finds the longest name of a barrio, comuna or localidad (not a
// city: the search reads those itself) written in words (folded, in
// order): "plomero en chapinero" → Chapinero. Names of fewer than 4
// letters are not taken from free text.
func Mention(app core.App, words []string, city string) (Info, bool, error) {
	g, err := indexOf(app)
	if err != nil {
		return Info{}, false, err
	}
	for n := min(g.maxWords, len(words)); n >= 1; n-- {
		for i := 0; i+n <= len(words); i++ {
			key := strings.Join(words[i:i+n], " ")
			if len(key) < 4 {
				continue
			}
			var list []*Info
			for _, p := range g.byKey[key] {
				if p.Kind != KindCity {
					list = append(list, p)
				}
			}
			if p := g.pick(list, city); p != nil {
				return *p, true, nil
			}
		}
	}
	return Info{}, false, nil
}

// Find lists up to limit places whose folded name starts with (then
// contains) q, of city and kind when given: the pickers' suggestions.
func Find(app core.App, q, city, kind string, limit int) ([]Info, error) {
	g, err := indexOf(app)
	if err != nil {
		return nil, err
	}
	return g.find(q, city, kind, limit, 0), nil
}

func (g *gazetteer) find(q, city, kind string, limit, offset int) []Info {
	q = text.Fold(strings.Join(strings.Fields(q), " "))
	city = text.Fold(city)
	var prefix, inside []Info
	for _, p := range g.all {
		if (city != "" && text.Fold(p.City) != city) || (kind != "" && p.Kind != kind) {
			continue
		}
		switch {
		case strings.HasPrefix(p.NameKey, q):
			prefix = append(prefix, *p)
		case strings.Contains(p.NameKey, q):
			inside = append(inside, *p)
		}
	}
	sort.SliceStable(prefix, func(i, j int) bool { return len(prefix[i].NameKey) < len(prefix[j].NameKey) && q != "" })
	out := append(prefix, inside...)
	if offset >= len(out) {
		return []Info{}
	}
	out = out[offset:]
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// count is how many places find would list without a limit.
func (g *gazetteer) count(q, city, kind string) int { return len(g.find(q, city, kind, 0, 0)) }
