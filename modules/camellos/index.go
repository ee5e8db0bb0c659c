package camellos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"camellos/internal/bus"
	"camellos/internal/geo"
	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/list"
)

// entry is one ACTIVO camello of the listing index: what the filters
// compare, its place in the order, and its public JSON rendered once.
type entry struct {
	id         string
	user       string
	cityKey    string
	searchText string
	services   []*serviceRef
	raw        []byte
	// the listing's order: premium first, then rating, then newest
	premium bool
	rating  float64
	created string
	// where it works from (hasBase false: it is not in the spatial grid)
	hasBase bool
	base    geo.Point
	radius  float64 // km
}

// before reports whether a comes before b in the listing's order.
func (a *entry) before(b *entry) bool {
	if a.premium != b.premium {
		return a.premium
	}
	if a.rating != b.rating {
		return a.rating > b.rating
	}
	if a.created != b.created {
		return a.created > b.created
	}
	return a.id > b.id
}

// serviceRef is a service as the listing filters see it.
type serviceRef struct {
	ServiceSummary
	category string
}

// listing is the in-memory projection of the ACTIVO camellos, in the
// listing's order (premium first, then rating, then newest). A listing is
// never changed once readers can see it: a patch makes a new one that
// shares the unchanged parts.
type listing struct {
	entries  []*entry
	byID     map[string]*entry
	byUser   map[string]string // user → camello, of the listed camellos
	services map[string]*serviceRef
	slugs    map[string]string // service slug → id
	// the entries, in order, by folded city, service id, category id, and
	// city and service together (the listing's most common query answered
	// without filtering, at any size): the candidates of a filtered query
	byCity        map[string][]*entry
	byService     map[string][]*entry
	byCategory    map[string][]*entry
	byCityService map[cityService][]*entry
	// the spatial index: the entries with a base point, in order, by grid
	// cell of that point (internal/geo), and the largest travel radius
	// (the cells a search visits; a patch only raises it)
	grid      map[geo.Cell][]*entry
	maxRadius float64
}

// cityService keys byCityService.
type cityService struct{ city, service string }

// publicIndex is the listing index of one app. A write of one camello (its
// record, a review, its user's verified flag) patches it: that camello is
// read again and put in its place (Patch, tens of ms at 100,000 camellos);
// a catalog write or a commit by another process (internal/dbwatch) drops
// it and the next reader builds it again (1.5 s at 100,000). It has no age
// limit.
type publicIndex struct {
	cache memo.Cache[*listing]
	app   core.App
}

// indexKey keeps the app's index in its store (dropIndex).
const indexKey = "camellos.listingIndex"

func newPublicIndex(app core.App) *publicIndex {
	return &publicIndex{app: app}
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

// patch puts the camellos ids (committed writes) in their place again.
func (x *publicIndex) patch(ids ...string) {
	x.cache.Update(func(l *listing) (*listing, error) { return l.patched(x.app, ids) })
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
	HasBase      bool    `db:"hasBase"`
	BaseLat      float64 `db:"baseLat"`
	BaseLng      float64 `db:"baseLng"`
	RadiusKm     float64 `db:"radiusKm"`
	SearchText   string  `db:"searchText"`
	Verified     bool    `db:"verified"`
	User         string  `db:"user"`
}

// rowColumns are the columns of camelloRow, the verified flag read from
// the camello's user.
const rowColumns = "id, user, name, trades, status, premium, services, created, updated, city, neighborhood, " +
	"photo, description, ratingAvg, ratingCount, cityKey, searchText, hasBase, baseLat, baseLng, radiusKm, " +
	"(SELECT u.verified FROM users u WHERE u.id = camellos.user) AS verified"

// selectRows reads the ACTIVO camellos of ids in the listing's order.
func selectRows(app core.App, ids []string) ([]camelloRow, error) {
	var rows []camelloRow
	in := make([]any, len(ids))
	for i, id := range ids {
		in[i] = id
	}
	err := app.DB().Select(rowColumns).From(Collection).AndWhere(statusActive()).AndWhere(dbx.In("id", in...)).
		OrderBy("premium DESC", "ratingAvg DESC", "created DESC", "id DESC").All(&rows)
	return rows, err
}

// selectAllRows reads every ACTIVO camello in the table's own order: a
// scan of the table is a third of the time of a walk of the listing's
// index with a lookup of each row (0.20 s against 0.51 s for 100,000
// camellos in the sqlite3 shell); buildListing sorts them.
func selectAllRows(app core.App) ([]camelloRow, error) {
	var rows []camelloRow
	err := app.DB().NewQuery("SELECT " + rowColumns + " FROM " + Collection + " NOT INDEXED WHERE status = {:status}").
		Bind(dbx.Params{"status": StatusActive}).All(&rows)
	return rows, err
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
	slugs := make(map[string]string, len(svcRows))
	for _, s := range svcRows {
		services[s.ID] = &serviceRef{ServiceSummary: ServiceSummary{ID: s.ID, Name: s.Name, Slug: s.Slug}, category: s.Category}
		slugs[s.Slug] = s.ID
	}
	rows, err := selectAllRows(app)
	if err != nil {
		return nil, err
	}
	entries := make([]*entry, 0, len(rows))
	for i := range rows {
		en, err := newEntry(&rows[i], services)
		if err != nil {
			return nil, err
		}
		entries = append(entries, en)
	}
	rows = nil
	slices.SortFunc(entries, func(a, b *entry) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	return assemble(entries, services, slugs), nil
}

// newEntry renders one camello's row.
func newEntry(r *camelloRow, services map[string]*serviceRef) (*entry, error) {
	en := &entry{id: r.ID, user: r.User, cityKey: r.CityKey, searchText: r.SearchText,
		premium: r.Premium, rating: r.RatingAvg, created: r.Created,
		hasBase: r.HasBase, base: geo.Point{Lat: r.BaseLat, Lng: r.BaseLng}, radius: r.RadiusKm}
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
		City: r.City, CreatedAt: timefmt.ISOOfStored(r.Created), Description: r.Description, ID: r.ID,
		Name: r.Name, Neighborhood: r.Neighborhood, Photo: photo, Premium: r.Premium,
		Rating: ratingJSON{Average: r.RatingAvg, Count: int(r.RatingCount)}, Services: svc,
		Status: r.Status, Trades: tradesOf(r.Trades), UpdatedAt: timefmt.ISOOfStored(r.Updated), Verified: r.Verified,
	})
	if err != nil {
		return nil, err
	}
	en.raw = raw
	return en, nil
}

// assemble makes the listing of entries (in order): the lookups and the
// lists.
func assemble(entries []*entry, services map[string]*serviceRef, slugs map[string]string) *listing {
	l := &listing{entries: entries, byID: make(map[string]*entry, len(entries)), byUser: make(map[string]string, len(entries)),
		services: services, slugs: slugs, byCity: map[string][]*entry{}, byService: map[string][]*entry{},
		byCategory: map[string][]*entry{}, byCityService: map[cityService][]*entry{}, grid: map[geo.Cell][]*entry{}}
	for _, en := range entries {
		if en.hasBase {
			c := geo.CellOf(en.base)
			l.grid[c] = append(l.grid[c], en)
			l.maxRadius = max(l.maxRadius, en.radius)
		}
		l.byCity[en.cityKey] = append(l.byCity[en.cityKey], en)
		for _, s := range en.services {
			l.byService[s.ID] = append(l.byService[s.ID], en)
			k := cityService{en.cityKey, s.ID}
			l.byCityService[k] = append(l.byCityService[k], en)
		}
		for _, c := range en.categories() {
			l.byCategory[c] = append(l.byCategory[c], en)
		}
		l.byID[en.id] = en
		l.byUser[en.user] = en.id
	}
	return l
}

// categories lists the entry's categories, each once.
func (en *entry) categories() []string {
	var out []string
	for _, s := range en.services {
		if !slices.Contains(out, s.category) {
			out = append(out, s.category)
		}
	}
	return out
}

// VerifyIndex compares app's listing index, when built, with a full build
// read now: entries, their order and bytes, and every position list. For
// tests and diagnostics; built is false when there is no index to compare.
func VerifyIndex(app core.App) (built bool, err error) {
	x, ok := app.Store().Get(indexKey).(*publicIndex)
	if !ok {
		return false, nil
	}
	l, built := x.cache.Peek()
	if !built {
		return false, nil
	}
	full, err := buildListing(app)
	if err != nil {
		return true, err
	}
	if len(l.entries) != len(full.entries) {
		return true, fmt.Errorf("%d entries, a full build has %d", len(l.entries), len(full.entries))
	}
	for i := range l.entries {
		if l.entries[i].id != full.entries[i].id || !bytes.Equal(l.entries[i].raw, full.entries[i].raw) {
			return true, fmt.Errorf("entry %d: %s, a full build has %s", i, l.entries[i].raw, full.entries[i].raw)
		}
	}
	ids := func(m map[string][]*entry) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			if len(m[k]) == 0 {
				continue
			}
			b.WriteString(k + ":")
			for _, en := range m[k] {
				b.WriteString(" " + en.id)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	cells := func(m map[geo.Cell][]*entry) map[string][]*entry {
		out := make(map[string][]*entry, len(m))
		for k, v := range m {
			out[fmt.Sprint(k)] = v
		}
		return out
	}
	pairs := func(m map[cityService][]*entry) map[string][]*entry {
		out := make(map[string][]*entry, len(m))
		for k, v := range m {
			out[k.city+"|"+k.service] = v
		}
		return out
	}
	for _, m := range []struct {
		name string
		a, b map[string][]*entry
	}{{"city", l.byCity, full.byCity}, {"service", l.byService, full.byService},
		{"category", l.byCategory, full.byCategory}, {"city+service", pairs(l.byCityService), pairs(full.byCityService)},
		{"grid", cells(l.grid), cells(full.grid)}} {
		if a, b := ids(m.a), ids(m.b); a != b {
			return true, fmt.Errorf("%s lists differ:\n%s\n%s", m.name, a, b)
		}
	}
	if fmt.Sprint(l.byUser) != fmt.Sprint(full.byUser) {
		return true, fmt.Errorf("the users of the listed camellos differ")
	}
	return true, nil
}

// patched is a new listing with the camellos ids read again: each one
// leaves its place, and comes back in its place in the order if it is
// still ACTIVO. l is not changed (readers may hold it): the new listing
// has new copies of the lists that change and shares the others, so a
// patch costs the copies of the entries' order and of the lookups (a few
// ms at 100,000 camellos), not a build.
func (l *listing) patched(app core.App, ids []string) (*listing, error) {
	rows, err := selectRows(app, ids)
	if err != nil {
		return nil, err
	}
	n := &listing{entries: l.entries, byID: maps.Clone(l.byID), byUser: maps.Clone(l.byUser),
		services: l.services, slugs: l.slugs, byCity: maps.Clone(l.byCity), byService: maps.Clone(l.byService),
		byCategory: maps.Clone(l.byCategory), byCityService: maps.Clone(l.byCityService),
		grid: maps.Clone(l.grid), maxRadius: l.maxRadius}
	for _, id := range ids {
		if old := n.byID[id]; old != nil {
			n.place(old, false)
		}
	}
	for i := range rows {
		en, err := newEntry(&rows[i], l.services)
		if err != nil {
			return nil, err
		}
		n.place(en, true)
	}
	return n, nil
}

// place adds en to (in) or removes it from (!in) every list it belongs to,
// each list copied first.
func (l *listing) place(en *entry, in bool) {
	l.entries = placed(l.entries, en, in)
	l.byCity[en.cityKey] = placed(l.byCity[en.cityKey], en, in)
	for _, s := range en.services {
		l.byService[s.ID] = placed(l.byService[s.ID], en, in)
		k := cityService{en.cityKey, s.ID}
		l.byCityService[k] = placed(l.byCityService[k], en, in)
	}
	for _, c := range en.categories() {
		l.byCategory[c] = placed(l.byCategory[c], en, in)
	}
	if en.hasBase {
		c := geo.CellOf(en.base)
		l.grid[c] = placed(l.grid[c], en, in)
		if in {
			l.maxRadius = max(l.maxRadius, en.radius)
		}
	}
	if in {
		l.byID[en.id] = en
		l.byUser[en.user] = en.id
	} else {
		delete(l.byID, en.id)
		delete(l.byUser, en.user)
	}
}

// placed is a copy of the ordered list with en inserted in its place (in)
// or removed.
func placed(list []*entry, en *entry, in bool) []*entry {
	i := sort.Search(len(list), func(i int) bool { return !list[i].before(en) })
	if in {
		out := make([]*entry, 0, len(list)+1)
		out = append(out, list[:i]...)
		out = append(out, en)
		return append(out, list[i:]...)
	}
	if i == len(list) || list[i].id != en.id {
		return list // not there
	}
	out := make([]*entry, 0, len(list)-1)
	out = append(out, list[:i]...)
	return append(out, list[i+1:]...)
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

// bindIndexHooks drops the listing index after every committed write that
// can change a public answer: a camello that is or was ACTIVO, any service
// or category (names, slugs, categories of the services shown and
// filtered), any review (the rating is updated with it).
func bindIndexHooks(app core.App, x *publicIndex) {
	// One camello written: that one is put in its place again, if it is or
	// was listed.
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) {
		l, built := x.cache.Peek()
		if !built || w.Record.GetString("status") == StatusActive || l.byID[w.Record.Id] != nil {
			x.patch(w.Record.Id)
		}
	})
	// The catalog (names, slugs and categories of every service shown and
	// filtered): built again.
	ev := bus.Of(app)
	ev.CatalogChanged.BindFunc(func(e *bus.Change) error {
		x.cache.Invalidate()
		return e.Next()
	})
	// A review changes its camello's rating (in the same transaction).
	readmodel.OnWrite(app, ReviewsCollection, func(w readmodel.Write) {
		ids := []string{w.Record.GetString("camello")}
		if o := w.Record.Original(); o != nil && o.GetString("camello") != ids[0] {
			ids = append(ids, o.GetString("camello"))
		}
		x.patch(ids...)
	})
	// The public verified badge follows the user's flag: only a user of a
	// listed camello can change an answer (a camello signing up, or any
	// other user's write, leaves the index as it is). Whatever the user's
	// role: a superuser can move a profile to a user of any role.
	ev.UserChanged.BindFunc(func(e *bus.Change) error {
		l, built := x.cache.Peek()
		if built {
			if id := l.byUser[e.Record.Id]; id != "" {
				x.patch(id)
			}
		} else if users.Wrap(e.Record).Role() == users.RoleCamello || hasProfile(e.App, e.Record.Id) {
			// a build under way may have read the user before this write
			x.cache.Invalidate()
		}
		return e.Next()
	})
}

// declareIndex declares the listing index (internal/readmodel): built
// from the camellos, their users (the verified badge), reviews and the
// catalog; checked against a full build, as VerifyIndex does.
func declareIndex(app core.App, x *publicIndex) {
	readmodel.Declare(app, readmodel.Projection{
		Name:   "listing",
		Tables: []string{Collection, ReviewsCollection, users.Collection, "services", "categories"},
		Bound:  "every ACTIVO camello (~1 KB each: 102 MB at 100,000)",
		Drop:   x.cache.Invalidate,
		Check: func(app core.App) (int, error) {
			if built, err := VerifyIndex(app); built && err != nil {
				app.Logger().Warn("listing index differs from a full build", "difference", err.Error())
				return 1, nil
			}
			return 0, nil
		},
	})
}

// hasProfile reports whether a camello profile belongs to the user.
func hasProfile(app core.App, userID string) bool {
	var n int
	_ = app.DB().NewQuery("SELECT COUNT(*) FROM " + Collection + " WHERE user = {:u}").
		Bind(dbx.Params{"u": userID}).Row(&n)
	return n > 0
}

// filter is the listing's query, folded once.
type filter struct {
	words      []string
	trades     []string
	city       string
	cityPrefix string // city + " "
	category   string
	service    string
	// near: the client's position; only camellos whose radius reaches it,
	// nearest first
	near *geo.Point
}

// candidates returns the entries that can match f, in order, from the
// narrowest of the city, service and category lists (the city-and-service
// list when both are asked); all is true when f has none of those
// conditions. exact is true when every entry returned matches f as it is
// (no words, trades or further list to check): the caller then needs no
// filtering at all, and the total is the list's length.
func (l *listing) candidates(f *filter) (list []*entry, all, exact bool) {
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
	var lists [][]*entry
	switch {
	case f.city != "" && f.service != "":
		var parts [][]*entry
		for _, c := range cities {
			for _, s := range services {
				if p := l.byCityService[cityService{c, s}]; len(p) > 0 {
					parts = append(parts, p)
				}
			}
		}
		lists = append(lists, union(parts))
	case f.city != "":
		var parts [][]*entry
		for _, c := range cities {
			parts = append(parts, l.byCity[c])
		}
		lists = append(lists, union(parts))
	case f.service != "":
		var parts [][]*entry
		for _, s := range services {
			parts = append(parts, l.byService[s])
		}
		lists = append(lists, union(parts))
	}
	if f.category != "" {
		lists = append(lists, l.byCategory[f.category])
	}
	if len(lists) == 0 {
		return l.entries, true, plain
	}
	best := lists[0]
	for _, p := range lists[1:] {
		if len(p) < len(best) {
			best = p
		}
	}
	return best, false, plain && len(lists) == 1
}

// union merges ordered lists into one, in order, without repeats.
func union(parts [][]*entry) []*entry {
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	var out []*entry
	for _, p := range parts {
		out = append(out, p...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].before(out[j]) })
	uniq := out[:0]
	for i, en := range out {
		if i == 0 || en != out[i-1] {
			uniq = append(uniq, en)
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

// nearby is a camello within reach of the client and its distance.
type nearby struct {
	en *entry
	km float64
}

// near lists the camellos matching f whose travel radius reaches p,
// nearest first (then in the listing's order), from the spatial grid: only
// the cells within the largest radius are visited, a cell farther than it
// skipped whole, so a search costs the camellos around p, not all of them.
func (l *listing) near(f *filter, p geo.Point) []nearby {
	var out []nearby
	if l.maxRadius <= 0 {
		return out
	}
	rows, cols := geo.CellsWithin(p, l.maxRadius)
	for r := rows[0]; r <= rows[1]; r++ {
		for c := cols[0]; c <= cols[1]; c++ {
			cell := geo.Cell{Row: r, Col: c}
			list := l.grid[cell]
			if len(list) == 0 || geo.NearestKm(p, cell) > l.maxRadius {
				continue
			}
			for _, en := range list {
				if d := geo.DistanceKm(p, en.base); d <= en.radius && f.match(en) {
					out = append(out, nearby{en, d})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b nearby) int {
		switch {
		case a.km < b.km:
			return -1
		case a.km > b.km:
			return 1
		case a.en.before(b.en):
			return -1
		case b.en.before(a.en):
			return 1
		}
		return 0
	})
	return out
}
