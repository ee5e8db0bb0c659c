package camellos

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"camellos/internal/geo"
)

// A search by distance works with dot products of unit vectors: a camello
// at u with travel radius r reaches the client at v when u·v ≥ cos(r/R)
// (its reach), and the nearer of two camellos has the larger dot product.
// A cell of the grid bounds the dot products of its points with v from
// above (its nearest point, bound) and from below (its farthest corner),
// with a few multiplications and no trigonometry: the search orders, skips
// and counts cells by those bounds, and computes distances (haversine)
// only for the camellos of the page.

// reachRec is a camello of a grid cell as a search by distance reads it:
// packed side by side (40 bytes), so a search walks the cells around the
// client as plain arrays of numbers, never touching the entries it does
// not keep.
type reachRec struct {
	vec   [3]float64 // the base point as a unit vector
	reach float64    // entry.reach
	idx   int32
}

// recOf is entry i's reachRec.
func (l *listing) recOf(i int32) reachRec {
	e := &l.recs[i]
	return reachRec{vec: e.vec, reach: e.reach, idx: i}
}

// byReach orders a cell's camellos: the least reach (the largest travel
// radius) first.
func byReach(a, b reachRec) int {
	if c := cmp.Compare(a.reach, b.reach); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// cell is one cell of the spatial grid: its camellos, the least reach
// first (a search that only counts finds by two binary searches those
// that reach the whole cell, counted without a look, and those short of
// its nearest point, never looked at: only the band between is tested one
// by one), its corners as unit vectors (the least dot product of a client
// with a point of the cell is at a corner) and the cosine and sine of its
// southern and northern edges' latitudes (the greatest: bound).
type cell struct {
	at      geo.Cell
	recs    []reachRec
	corners [4][3]float64
	edges   [2][2]float64 // {cos, sin} of the southern, then northern latitude
}

// firstReach is the first of c's recs whose reach is at least x.
func (c *cell) firstReach(x float64) int {
	return sort.Search(len(c.recs), func(j int) bool { return c.recs[j].reach >= x })
}

// newCell is an empty cell at at.
func newCell(at geo.Cell) *cell {
	const rad = math.Pi / 180
	lat0, lng0 := float64(at.Row)*geo.CellDeg, float64(at.Col)*geo.CellDeg
	c := &cell{at: at}
	for k, q := range [4]geo.Point{{Lat: lat0, Lng: lng0}, {Lat: lat0 + geo.CellDeg, Lng: lng0},
		{Lat: lat0, Lng: lng0 + geo.CellDeg}, {Lat: lat0 + geo.CellDeg, Lng: lng0 + geo.CellDeg}} {
		c.corners[k] = unitVector(q)
	}
	for k, lat := range [2]float64{lat0, lat0 + geo.CellDeg} {
		c.edges[k] = [2]float64{math.Cos(lat * rad), math.Sin(lat * rad)}
	}
	return c
}

// with is a copy of c with entry i (without it: !in).
func (c *cell) with(l *listing, i int32, in bool) *cell {
	out := *c
	out.recs = make([]reachRec, 0, len(c.recs)+1)
	for _, r := range c.recs {
		if r.idx != i {
			out.recs = append(out.recs, r)
		}
	}
	if in {
		rec := l.recOf(i)
		k, _ := slices.BinarySearchFunc(out.recs, rec, byReach)
		out.recs = slices.Insert(out.recs, k, rec)
	}
	return &out
}

// leastDot is the least dot product of v with a point of the cell: that of
// its farthest corner (along a parallel the distance grows with the
// difference of longitude, along a meridian it has no maximum inside).
func (c *cell) leastDot(v *[3]float64) float64 {
	least := math.Inf(1)
	for k := range c.corners {
		u := &c.corners[k]
		least = min(least, u[0]*v[0]+u[1]*v[1]+u[2]*v[2])
	}
	return least
}

// bound is the greatest dot product of a client with a point of the cell,
// given cosLng, the greatest cos(λ − λp) over the cell's longitudes, and
// the client's latitude as {cos, sin}: for a latitude φ the greatest is
// cosφ·cosφp·cosLng + sinφ·sinφp = A·cosφ + B·sinφ, a cosine of φ whose
// top is at φ* = atan2(B, A); over the cell's latitudes, that top when φ*
// lies between its edges, else the value at the nearer edge.
func (c *cell) bound(cosLng float64, lat [2]float64) float64 {
	a, b := lat[0]*cosLng, lat[1]
	s, n := &c.edges[0], &c.edges[1]
	switch {
	case b*s[0]-a*s[1] < 0: // φ* south of the cell
		return a*s[0] + b*s[1]
	case a*n[1]-b*n[0] < 0: // φ* north of it
		return a*n[0] + b*n[1]
	}
	return math.Sqrt(a*a + b*b)
}

// byAt orders the grid's cells: by row, then column.
func byAt(a, b geo.Cell) int {
	if c := cmp.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	return cmp.Compare(a.Col, b.Col)
}

// cellAt finds the grid's cell at (or its place).
func (l *listing) cellAt(at geo.Cell) (int, bool) {
	return slices.BinarySearchFunc(l.grid, at, func(c *cell, at geo.Cell) int { return byAt(c.at, at) })
}

// cellRef is a camello of a service's spatial list: its cell, its entry.
type cellRef struct {
	at  geo.Cell
	idx int32
}

// byCell orders a service's spatial list: by cell, then by entry.
func byCell(a, b cellRef) int {
	if c := byAt(a.at, b.at); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// indexSpatial makes the grid and the services' spatial lists of the
// entries of l.order.
func (l *listing) indexSpatial() {
	byAtMap := map[geo.Cell]*cell{}
	l.svcCells = make([][]cellRef, len(l.services))
	l.maxRadius = 0
	for _, i := range l.order {
		e := &l.recs[i]
		if e.flags&flagBase == 0 {
			continue
		}
		at := geo.CellOf(e.base)
		c := byAtMap[at]
		if c == nil {
			c = newCell(at)
			byAtMap[at] = c
		}
		c.recs = append(c.recs, l.recOf(i))
		l.maxRadius = max(l.maxRadius, e.radius)
		for _, s := range l.servicesOf(e) {
			l.svcCells[s] = append(l.svcCells[s], cellRef{at, i})
		}
	}
	l.grid = make([]*cell, 0, len(byAtMap))
	for _, c := range byAtMap {
		c.recs = slices.Clip(c.recs)
		slices.SortFunc(c.recs, byReach)
		l.grid = append(l.grid, c)
	}
	slices.SortFunc(l.grid, func(a, b *cell) int { return byAt(a.at, b.at) })
	for s, refs := range l.svcCells {
		l.svcCells[s] = slices.Clip(refs)
		slices.SortFunc(refs, byCell)
	}
}

// placeSpatial adds entry i to (in) or removes it from (!in) its cell and
// its services' spatial lists, each copied first (l.grid and l.svcCells
// are l's own).
func (l *listing) placeSpatial(i int32, in bool) {
	e := &l.recs[i]
	if e.flags&flagBase == 0 {
		return
	}
	at := geo.CellOf(e.base)
	switch k, found := l.cellAt(at); {
	case found:
		l.grid[k] = l.grid[k].with(l, i, in)
	case in:
		l.grid = slices.Insert(l.grid, k, newCell(at).with(l, i, true))
	}
	if in {
		l.maxRadius = max(l.maxRadius, e.radius)
	}
	ref := cellRef{at, i}
	for _, s := range l.servicesOf(e) {
		refs := l.svcCells[s]
		k, found := slices.BinarySearchFunc(refs, ref, byCell)
		switch {
		case in && !found:
			l.svcCells[s] = slices.Insert(slices.Clone(refs), k, ref)
		case !in && found:
			l.svcCells[s] = slices.Delete(slices.Clone(refs), k, k+1)
		}
	}
}

// describeSpatial adds the grid's cells and the services' spatial lists
// to a description of l (describe), and a line for every cell or list out
// of order or out of step with its entries.
func (l *listing) describeSpatial(add func(kind, key string, list []int32, sorted bool), lines *[]string) {
	bad := func(format string, args ...any) { *lines = append(*lines, fmt.Sprintf(format, args...)) }
	if !slices.IsSortedFunc(l.grid, func(a, b *cell) int { return byAt(a.at, b.at) }) {
		bad("grid: cells not by row and column")
	}
	for k, c := range l.grid {
		if k > 0 && l.grid[k-1].at == c.at {
			bad("grid: cell %v twice", c.at)
		}
		list := make([]int32, 0, len(c.recs))
		for _, rec := range c.recs {
			list = append(list, rec.idx)
			if rec != l.recOf(rec.idx) || geo.CellOf(l.recs[rec.idx].base) != c.at {
				bad("cell %v: entry %d stale or out of its cell", c.at, rec.idx)
			}
		}
		if !slices.IsSortedFunc(c.recs, byReach) {
			bad("cell %v: not by reach", c.at)
		}
		if fresh := newCell(c.at); fresh.corners != c.corners || fresh.edges != c.edges {
			bad("cell %v: corners or edges", c.at)
		}
		add("cell", fmt.Sprint(c.at), list, true)
	}
	for _, i := range l.order {
		if r := l.recs[i].radius; l.recs[i].flags&flagBase != 0 && r > l.maxRadius {
			bad("entry %d: radius %v past the grid's largest %v", i, r, l.maxRadius)
		}
	}
	for s, refs := range l.svcCells {
		if !slices.IsSortedFunc(refs, byCell) {
			bad("service cells %s: not by cell", l.services[s].ID)
		}
		byAt := map[geo.Cell][]int32{}
		for _, r := range refs {
			if geo.CellOf(l.recs[r.idx].base) != r.at {
				bad("service cells %s: entry %d out of its cell", l.services[s].ID, r.idx)
			}
			byAt[r.at] = append(byAt[r.at], r.idx)
		}
		for at, list := range byAt {
			add("service cell", fmt.Sprint(l.services[s].ID, at), list, true)
		}
	}
}

// unitVector is p on the unit sphere.
func unitVector(p geo.Point) [3]float64 {
	const rad = math.Pi / 180
	lat, lng := p.Lat*rad, p.Lng*rad
	return [3]float64{math.Cos(lat) * math.Cos(lng), math.Cos(lat) * math.Sin(lng), math.Sin(lat)}
}

// reachGuard is the band around a radius's threshold where the dot
// product's rounding could disagree with the haversine distance: there the
// distance itself decides (a distance off by 1e-12 in the dot product is
// about 0.05 mm at 10 km).
const reachGuard = 1e-12

// reaches reports whether a camello at unit vector u with threshold reach
// (entry e) reaches the client at v (unit vector of p): exactly
// geo.DistanceKm(p, e.base) <= e.radius, decided by one dot product but
// for the rare points on the edge.
func reaches(u, v *[3]float64, reach float64, p geo.Point, e *entry) bool {
	dot := u[0]*v[0] + u[1]*v[1] + u[2]*v[2]
	switch {
	case dot > reach+reachGuard:
		return true
	case dot < reach-reachGuard:
		return false
	}
	return geo.DistanceKm(p, e.base) <= e.radius
}

// nearby is a camello within reach of the client and its distance.
type nearby struct {
	idx int32
	km  float64
}

// candidate is a camello within reach that may be among the first k: its
// dot product with the client (the larger, the nearer) and its entry.
type candidate struct {
	dot float64
	idx int32
}

// candidates are the searches' scratch lists of candidates, used again.
var candidates = sync.Pool{New: func() any { return new([]candidate) }}

// visit is a cell a search by distance looks at, and the greatest dot
// product of the client with a point of it.
type visit struct {
	c     *cell
	bound float64
}

// near returns the first k camellos (every one when k < 0) matching f
// whose travel radius reaches p, nearest first (then in the listing's
// order), and how many there are in all. It walks the smallest of three
// candidate sets: a service's own spatial list (its camellos in the cells
// around p: a service asked), the grid cells around p (only those whose
// nearest point some camello of theirs reaches, nearest first), or the
// list a city or category filter narrows to. A candidate costs one dot
// product; only the few that can be among the first k have their distance
// computed; and once k are found, a cell that cannot hold one of them is
// only counted (count).
func (l *listing) near(f *filter, p geo.Point, k int) ([]nearby, int) {
	if l.maxRadius <= 0 {
		return nil, 0
	}
	scratch := candidates.Get().(*[]candidate)
	s := nearSearch{l: l, p: p, v: unitVector(p), k: k, worstDot: math.Inf(-1), cands: (*scratch)[:0]}
	defer func() {
		if cap(s.cands) <= 4096 { // not the list of a search of every camello
			*scratch = s.cands[:0]
			candidates.Put(scratch)
		}
	}()
	rows, cols := geo.CellsWithin(p, l.maxRadius)
	if refs, ok := l.serviceCells(f); ok {
		// The service's camellos in the cells around p, row by row.
		only := len(f.words) == 0 && len(f.trades) == 0 && f.city == "" && f.category == ""
		for r := rows[0]; r <= rows[1]; r++ {
			from, _ := slices.BinarySearchFunc(refs, cellRef{geo.Cell{Row: r, Col: cols[0]}, math.MinInt32}, byCell)
			for _, ref := range refs[from:] {
				if ref.at.Row != r || ref.at.Col > cols[1] {
					break
				}
				s.consider(f, ref.idx, only)
			}
		}
		return s.result()
	}
	plain := len(f.words) == 0 && len(f.trades) == 0 && f.city == "" && f.category == "" && f.service == ""
	var vbuf [64]visit
	cells, spatial := l.visits(&s, rows, cols, vbuf[:0])
	if !plain {
		if list, all, _ := l.candidates(f); !all && len(list) < spatial {
			for _, i := range list {
				s.consider(f, i, false)
			}
			return s.result()
		}
	}
	slices.SortFunc(cells, func(a, b visit) int { return cmp.Compare(b.bound, a.bound) })
	for _, cl := range cells {
		if plain && k >= 0 && cl.bound < s.worstDot-reachGuard {
			s.count(cl.c, cl.bound)
			continue
		}
		for j := range cl.c.recs {
			rc := &cl.c.recs[j]
			dot := rc.vec[0]*s.v[0] + rc.vec[1]*s.v[1] + rc.vec[2]*s.v[2]
			if dot < rc.reach-reachGuard {
				continue
			}
			if dot <= rc.reach+reachGuard && !reaches(&rc.vec, &s.v, rc.reach, p, &l.recs[rc.idx]) {
				continue
			}
			if !plain && !l.match(f, rc.idx) {
				continue
			}
			s.keep(rc.idx, dot)
		}
		if s.k > 0 && len(s.cands) >= 2*s.k {
			s.narrow()
		}
	}
	return s.result()
}

// visits appends to out the grid's cells in the rectangle of rows and
// columns whose nearest point to the client one of their camellos
// reaches, each with that point's dot product, and returns how many
// camellos they hold.
func (l *listing) visits(s *nearSearch, rows, cols [2]int32, out []visit) ([]visit, int) {
	const rad = math.Pi / 180
	lat := [2]float64{math.Cos(s.p.Lat * rad), math.Sin(s.p.Lat * rad)}
	// cos(λ − λp) at the nearest longitude of each column to the client
	var cbuf [64]float64
	cosLng := cbuf[:0]
	for c := cols[0]; c <= cols[1]; c++ {
		lng0 := float64(c) * geo.CellDeg
		d := max(lng0-s.p.Lng, s.p.Lng-(lng0+geo.CellDeg), 0)
		cosLng = append(cosLng, max(math.Cos(min(d, 180)*rad), 0))
	}
	spatial := 0
	for r := rows[0]; r <= rows[1]; r++ {
		from, _ := l.cellAt(geo.Cell{Row: r, Col: cols[0]})
		for _, c := range l.grid[from:] {
			if c.at.Row != r || c.at.Col > cols[1] {
				break
			}
			if len(c.recs) == 0 {
				continue
			}
			// a bound short of the least reach of the cell by more than
			// the rounding: no camello of it reaches any of its points
			if b := c.bound(cosLng[c.at.Col-cols[0]], lat); b >= c.recs[0].reach-2*reachGuard {
				out = append(out, visit{c, b})
				spatial += len(c.recs)
			}
		}
	}
	return out, spatial
}

// serviceCells is the spatial list of the one service f asks for (by id
// or by slug), when it names exactly one.
func (l *listing) serviceCells(f *filter) ([]cellRef, bool) {
	if f.service == "" {
		return nil, false
	}
	s, byID := l.serviceIdx[f.service]
	t, bySlug := l.slugs[f.service]
	switch {
	case byID && bySlug && s != t:
		return nil, false
	case bySlug:
		s = t
	case !byID:
		return nil, true // no such service: no camello
	}
	return l.svcCells[s], true
}

// count counts the camellos of a cell that reach the client (bound: the
// greatest dot product of the client with a point of the cell): by its
// a binary search those whose reach is short of its farthest corner's dot
// product (they reach all of it), then one by one the band after them, up
// to the first whose reach is past the bound (neither it nor any after
// reaches any point of the cell).
func (s *nearSearch) count(c *cell, bound float64) {
	recs := c.recs
	// By twice the guard: a reach short of the farthest corner's reaches
	// every point by the dot product alone, one past the bound none.
	least, past := c.leastDot(&s.v)-2*reachGuard, bound+2*reachGuard
	all := c.firstReach(least)
	s.total += all
	for j := all; j < len(recs) && recs[j].reach <= past; j++ {
		rc := &recs[j]
		dot := rc.vec[0]*s.v[0] + rc.vec[1]*s.v[1] + rc.vec[2]*s.v[2]
		if dot > rc.reach+reachGuard || (dot >= rc.reach-reachGuard && reaches(&rc.vec, &s.v, rc.reach, s.p, &s.l.recs[rc.idx])) {
			s.total++
		}
	}
}

// nearSearch is one search by distance under way: the camellos in reach
// counted, those that may be among the first k kept by their dot product
// alone (no distance computed yet).
type nearSearch struct {
	l     *listing
	p     geo.Point
	v     [3]float64
	k     int
	cands []candidate
	total int
	// once k are found: the least dot product of a camello that can still
	// be among them (the k-th largest, less the rounding's margin)
	worstDot float64
}

// consider keeps entry i when it has a base point that reaches the client
// and matches f (the entries of a list: not yet known to be in reach).
func (s *nearSearch) consider(f *filter, i int32, matched bool) {
	e := &s.l.recs[i]
	if e.flags&flagBase == 0 || !reaches(&e.vec, &s.v, e.reach, s.p, e) || (!matched && !s.l.match(f, i)) {
		return
	}
	s.keep(i, e.vec[0]*s.v[0]+e.vec[1]*s.v[1]+e.vec[2]*s.v[2])
}

// keep counts camello i (in reach, matching) and keeps it while it may be
// among the first k.
func (s *nearSearch) keep(i int32, dot float64) {
	s.total++
	if s.k != 0 && dot >= s.worstDot {
		s.cands = append(s.cands, candidate{dot, i})
		if s.k > 0 && len(s.cands) >= max(4*s.k, 64) {
			s.narrow()
		}
	}
}

// narrow drops the candidates that can no longer be among the first k: a
// dot product short of the k-th largest by more than the rounding is a
// camello farther than k others.
func (s *nearSearch) narrow() {
	if s.k <= 0 || len(s.cands) <= s.k {
		return
	}
	kth := kthLargest(s.cands, s.k)
	s.worstDot = kth - reachGuard
	kept := s.cands[:s.k]
	for _, c := range s.cands[s.k:] {
		if c.dot >= s.worstDot {
			kept = append(kept, c)
		}
	}
	s.cands = kept
}

// kthLargest reorders cs so that its first k have the k largest dot
// products, and returns the k-th largest (k ≥ 1; quickselect).
func kthLargest(cs []candidate, k int) float64 {
	lo, hi, want := 0, len(cs)-1, k-1
	for lo < hi {
		pivot := cs[(lo+hi)/2].dot
		i, j := lo, hi
		for i <= j {
			for cs[i].dot > pivot {
				i++
			}
			for cs[j].dot < pivot {
				j--
			}
			if i <= j {
				cs[i], cs[j] = cs[j], cs[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return cs[want].dot
		}
	}
	return cs[want].dot
}

// result is the first k camellos kept, in order, with their distances,
// and the total.
func (s *nearSearch) result() ([]nearby, int) {
	s.narrow()
	// The entries' base points first, all at once (each is a cache miss
	// of its own at 100,000 camellos; loaded side by side, not one after
	// the other's distance).
	var sum float64
	for _, c := range s.cands {
		sum += s.l.recs[c.idx].base.Lat
	}
	touched.Add(uint32(sum))
	out := make([]nearby, 0, len(s.cands))
	for _, c := range s.cands {
		out = append(out, nearby{c.idx, geo.DistanceKm(s.p, s.l.recs[c.idx].base)})
	}
	slices.SortFunc(out, func(a, b nearby) int {
		if c := cmp.Compare(a.km, b.km); c != 0 {
			return c
		}
		return s.l.compare(a.idx, b.idx)
	})
	if s.k >= 0 && len(out) > s.k {
		out = out[:s.k]
	}
	return out, s.total
}
