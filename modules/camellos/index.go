package camellos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"camellos/internal/bus"
	"camellos/internal/geo"
	"camellos/internal/readmodel"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/list"
)

// entry is one ACTIVO camello of the listing index: what the filters
// compare, its place in the order, and the values of its public JSON
// rendered once. It has a fixed size and no pointers (its text is spans of
// the listing's slab, its city and services are indexes), so the array of
// entries costs the collector nothing to mark.
type entry struct {
	id, search span
	// created is its createdAt (ISO), the listing's "newest" order
	created span
	// vals are the rendered values of its JSON that are not shared, each
	// ended by a 0 byte (never in rendered JSON): description, name,
	// neighborhood, photo, rating, trades, updatedAt (and the id, when it
	// needs escaping)
	vals span
	svc  span // its services: indexes into listing.svcs
	// city is its folded city (listing.cityKeys), cityLit its rendered city
	city, cityLit uint32
	flags         uint8
	// the listing's order: premium first, then rating, then newest
	rating float64
	// where it works from (flagBase unset: it is not in the spatial grid)
	base   geo.Point
	radius float64 // km
	// the base point as a unit vector, and the least dot product with a
	// client's unit vector that its radius reaches (cos of radius/R)
	vec   [3]float64
	reach float64
}

const (
	flagPremium uint8 = 1 << iota
	flagBase
	flagVerified
	flagEscapedID // the rendered id is the last of vals
)

// serviceRef is a service as the listing filters and renders it.
type serviceRef struct {
	ServiceSummary
	category string
	json     []byte // its ServiceSummary, rendered
}

// listing is the in-memory projection of the ACTIVO camellos, in the
// listing's order (premium first, then rating, then newest). A listing is
// never changed once readers can see it: a patch makes a new one that
// shares the unchanged parts.
//
// It is packed (issue 27): the entries are one array of fixed-size records
// without pointers, their text one byte slab, their services one array of
// indexes; every list holds entry indexes (int32); the ids and users are
// found in two lists of them sorted by id and by user. recs, text and svcs are
// append-only: a patch appends the camellos it reads again past their
// ends (which the listings readers hold never look at) and leaves the old
// records dead; when the dead ones outweigh the live, the patch compacts.
type listing struct {
	recs []entry
	text []byte
	svcs []int32
	dead int // entries of recs no longer listed
	// slack is the spare capacity an append-only array grows by: a half
	// during a build, a sixteenth after (tighten)
	slack int

	order []int32 // the listed entries, in order
	ids   []int32 // the listed entries by id (byID)

	services   []*serviceRef // the catalog, by index
	serviceIdx map[string]int32
	slugs      map[string]int32 // service slug → index

	cityKeys []string // folded cities, by index (append-only)
	cityIdx  map[string]uint32
	cityLits [][]byte // rendered cities, by index (append-only)
	litIdx   map[string]uint32

	// the entries, in order, by city, service, category, and service and
	// city together (the listing's most common query answered without
	// filtering, at any size): the candidates of a filtered query
	byCity        map[uint32][]int32
	byService     [][]int32
	byCategory    map[string][]int32
	byCityService []map[uint32][]int32 // by service, then city

	// the spatial index: the entries with a base point by grid cell of
	// that point (internal/geo; the cells by row and column), and the
	// largest travel radius (the cells a search visits; a patch only
	// raises it)
	grid      []*cell
	maxRadius float64
	// by service, its entries with a base point by cell (index_near.go):
	// the candidates of a search by distance with a service
	svcCells [][]cellRef

	// during a patch: the maps of byCityService already copied
	copied map[int32]bool
}

// publicIndex is the listing index of one app. A write of one camello (its
// record, a review, its user's verified flag) patches it: that camello is
// read again and put in its place (Patch, a few ms at 100,000 camellos);
// a catalog write or a commit by another process (internal/dbwatch) drops
// it and the next reader builds it again (1.5 s at 100,000). It has no age
// limit.
type publicIndex struct {
	cache readmodel.Snapshot[*listing]
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
}

// rowColumns are the columns of camelloRow, the verified flag read from
// the camello's user.
const rowColumns = "id, name, trades, status, premium, services, created, updated, city, neighborhood, " +
	"photo, description, ratingAvg, ratingCount, cityKey, searchText, hasBase, baseLat, baseLng, radiusKm, " +
	"(SELECT u.verified FROM users u WHERE u.id = camellos.user) AS verified"

// selectRows reads the ACTIVO camellos of ids.
func selectRows(app core.App, ids []string) ([]camelloRow, error) {
	var rows []camelloRow
	err := app.DB().Select(rowColumns).From(Collection).AndWhere(statusActive()).AndWhere(dbx.In("id", list.ToInterfaceSlice(ids)...)).All(&rows)
	return rows, err
}

// newListing is an empty listing over the catalog.
func newListing(services []*serviceRef, n int) *listing {
	l := &listing{recs: make([]entry, 0, n), text: make([]byte, 0, n*300), svcs: make([]int32, 0, n*2),
		slack: 2, services: services, serviceIdx: make(map[string]int32, len(services)),
		slugs: make(map[string]int32, len(services)), cityIdx: map[string]uint32{}, litIdx: map[string]uint32{}}
	for i, s := range services {
		l.serviceIdx[s.ID] = int32(i)
		l.slugs[s.Slug] = int32(i)
	}
	return l
}

// buildListing reads every ACTIVO camello and every service and renders
// each camello's public JSON exactly as JSON(app, recs, false).
func buildListing(app core.App) (*listing, error) {
	var svcRows []struct {
		ID       string `db:"id"`
		Name     string `db:"name"`
		Slug     string `db:"slug"`
		Category string `db:"category"`
	}
	if err := app.DB().Select("id", "name", "slug", "category").From("services").OrderBy("id").All(&svcRows); err != nil {
		return nil, err
	}
	services := make([]*serviceRef, 0, len(svcRows))
	for _, s := range svcRows {
		ref := &serviceRef{ServiceSummary: ServiceSummary{ID: s.ID, Name: s.Name, Slug: s.Slug}, category: s.Category}
		raw, err := json.Marshal(ref.ServiceSummary)
		if err != nil {
			return nil, err
		}
		ref.json = raw
		services = append(services, ref)
	}
	var n int
	_ = app.DB().NewQuery("SELECT COUNT(*) FROM " + Collection + " WHERE status = {:status}").
		Bind(dbx.Params{"status": StatusActive}).Row(&n)
	l := newListing(services, n)
	err := eachActiveRow(app, func(r *camelloRow) error {
		_, err := l.addRow(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	l.finish()
	return l, nil
}

// addRow renders one camello's row as a new entry (not yet listed).
func (l *listing) addRow(r *camelloRow, patching ...bool) (int32, error) {
	copyMaps := len(patching) > 0
	e := entry{rating: r.RatingAvg, radius: r.RadiusKm, base: geo.Point{Lat: r.BaseLat, Lng: r.BaseLng}}
	if r.Premium {
		e.flags |= flagPremium
	}
	if r.Verified {
		e.flags |= flagVerified
	}
	if r.HasBase {
		e.flags |= flagBase
		e.vec = unitVector(e.base)
		e.reach = math.Cos(e.radius / geo.EarthRadiusKm)
	}
	e.city = readmodel.Intern(&l.cityKeys, &l.cityIdx, r.CityKey, r.CityKey, copyMaps)
	var lit [64]byte
	city := appendJSONString(lit[:0], r.City)
	if i, ok := l.litIdx[string(city)]; ok {
		e.cityLit = i
	} else {
		e.cityLit = readmodel.Intern(&l.cityLits, &l.litIdx, string(city), slices.Clone(city), copyMaps)
	}
	e.id = l.putString(r.ID)
	e.search = l.putString(r.SearchText)
	// The values of its JSON, each ended by a 0 byte, written in place.
	l.text = readmodel.Grow(l.text, 2*(len(r.Description)+len(r.Name)+len(r.Neighborhood)+len(r.Photo)+len(r.Trades))+160, l.slack)
	start := len(l.text)
	t := appendISOOfStored(l.text, r.Created, false)
	e.created = span{off: uint32(start), n: uint32(len(t) - start)}
	start = len(t)
	t = append(appendJSONString(t, r.Description), 0)
	t = append(appendJSONString(t, r.Name), 0)
	t = append(appendJSONString(t, r.Neighborhood), 0)
	if r.Photo != "" {
		t = append(appendJSONString(t, "/uploads/camellos/"+r.Photo), 0)
	} else {
		t = append(t, '"', '"', 0)
	}
	t, err := appendRating(t, r.RatingAvg, int(r.RatingCount))
	if err != nil {
		return 0, err
	}
	t = append(t, 0)
	if t, err = appendTrades(t, r.Trades); err != nil {
		return 0, err
	}
	t = append(appendISOOfStored(append(t, 0), r.Updated, true), 0)
	if id := appendJSONString(lit[:0], r.ID); len(id) != len(r.ID)+2 { // escaped
		e.flags |= flagEscapedID
		t = append(appendJSONString(t, r.ID), 0)
	}
	e.vals = span{off: uint32(start), n: uint32(len(t) - start)}
	l.text = t
	l.svcs = readmodel.Grow(l.svcs, 4, l.slack)
	e.svc.off = uint32(len(l.svcs))
	addService := func(id string) {
		if s, ok := l.serviceIdx[id]; ok && !slices.Contains(l.svcs[e.svc.off:], s) {
			l.svcs = append(l.svcs, s)
		}
	}
	if !simpleStrings(r.Services, addService) {
		l.svcs = l.svcs[:e.svc.off]
		for _, id := range list.ToUniqueStringSlice(r.Services) {
			addService(id)
		}
	}
	e.svc.n = uint32(len(l.svcs)) - e.svc.off
	l.recs = readmodel.Grow(l.recs, 1, l.slack)
	l.recs = append(l.recs, e)
	return int32(len(l.recs) - 1), nil
}

// copyEntry copies entry i of from (its text and services) into l.
func (l *listing) copyEntry(from *listing, i int32) int32 {
	e := from.recs[i]
	e.id = l.putString(from.str(e.id))
	e.search = l.putString(from.str(e.search))
	e.created = l.putString(from.str(e.created))
	e.vals = l.putString(from.str(e.vals))
	svc := from.svcs[e.svc.off : e.svc.off+e.svc.n]
	l.svcs = readmodel.Grow(l.svcs, len(svc), l.slack)
	e.svc.off = uint32(len(l.svcs))
	l.svcs = append(l.svcs, svc...)
	l.recs = readmodel.Grow(l.recs, 1, l.slack)
	l.recs = append(l.recs, e)
	return int32(len(l.recs) - 1)
}

// index makes the lists and the lookups of l.order (in order): the
// lookups, the lists and the spatial index side by side (each
// writes its own fields of l, and only reads the entries).
func (l *listing) index() {
	var wg sync.WaitGroup
	wg.Go(func() {
		l.ids = slices.SortedFunc(slices.Values(l.order), l.byID)
	})
	wg.Go(l.indexSpatial)
	l.byCity = map[uint32][]int32{}
	l.byService = make([][]int32, len(l.services))
	l.byCategory = map[string][]int32{}
	l.byCityService = make([]map[uint32][]int32, len(l.services))
	var cats []string
	for _, i := range l.order {
		e := &l.recs[i]
		l.byCity[e.city] = append(l.byCity[e.city], i)
		cats = cats[:0]
		for _, s := range l.servicesOf(e) {
			l.byService[s] = append(l.byService[s], i)
			if l.byCityService[s] == nil {
				l.byCityService[s] = map[uint32][]int32{}
			}
			l.byCityService[s][e.city] = append(l.byCityService[s][e.city], i)
			if c := l.services[s].category; !slices.Contains(cats, c) {
				cats = append(cats, c)
				l.byCategory[c] = append(l.byCategory[c], i)
			}
		}
	}
	wg.Wait()
}

// servicesOf are the entry's services (indexes into l.services).
func (l *listing) servicesOf(e *entry) []int32 {
	return l.svcs[e.svc.off : e.svc.off+e.svc.n : e.svc.off+e.svc.n]
}

// categories lists the entry's categories, each once.
func (l *listing) categories(e *entry) []string {
	var out []string
	for _, s := range l.servicesOf(e) {
		if c := l.services[s].category; !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// compare orders entries i and j as the listing does: premium first, then
// rating, then newest, then by id (descending).
func (l *listing) compare(i, j int32) int {
	a, b := &l.recs[i], &l.recs[j]
	if pa, pb := a.flags&flagPremium != 0, b.flags&flagPremium != 0; pa != pb {
		if pa {
			return -1
		}
		return 1
	}
	if a.rating != b.rating {
		if a.rating > b.rating {
			return -1
		}
		return 1
	}
	if c := strings.Compare(l.str(b.created), l.str(a.created)); c != 0 {
		return c
	}
	return strings.Compare(l.str(b.id), l.str(a.id))
}

// appendJSON appends entry i's public JSON, the bytes json.Marshal writes
// for JSON(app, recs, false) (publicJSON: its keys in that order), with
// its distance put first inside the object when km ≥ 0
// (`"distanceKm":3.2,`: appendKm).
func (l *listing) appendJSON(buf []byte, i int32, km float64) []byte {
	e := &l.recs[i]
	vals := l.bytesOf(e.vals)
	var description, name, neighborhood, photo, rating, trades, updated, id []byte
	for _, v := range []*[]byte{&description, &name, &neighborhood, &photo, &rating, &trades, &updated, &id} {
		if k := bytes.IndexByte(vals, 0); k >= 0 {
			*v, vals = vals[:k], vals[k+1:]
		}
	}
	buf = append(buf, '{')
	if km >= 0 {
		buf = append(appendKm(append(buf, `"distanceKm":`...), km), ',')
	}
	buf = append(buf, `"city":`...)
	buf = append(buf, l.cityLits[e.cityLit]...)
	buf = append(buf, `,"createdAt":"`...)
	buf = append(buf, l.bytesOf(e.created)...)
	buf = append(buf, `","description":`...)
	buf = append(buf, description...)
	buf = append(buf, `,"id":`...)
	if e.flags&flagEscapedID != 0 {
		buf = append(buf, id...)
	} else {
		buf = append(buf, '"')
		buf = append(buf, l.bytesOf(e.id)...)
		buf = append(buf, '"')
	}
	buf = append(buf, `,"name":`...)
	buf = append(buf, name...)
	buf = append(buf, `,"neighborhood":`...)
	buf = append(buf, neighborhood...)
	buf = append(buf, `,"photo":`...)
	buf = append(buf, photo...)
	buf = append(buf, `,"premium":`...)
	buf = strconv.AppendBool(buf, e.flags&flagPremium != 0)
	buf = append(buf, `,"rating":`...)
	buf = append(buf, rating...)
	buf = append(buf, `,"services":[`...)
	for k, s := range l.servicesOf(e) {
		if k > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, l.services[s].json...)
	}
	buf = append(buf, `],"status":"`+StatusActive+`","trades":`...)
	buf = append(buf, trades...)
	buf = append(buf, `,"updatedAt":`...)
	buf = append(buf, updated...)
	buf = append(buf, `,"verified":`...)
	buf = strconv.AppendBool(buf, e.flags&flagVerified != 0)
	return append(buf, '}')
}

// touch reads a byte of every cache line of the n entries a page renders
// (at(k): the k-th), their records and their texts, before it renders
// them: at 100,000 camellos each is a cache miss, and loads with nothing
// between them wait for memory side by side, not one after the other.
func (l *listing) touch(n int, at func(k int) (int32, float64)) {
	var sum byte
	for k := 0; k < n; k++ {
		i, _ := at(k)
		e := &l.recs[i]
		for _, s := range [...]span{e.vals, e.id, e.created} {
			for off := s.off; off < s.off+s.n; off += 64 {
				sum += l.text[off]
			}
		}
	}
	touched.Add(uint32(sum))
}

// touched keeps touch's loads (never read).
var touched atomic.Uint32

// rendered is entry i's public JSON, in a new slice.
func (l *listing) rendered(i int32) []byte {
	return l.appendJSON(make([]byte, 0, 512), i, -1)
}

// appendKm appends geo.RoundKm(km) as strconv.AppendFloat(…, 'f', -1, 64)
// writes it: a whole number of tenths under 10 km ("3", "3.2"), whole km
// above; without its search for the shortest digits.
func appendKm(buf []byte, km float64) []byte {
	r := geo.RoundKm(km)
	if r >= 1e6 || r != math.Round(r*10)/10 {
		return strconv.AppendFloat(buf, r, 'f', -1, 64)
	}
	tenths := int64(math.Round(r * 10))
	buf = strconv.AppendInt(buf, tenths/10, 10)
	if d := tenths % 10; d != 0 {
		buf = append(buf, '.', byte('0'+d))
	}
	return buf
}

// VerifyIndex compares app's listing index, when built, with a full build
// read now: entries, their order and bytes, every position list and the
// lookups. For tests and diagnostics; built is false when there is no
// index to compare.
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
	if len(l.order) != len(full.order) {
		return true, fmt.Errorf("%d entries, a full build has %d", len(l.order), len(full.order))
	}
	for k := range l.order {
		a, b := l.rendered(l.order[k]), full.rendered(full.order[k])
		if !bytes.Equal(a, b) {
			return true, fmt.Errorf("entry %d: %s, a full build has %s", k, a, b)
		}
	}
	if a, b := l.describe(), full.describe(); a != b {
		return true, fmt.Errorf("lists differ:\n%s\n%s", a, b)
	}
	if dead := len(l.recs) - len(l.order); dead != l.dead {
		return true, fmt.Errorf("%d dead entries counted, %d in fact", l.dead, dead)
	}
	return true, nil
}

// describe writes every list of l by its keys' names, the grid's cells'
// entries sorted by id: what two listings of the same camellos share.
func (l *listing) describe() string {
	var b strings.Builder
	ids := func(list []int32, sorted bool) string {
		out := make([]string, 0, len(list))
		for _, i := range list {
			out = append(out, l.str(l.recs[i].id))
		}
		if sorted {
			sort.Strings(out)
		}
		return strings.Join(out, " ")
	}
	var lines []string
	add := func(kind, key string, list []int32, sorted bool) {
		if len(list) > 0 {
			lines = append(lines, kind+" "+key+": "+ids(list, sorted))
		}
	}
	for c, list := range l.byCity {
		add("city", l.cityKeys[c], list, false)
	}
	for s, list := range l.byService {
		add("service", l.services[s].ID, list, false)
	}
	for c, list := range l.byCategory {
		add("category", c, list, false)
	}
	for s, m := range l.byCityService {
		for c, list := range m {
			add("city+service", l.cityKeys[c]+"|"+l.services[s].ID, list, false)
		}
	}
	add("by id", "", l.ids, false)
	l.describeSpatial(add, &lines)
	sort.Strings(lines)
	for _, line := range lines {
		b.WriteString(line + "\n")
	}
	return b.String()
}

// patched is a new listing with the camellos ids read again: each one
// leaves its place, and comes back in its place in the order if it is
// still ACTIVO. l is not changed (readers may hold it): the new listing
// appends the entries read to the shared arrays, copies the lists that
// change and shares the others, so a patch costs the copies of the order,
// of the two lookups and of the lists it touches (a few ms at
// 100,000 camellos), not a build.
func (l *listing) patched(app core.App, ids []string) (*listing, error) {
	rows, err := selectRows(app, ids)
	if err != nil {
		return nil, err
	}
	return l.withRows(ids, rows)
}

// withRows is the new listing of patched: the camellos ids leave their
// places, rows (those of them still ACTIVO) come back.
func (l *listing) withRows(ids []string, rows []camelloRow) (*listing, error) {
	n := *l
	n.byCity, n.byCategory = maps.Clone(l.byCity), maps.Clone(l.byCategory)
	n.byService, n.byCityService, n.svcCells, n.grid = slices.Clone(l.byService), slices.Clone(l.byCityService), slices.Clone(l.svcCells), slices.Clone(l.grid)
	n.copied = map[int32]bool{}
	// The order and the lookups are copied once, at the end, with every
	// camello that left and came back (the largest lists: 400 KB each at
	// 100,000).
	var gone, back []int32
	for _, id := range ids {
		if i, ok := l.find(id); ok && !slices.Contains(gone, i) {
			n.place(i, false)
			gone = append(gone, i)
			n.dead++
		}
	}
	read := map[string]bool{}
	for k := range rows {
		i, err := n.addRow(&rows[k], true)
		if err != nil {
			return nil, err
		}
		if read[rows[k].ID] { // an id read twice
			n.dead++
			continue
		}
		read[rows[k].ID] = true
		n.place(i, true)
		back = append(back, i)
	}
	n.order = readmodel.Reorder(l.order, gone, back, n.compare)
	n.ids = readmodel.Reorder(l.ids, gone, back, n.byID)
	n.copied = nil
	if n.dead > 1024 && n.dead > len(n.order) {
		return n.compacted(), nil
	}
	return &n, nil
}

// compacted is l without its dead entries: a new set of arrays.
func (l *listing) compacted() *listing {
	n := l.laidOut()
	n.index()
	n.tighten()
	return n
}

// laidOut is a copy of l's listed entries (not yet indexed) in new
// arrays, city by city, each city's in the listing's order: a city's page
// and the camellos of its cells lie side by side in memory (at 100,000
// camellos the entries a page renders, scattered over 40 MB, were a cache
// miss each).
func (l *listing) laidOut() *listing {
	n := newListing(l.services, len(l.order))
	byCity := make([][]int32, len(l.cityKeys))
	for _, i := range l.order {
		byCity[l.recs[i].city] = append(byCity[l.recs[i].city], i)
	}
	moved := make([]int32, len(l.recs))
	for _, list := range byCity {
		for _, i := range list {
			e := &l.recs[i]
			j := n.copyEntry(l, i)
			n.recs[j].city = readmodel.Intern(&n.cityKeys, &n.cityIdx, l.cityKeys[e.city], l.cityKeys[e.city], false)
			lit := l.cityLits[e.cityLit]
			n.recs[j].cityLit = readmodel.Intern(&n.cityLits, &n.litIdx, string(lit), lit, false)
			moved[i] = j
		}
	}
	n.order = make([]int32, len(l.order))
	for k, i := range l.order {
		n.order[k] = moved[i]
	}
	return n
}

// place adds entry i to (in) or removes it from (!in) every list it
// belongs to but the order and the lookups (reordered), each list copied
// first.
func (l *listing) place(i int32, in bool) {
	e := &l.recs[i]
	l.byCity[e.city] = l.placed(l.byCity[e.city], i, in)
	for _, s := range l.servicesOf(e) {
		l.byService[s] = l.placed(l.byService[s], i, in)
		if !l.copied[s] {
			l.byCityService[s] = maps.Clone(l.byCityService[s])
			if l.byCityService[s] == nil {
				l.byCityService[s] = map[uint32][]int32{}
			}
			l.copied[s] = true
		}
		l.byCityService[s][e.city] = l.placed(l.byCityService[s][e.city], i, in)
	}
	for _, c := range l.categories(e) {
		l.byCategory[c] = l.placed(l.byCategory[c], i, in)
	}
	l.placeSpatial(i, in)
}

// placed is a copy of the ordered list with entry i inserted in its place
// (in) or removed.
func (l *listing) placed(list []int32, i int32, in bool) []int32 {
	if in {
		return readmodel.Reorder(list, nil, []int32{i}, l.compare)
	}
	return readmodel.Reorder(list, []int32{i}, nil, l.compare)
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
		if !built || w.Record.GetString("status") == StatusActive {
			x.patch(w.Record.Id)
		} else if _, listed := l.find(w.Record.Id); listed {
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
		var ids []string // its camello (idx_camellos_user: one at most)
		err := e.App.DB().Select("id").From(Collection).Where(dbx.HashExp{"user": e.Record.Id}).Column(&ids)
		l, built := x.cache.Peek()
		switch {
		case err != nil:
			x.cache.Invalidate()
		case built && len(ids) > 0:
			if _, listed := l.find(ids[0]); listed {
				x.patch(ids[0])
			}
		case !built && (users.Wrap(e.Record).Role() == users.RoleCamello || len(ids) > 0):
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
		Bound:  "every ACTIVO camello, packed (~0.5 KB each: see SCALING.md)",
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
func (l *listing) candidates(f *filter) (list []int32, all, exact bool) {
	plain := len(f.words) == 0 && len(f.trades) == 0
	var services []int32
	if f.service != "" {
		if s, ok := l.serviceIdx[f.service]; ok {
			services = append(services, s)
		}
		if s, ok := l.slugs[f.service]; ok && !slices.Contains(services, s) {
			services = append(services, s)
		}
	}
	var cities []uint32
	if f.city != "" {
		for c, k := range l.cityKeys {
			if k == f.city || strings.HasPrefix(k, f.cityPrefix) {
				cities = append(cities, uint32(c))
			}
		}
	}
	var lists, parts [][]int32
	switch {
	case f.city != "":
		for _, c := range cities {
			if f.service == "" {
				parts = append(parts, l.byCity[c])
			}
			for _, s := range services {
				parts = append(parts, l.byCityService[s][c])
			}
		}
	case f.service != "":
		for _, s := range services {
			parts = append(parts, l.byService[s])
		}
	}
	if f.city != "" || f.service != "" {
		lists = append(lists, l.union(parts))
	}
	if f.category != "" {
		lists = append(lists, l.byCategory[f.category])
	}
	if len(lists) == 0 {
		return l.order, true, plain
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
func (l *listing) union(parts [][]int32) []int32 {
	parts = slices.DeleteFunc(parts, func(p []int32) bool { return len(p) == 0 })
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	var out []int32
	for _, p := range parts {
		out = append(out, p...)
	}
	slices.SortFunc(out, l.compare)
	return slices.Compact(out)
}

// match reports whether camello i passes every condition, as the SQL of
// publicFilter would.
func (l *listing) match(f *filter, i int32) bool {
	e := &l.recs[i]
	search := l.str(e.search)
	for _, w := range f.words {
		if !strings.Contains(search, w) {
			return false
		}
	}
	if len(f.trades) > 0 {
		ok := false
		for _, t := range f.trades {
			if strings.Contains(search, t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if city := l.cityKeys[e.city]; f.city != "" && city != f.city && !strings.HasPrefix(city, f.cityPrefix) {
		return false
	}
	if f.category != "" && !l.offers(e, func(s *serviceRef) bool { return s.category == f.category }) {
		return false
	}
	if f.service != "" && !l.offers(e, func(s *serviceRef) bool { return s.ID == f.service || s.Slug == f.service }) {
		return false
	}
	return true
}

func (l *listing) offers(e *entry, ok func(*serviceRef) bool) bool {
	for _, s := range l.servicesOf(e) {
		if ok(l.services[s]) {
			return true
		}
	}
	return false
}
