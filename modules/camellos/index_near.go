package camellos

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"camellos/internal/geo"
)

// reachRec is a camello of a grid cell as a search by distance reads it:
// packed side by side (48 bytes), so a search walks the cells around the
// client as plain arrays of numbers, never touching the entries it does
// not keep.
type reachRec struct {
	vec    [3]float64 // the base point as a unit vector
	reach  float64    // entry.reach
	radius float64
	idx    int32
}

// recOf is entry i's reachRec.
func (l *listing) recOf(i int32) reachRec {
	e := &l.recs[i]
	return reachRec{vec: e.vec, reach: e.reach, radius: e.radius, idx: i}
}

// byRadius orders a cell's camellos: the largest radius (the least reach)
// first.
func byRadius(a, b reachRec) int {
	if c := cmp.Compare(b.radius, a.radius); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// cell is one cell of the spatial grid: its camellos, the largest travel
// radius first (a search that only counts finds by two binary searches
// those that reach the whole cell, counted without a look, and those
// short of its nearest point, never looked at: only the band between is
// tested one by one), the largest radius (a search skips a cell farther
// from the client than it), and its corners as unit vectors (the least
// dot product of a client with a point of the cell is at a corner).
type cell struct {
	recs      []reachRec
	maxRadius float64
	corners   [4][3]float64
}

// newCell is an empty cell at at.
func newCell(at geo.Cell) *cell {
	lat0, lng0 := float64(at.Row)*geo.CellDeg, float64(at.Col)*geo.CellDeg
	c := &cell{}
	for k, q := range [4]geo.Point{{Lat: lat0, Lng: lng0}, {Lat: lat0 + geo.CellDeg, Lng: lng0},
		{Lat: lat0, Lng: lng0 + geo.CellDeg}, {Lat: lat0 + geo.CellDeg, Lng: lng0 + geo.CellDeg}} {
		c.corners[k] = unitVector(q)
	}
	return c
}

// with is a copy of c with entry i.
func (c *cell) with(l *listing, i int32) *cell {
	rec := l.recOf(i)
	k, _ := slices.BinarySearchFunc(c.recs, rec, byRadius)
	out := *c
	out.recs = make([]reachRec, 0, len(c.recs)+1)
	out.recs = append(append(append(out.recs, c.recs[:k]...), rec), c.recs[k:]...)
	out.maxRadius = max(c.maxRadius, rec.radius)
	return &out
}

// without is a copy of c without entry i.
func (c *cell) without(i int32) *cell {
	out := *c
	out.recs, out.maxRadius = make([]reachRec, 0, len(c.recs)), 0
	for _, r := range c.recs {
		if r.idx != i {
			out.recs = append(out.recs, r)
			out.maxRadius = max(out.maxRadius, r.radius)
		}
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

// cellRef is a camello of a service's spatial list: its cell, its entry.
type cellRef struct {
	at  geo.Cell
	idx int32
}

// byCell orders a service's spatial list: by cell (row, then column),
// then by entry.
func byCell(a, b cellRef) int {
	if c := cmp.Compare(a.at.Row, b.at.Row); c != 0 {
		return c
	}
	if c := cmp.Compare(a.at.Col, b.at.Col); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// indexSpatial makes the grid and the services' spatial lists of the
// entries of l.order.
func (l *listing) indexSpatial() {
	l.grid = map[geo.Cell]*cell{}
	l.svcCells = make([][]cellRef, len(l.services))
	l.maxRadius = 0
	for _, i := range l.order {
		e := &l.recs[i]
		if e.flags&flagBase == 0 {
			continue
		}
		at := geo.CellOf(e.base)
		c := l.grid[at]
		if c == nil {
			c = newCell(at)
			l.grid[at] = c
		}
		c.recs = append(c.recs, l.recOf(i))
		c.maxRadius = max(c.maxRadius, e.radius)
		l.maxRadius = max(l.maxRadius, e.radius)
		for _, s := range l.servicesOf(e) {
			l.svcCells[s] = append(l.svcCells[s], cellRef{at, i})
		}
	}
	for _, c := range l.grid {
		c.recs = slices.Clip(c.recs)
		slices.SortFunc(c.recs, byRadius)
	}
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
	c := l.grid[at]
	switch {
	case in && c == nil:
		l.grid[at] = newCell(at).with(l, i)
	case in:
		l.grid[at] = c.with(l, i)
	case c != nil:
		l.grid[at] = c.without(i)
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
			out := make([]cellRef, 0, len(refs)+1)
			l.svcCells[s] = append(append(append(out, refs[:k]...), ref), refs[k:]...)
		case !in && found:
			out := make([]cellRef, 0, len(refs)-1)
			l.svcCells[s] = append(append(out, refs[:k]...), refs[k+1:]...)
		}
	}
}

// describeSpatial adds the grid's cells and the services' spatial lists
// to a description of l (describe), and a line for every cell or list out
// of order.
func (l *listing) describeSpatial(add func(kind, key string, list []int32, sorted bool), lines *[]string) {
	for k, c := range l.grid {
		list := make([]int32, 0, len(c.recs))
		r := 0.0
		for _, rec := range c.recs {
			list = append(list, rec.idx)
			r = max(r, l.recs[rec.idx].radius)
			if rec != l.recOf(rec.idx) {
				*lines = append(*lines, fmt.Sprintf("cell %v: entry %d stale", k, rec.idx))
			}
		}
		if len(list) > 0 && r != c.maxRadius {
			*lines = append(*lines, fmt.Sprintf("cell %v: largest radius %v, its entries' %v", k, c.maxRadius, r))
		}
		if !slices.IsSortedFunc(c.recs, byRadius) {
			*lines = append(*lines, fmt.Sprintf("cell %v: not by radius", k))
		}
		if newCell(k).corners != c.corners {
			*lines = append(*lines, fmt.Sprintf("cell %v: corners", k))
		}
		add("cell", fmt.Sprint(k), list, true)
	}
	for s, refs := range l.svcCells {
		if !slices.IsSortedFunc(refs, byCell) {
			*lines = append(*lines, fmt.Sprintf("service cells %s: not by cell", l.services[s].ID))
		}
		byAt := map[geo.Cell][]int32{}
		for _, r := range refs {
			if geo.CellOf(l.recs[r.idx].base) != r.at {
				*lines = append(*lines, fmt.Sprintf("service cells %s: entry %d out of its cell", l.services[s].ID, r.idx))
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

// near returns the first k camellos (every one when k < 0) matching f
// whose travel radius reaches p, nearest first (then in the listing's
// order), and how many there are in all. It walks the smallest of three
// candidate sets: a service's own spatial list (its camellos in the cells
// around p: a service asked), the grid cells around p (only those within
// their own largest radius of p, nearest first), or the list a city or
// category filter narrows to. A candidate costs one dot product; only the
// few that can be among the first k have their distance computed; and
// once k are found, a cell farther than the k-th is only counted, by
// radius: the camellos whose radius passes the cell's farthest corner
// without a look, those short of its nearest point not at all (two binary
// searches), only the band between one by one.
func (l *listing) near(f *filter, p geo.Point, k int) ([]nearby, int) {
	if l.maxRadius <= 0 {
		return nil, 0
	}
	s := nearSearch{l: l, p: p, v: unitVector(p), k: k, worstDot: math.Inf(-1), worstKm: math.Inf(1)}
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
	type visit struct {
		c  *cell
		km float64
	}
	var buf [64]visit
	cells := buf[:0]
	spatial := 0
	for r := rows[0]; r <= rows[1]; r++ {
		for c := cols[0]; c <= cols[1]; c++ {
			cl := l.grid[geo.Cell{Row: r, Col: c}]
			if cl == nil || len(cl.recs) == 0 {
				continue
			}
			if km := geo.NearestKm(p, geo.Cell{Row: r, Col: c}); km <= cl.maxRadius {
				cells = append(cells, visit{cl, km})
				spatial += len(cl.recs)
			}
		}
	}
	if !plain {
		if list, all, _ := l.candidates(f); !all && len(list) < spatial {
			for _, i := range list {
				s.consider(f, i, false)
			}
			return s.result()
		}
	}
	slices.SortFunc(cells, func(a, b visit) int { return cmp.Compare(a.km, b.km) })
	for _, cl := range cells {
		recs := cl.c.recs
		if plain && k >= 0 && cl.km > s.worstKm+1e-9 {
			s.count(cl.c, cl.km)
			continue
		}
		for j := range recs {
			rc := &recs[j]
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
		s.narrow()
	}
	return s.result()
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

// count counts the camellos of a cell (km from the client at its nearest
// point) that reach the client: by two binary searches those whose radius
// passes its farthest corner, and those short of its nearest point, and
// one by one the band between.
func (s *nearSearch) count(c *cell, km float64) {
	recs := c.recs
	near := km - 1e-9
	end := sort.Search(len(recs), func(j int) bool { return recs[j].radius <= near })
	// Every point of the cell has a dot product with the client of at
	// least leastDot (less its rounding): a reach short of it by twice
	// the guard reaches each of them by the dot product alone.
	least := c.leastDot(&s.v) - 2*reachGuard
	all := sort.Search(end, func(j int) bool { return recs[j].reach >= least })
	s.total += all
	for j := all; j < end; j++ {
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
	// be among them (the k-th largest, less the rounding's margin), and
	// the distance of that k-th camello
	worstDot, worstKm float64
}

// consider keeps entry i when it has a base point that reaches the client
// and matches f (the entries of a list: not yet known to be in reach).
func (s *nearSearch) consider(f *filter, i int32, matched bool) {
	e := &s.l.recs[i]
	if e.flags&flagBase == 0 || !reaches(&e.vec, &s.v, e.reach, s.p, e) || (!matched && !s.l.match(f, i)) {
		return
	}
	s.keep(i, e.vec[0]*s.v[0]+e.vec[1]*s.v[1]+e.vec[2]*s.v[2])
	if len(s.cands) >= 4*max(s.k, 16) {
		s.narrow()
	}
}

// keep counts camello i (in reach, matching) and keeps it while it may be
// among the first k.
func (s *nearSearch) keep(i int32, dot float64) {
	s.total++
	if s.k != 0 && dot >= s.worstDot {
		s.cands = append(s.cands, candidate{dot, i})
	}
}

// narrow drops the candidates that can no longer be among the first k: a
// dot product short of the k-th largest by more than the rounding is a
// camello farther than k others.
func (s *nearSearch) narrow() {
	if s.k <= 0 || len(s.cands) < 2*s.k {
		return
	}
	dots := make([]float64, len(s.cands))
	for j, c := range s.cands {
		dots[j] = c.dot
	}
	kth := nthLargest(dots, s.k)
	s.worstDot = kth - reachGuard
	kept := s.cands[:0]
	for _, c := range s.cands {
		if c.dot >= s.worstDot {
			kept = append(kept, c)
			if c.dot == kth {
				s.worstKm = geo.DistanceKm(s.p, s.l.recs[c.idx].base)
			}
		}
	}
	s.cands = kept
}

// nthLargest is the n-th largest of xs (1-based; xs is reordered).
func nthLargest(xs []float64, n int) float64 {
	lo, hi, want := 0, len(xs)-1, n-1
	for lo < hi {
		pivot := xs[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] > pivot {
				i++
			}
			for xs[j] < pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
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
			return xs[want]
		}
	}
	return xs[want]
}

// result is the first k camellos kept, in order, with their distances,
// and the total.
func (s *nearSearch) result() ([]nearby, int) {
	s.narrow()
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
