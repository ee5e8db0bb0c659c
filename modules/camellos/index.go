package camellos

import (
	"encoding/json"
	"sort"
	"strings"

	"camellos/internal/bus"
	"camellos/internal/dbwatch"
	"camellos/internal/memo"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/list"
	"github.com/pocketbase/pocketbase/tools/types"
)

// entry is one ACTIVO camello of the listing index: what the filters
// compare, and its public JSON rendered once.
type entry struct {
	id         string
	cityKey    string
	searchText string
	services   []*serviceRef
	raw        []byte
}

// serviceRef is a service as the listing filters see it.
type serviceRef struct {
	ServiceSummary
	category string
}

// listing is the in-memory projection of the ACTIVO camellos, in the
// listing's order (premium first, then rating, then newest).
type listing struct {
	entries []*entry
	byID    map[string]*entry
	byUser  map[string]bool // users of the listed camellos
	// positions in entries, ascending, by folded city, service id and
	// category id: the candidates of a filtered query
	byCity     map[string][]int
	byService  map[string][]int
	byCategory map[string][]int
	// by folded city and service id together (cityServiceKey): the
	// listing's most common query answered without filtering, at any size
	byCityService map[string][]int
	slugs         map[string]string // service slug → id
}

// cityServiceKey keys byCityService.
func cityServiceKey(cityKey, serviceID string) string { return cityKey + "\x00" + serviceID }

// publicIndex is the listing index of one app, rebuilt after any write that
// can change a public answer (see bindIndexHooks) and after any commit by
// another process (internal/dbwatch). It has no age limit: at 100,000
// camellos a rebuild is 1.5 s of CPU and a second index in memory while it
// runs, so it happens only when an answer may have changed.
type publicIndex struct {
	cache memo.Cache[*listing]
}

// indexKey keeps the app's index in its store (dropIndex).
const indexKey = "camellos.listingIndex"

func newPublicIndex() *publicIndex {
	return &publicIndex{}
}

// dropIndex drops app's listing index after a write of this package that
// no record hook sees (a raw UPDATE of many camellos).
func dropIndex(app core.App) {
	if x, ok := app.Store().Get(indexKey).(*publicIndex); ok {
		x.cache.Invalidate()
	}
}

// get returns the current index, building it when needed.
func (x *publicIndex) get(app core.App) (*listing, error) {
	return x.cache.Get(func() (*listing, error) { return buildListing(app) })
}

// camelloRow is the columns of a camello the index needs.
type camelloRow struct {
	ID           string  `db:"id"`
	Name         string  `db:"name"`
	Trades       string  `db:"trades"`
	Status       string  `db:"status"`
	Premium      bool    `db:"premium"`
	Services     string  `db:"services"`
	Created      string  `db:"created"`
	Updated      string  `db:"updated"`
	City         string  `db:"city"`
	Neighborhood string  `db:"neighborhood"`
	Photo        string  `db:"photo"`
	Description  string  `db:"description"`
	RatingAvg    float64 `db:"ratingAvg"`
	RatingCount  float64 `db:"ratingCount"`
	CityKey      string  `db:"cityKey"`
	SearchText   string  `db:"searchText"`
	Verified     bool    `db:"verified"`
	User         string  `db:"user"`
}

// buildListing reads every ACTIVO camello and every service in two queries
// and renders each camello's public JSON exactly as JSON(app, recs, false).
func buildListing(app core.App) (*listing, error) {
	var svcRows []struct {
		ID       string `db:"id"`
		Name     string `db:"name"`
		Slug     string `db:"slug"`
		Category string `db:"category"`
	}
	if err := app.DB().Select("id", "name", "slug", "category").From("services").All(&svcRows); err != nil {
		return nil, err
	}
	services := make(map[string]*serviceRef, len(svcRows))
	for _, s := range svcRows {
		services[s.ID] = &serviceRef{ServiceSummary: ServiceSummary{ID: s.ID, Name: s.Name, Slug: s.Slug}, category: s.Category}
	}
	var rows []camelloRow
	err := app.DB().Select("id", "user", "name", "trades", "status", "premium", "services", "created", "updated",
		"city", "neighborhood", "photo", "description", "ratingAvg", "ratingCount", "cityKey", "searchText",
		"(SELECT u.verified FROM users u WHERE u.id = camellos.user) AS verified").
		From(Collection).AndWhere(statusActive()).
		OrderBy("premium DESC", "ratingAvg DESC", "created DESC").All(&rows)
	if err != nil {
		return nil, err
	}
	l := &listing{entries: make([]*entry, 0, len(rows)), byID: make(map[string]*entry, len(rows)), byUser: make(map[string]bool, len(rows)),
		byCity: map[string][]int{}, byService: map[string][]int{}, byCategory: map[string][]int{},
		byCityService: map[string][]int{}, slugs: make(map[string]string, len(svcRows))}
	for _, s := range svcRows {
		l.slugs[s.Slug] = s.ID
	}
	for i := range rows {
		r := &rows[i]
		en := &entry{id: r.ID, cityKey: r.CityKey, searchText: r.SearchText}
		svc := []ServiceSummary{}
		for _, id := range list.ToUniqueStringSlice(r.Services) {
			if s, ok := services[id]; ok {
				en.services = append(en.services, s)
				svc = append(svc, s.ServiceSummary)
			}
		}
		photo := ""
		if r.Photo != "" {
			photo = "/uploads/camellos/" + r.Photo
		}
		raw, err := json.Marshal(publicJSON{
			City: r.City, CreatedAt: isoOf(r.Created), Description: r.Description, ID: r.ID,
			Name: r.Name, Neighborhood: r.Neighborhood, Photo: photo, Premium: r.Premium,
			Rating: ratingJSON{Average: r.RatingAvg, Count: int(r.RatingCount)}, Services: svc,
			Status: r.Status, Trades: tradesOf(r.Trades), UpdatedAt: isoOf(r.Updated), Verified: r.Verified,
		})
		if err != nil {
			return nil, err
		}
		en.raw = raw
		pos := len(l.entries)
		l.byCity[en.cityKey] = append(l.byCity[en.cityKey], pos)
		for _, s := range en.services {
			l.byService[s.ID] = append(l.byService[s.ID], pos)
			k := cityServiceKey(en.cityKey, s.ID)
			l.byCityService[k] = append(l.byCityService[k], pos)
			if c := l.byCategory[s.category]; len(c) == 0 || c[len(c)-1] != pos {
				l.byCategory[s.category] = append(c, pos)
			}
		}
		l.entries = append(l.entries, en)
		l.byID[en.id] = en
		l.byUser[r.User] = true
	}
	return l, nil
}

// publicJSON is the public Camello object of JSON(app, recs, false), its
// fields in the order encoding/json writes that map's keys (sorted), so
// both render the same bytes with less work.
type publicJSON struct {
	City         string           `json:"city"`
	CreatedAt    string           `json:"createdAt"`
	Description  string           `json:"description"`
	ID           string           `json:"id"`
	Name         string           `json:"name"`
	Neighborhood string           `json:"neighborhood"`
	Photo        string           `json:"photo"`
	Premium      bool             `json:"premium"`
	Rating       ratingJSON       `json:"rating"`
	Services     []ServiceSummary `json:"services"`
	Status       string           `json:"status"`
	Trades       []string         `json:"trades"`
	UpdatedAt    string           `json:"updatedAt"`
	Verified     bool             `json:"verified"`
}

type ratingJSON struct {
	Average float64 `json:"average"`
	Count   int     `json:"count"`
}

// tradesOf parses the stored trades as Trades does (never nil).
func tradesOf(raw string) []string {
	out := []string{}
	_ = json.Unmarshal([]byte(raw), &out)
	if out == nil {
		out = []string{}
	}
	return out
}

// isoOf formats a stored PocketBase date as GetDateTime(...).Time() would.
func isoOf(s string) string {
	dt, _ := types.ParseDateTime(s)
	return timefmt.ISO(dt.Time())
}

// bindIndexHooks drops the listing index after every committed write that
// can change a public answer: a camello that is or was ACTIVO, any service
// or category (names, slugs, categories of the services shown and
// filtered), any review (the rating is updated with it).
func bindIndexHooks(app core.App, x *publicIndex) {
	// A commit by another process (CLI, raw SQL) can change any answer.
	dbwatch.OnExternalCommit(app, x.cache.Invalidate)
	camello := func(e *core.RecordEvent) error {
		l, built := x.cache.Peek()
		if !built || e.Record.GetString("status") == StatusActive || l.byID[e.Record.Id] != nil {
			x.cache.Invalidate()
		}
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(Collection).BindFunc(camello)
	app.OnRecordAfterUpdateSuccess(Collection).BindFunc(camello)
	app.OnRecordAfterDeleteSuccess(Collection).BindFunc(camello)
	anyWrite := func(e *bus.Change) error {
		x.cache.Invalidate()
		return e.Next()
	}
	ev := bus.Of(app)
	ev.CatalogChanged.BindFunc(anyWrite)
	review := func(e *core.RecordEvent) error {
		x.cache.Invalidate()
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(ReviewsCollection).BindFunc(review)
	app.OnRecordAfterUpdateSuccess(ReviewsCollection).BindFunc(review)
	app.OnRecordAfterDeleteSuccess(ReviewsCollection).BindFunc(review)
	// The public verified badge follows the user's flag: only a user of a
	// listed camello can change an answer (a camello signing up, or any
	// other camello user's write, must not throw away an index of 100,000
	// camellos that its readers then wait to rebuild).
	ev.UserChanged.BindFunc(func(e *bus.Change) error {
		if e.Record.GetString("role") == users.RoleCamello {
			if l, built := x.cache.Peek(); !built || l.byUser[e.Record.Id] {
				x.cache.Invalidate()
			}
		}
		return e.Next()
	})
}

// filter is the listing's query, folded once.
type filter struct {
	words      []string
	trades     []string
	city       string
	cityPrefix string // city + " "
	category   string
	service    string
}

// candidates returns the positions of the entries that can match f, in
// order, from the narrowest of the city, service and category lists (the
// city-and-service list when both are asked); all is true when f has none
// of those conditions. exact is true when every position matches f as it
// is (no words, trades or further list to check): the caller then needs no
// filtering at all, and the total is the list's length.
func (l *listing) candidates(f *filter) (pos []int, all, exact bool) {
	plain := len(f.words) == 0 && len(f.trades) == 0
	var services []string
	if f.service != "" {
		services = append(services, f.service)
		if id, ok := l.slugs[f.service]; ok && id != f.service {
			services = append(services, id)
		}
	}
	var cities []string
	if f.city != "" {
		for k := range l.byCity {
			if k == f.city || strings.HasPrefix(k, f.cityPrefix) {
				cities = append(cities, k)
			}
		}
	}
	var lists [][]int
	switch {
	case f.city != "" && f.service != "":
		var parts [][]int
		for _, c := range cities {
			for _, s := range services {
				if p := l.byCityService[cityServiceKey(c, s)]; len(p) > 0 {
					parts = append(parts, p)
				}
			}
		}
		lists = append(lists, union(parts))
	case f.city != "":
		var parts [][]int
		for _, c := range cities {
			parts = append(parts, l.byCity[c])
		}
		lists = append(lists, union(parts))
	case f.service != "":
		var parts [][]int
		for _, s := range services {
			parts = append(parts, l.byService[s])
		}
		lists = append(lists, union(parts))
	}
	if f.category != "" {
		lists = append(lists, l.byCategory[f.category])
	}
	if len(lists) == 0 {
		return nil, true, plain
	}
	best := lists[0]
	for _, p := range lists[1:] {
		if len(p) < len(best) {
			best = p
		}
	}
	return best, false, plain && len(lists) == 1
}

// union merges ascending position lists into one, without repeats.
func union(parts [][]int) []int {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	sort.Ints(out)
	uniq := out[:0]
	for i, v := range out {
		if i == 0 || v != out[i-1] {
			uniq = append(uniq, v)
		}
	}
	return uniq
}

// match reports whether the camello passes every condition, as the SQL of
// publicFilter would.
func (f *filter) match(en *entry) bool {
	for _, w := range f.words {
		if !strings.Contains(en.searchText, w) {
			return false
		}
	}
	if len(f.trades) > 0 {
		ok := false
		for _, t := range f.trades {
			if strings.Contains(en.searchText, t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if f.city != "" && en.cityKey != f.city && !strings.HasPrefix(en.cityKey, f.cityPrefix) {
		return false
	}
	if f.category != "" && !en.offers(func(s *serviceRef) bool { return s.category == f.category }) {
		return false
	}
	if f.service != "" && !en.offers(func(s *serviceRef) bool { return s.ID == f.service || s.Slug == f.service }) {
		return false
	}
	return true
}

func (en *entry) offers(ok func(*serviceRef) bool) bool {
	for _, s := range en.services {
		if ok(s) {
			return true
		}
	}
	return false
}
