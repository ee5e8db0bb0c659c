package camellos

import (
	"cmp"
	"math"
	"slices"

	"camellos/internal/geo"
)

// reachRec is a camello of a grid cell as a search by distance reads it:
// packed side by side, so a search walks the cells around the client as
// plain arrays of numbers, never touching the entries it does not keep.
type reachRec struct {
	vec    [3]float64 // the base point as a unit vector
	reach  float64    // entry.reach
	radius float64
	base   geo.Point
	idx    int32
}

// recOf is entry i's reachRec.
func (l *listing) recOf(i int32) reachRec {
	e := &l.recs[i]
	return reachRec{vec: e.vec, reach: e.reach, radius: e.radius, base: e.base, idx: i}
}

// byRadius orders a cell's camellos: the largest radius first.
func byRadius(a, b reachRec) int {
	if c := cmp.Compare(b.radius, a.radius); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// cell is one cell of the spatial grid: its camellos, the largest travel
// radius first (a search that only counts stops at the first radius
// shorter than the cell's nearest point, and counts without a look every
// radius longer than its farthest one), and the largest radius (a search
// skips a cell farther from the client than it).
type cell struct {
	recs      []reachRec
	maxRadius float64
}

// with is a copy of c with entry i.
func (c cell) with(l *listing, i int32) cell {
	rec := l.recOf(i)
	k, _ := slices.BinarySearchFunc(c.recs, rec, byRadius)
	out := cell{recs: make([]reachRec, 0, len(c.recs)+1), maxRadius: max(c.maxRadius, rec.radius)}
	out.recs = append(append(append(out.recs, c.recs[:k]...), rec), c.recs[k:]...)
	return out
}

// without is a copy of c without entry i.
func (c cell) without(l *listing, i int32) cell {
	out := cell{recs: make([]reachRec, 0, len(c.recs))}
	for _, r := range c.recs {
		if r.idx != i {
			out.recs = append(out.recs, r)
			out.maxRadius = max(out.maxRadius, l.recs[r.idx].radius)
		}
	}
	return out
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
// (and base point, radius) reaches the client at v (unit vector of p):
// exactly geo.DistanceKm(p, base) <= radius, decided by one dot product
// but for the rare points on the edge.
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
	dot  float64
	base geo.Point
	idx  int32
}

// near returns the first k camellos (every one when k < 0) matching f
// whose travel radius reaches p, nearest first (then in the listing's
// order), and how many there are in all. It walks the smaller of two
// candidate sets: the grid cells around p (only those within their own
// largest radius of p, nearest first), or the list a city, service or
// category filter narrows to. A candidate costs one dot product; only the
// few that can be among the first k have their distance computed; and
// once k are found, a cell farther than the k-th is only counted, by
// radius: the camellos whose radius passes the cell's farthest point
// without a look, those short of its nearest point not at all.
func (l *listing) near(f *filter, p geo.Point, k int) ([]nearby, int) {
	if l.maxRadius <= 0 {
		return nil, 0
	}
	s := nearSearch{l: l, p: p, v: unitVector(p), k: k, worstDot: math.Inf(-1), worstKm: math.Inf(1)}
	plain := len(f.words) == 0 && len(f.trades) == 0 && f.city == "" && f.category == "" && f.service == ""
	type visit struct {
		at geo.Cell
		cell
		km float64
	}
	var cells []visit
	spatial := 0
	rows, cols := geo.CellsWithin(p, l.maxRadius)
	for r := rows[0]; r <= rows[1]; r++ {
		for c := cols[0]; c <= cols[1]; c++ {
			at := geo.Cell{Row: r, Col: c}
			cl, ok := l.grid[at]
			if !ok || len(cl.recs) == 0 {
				continue
			}
			if km := geo.NearestKm(p, at); km <= cl.maxRadius {
				cells = append(cells, visit{at, cl, km})
				spatial += len(cl.recs)
			}
		}
	}
	list, all, _ := l.candidates(f)
	if !all && len(list) < spatial {
		for _, i := range list {
			e := &l.recs[i]
			if e.flags&flagBase == 0 || !reaches(&e.vec, &s.v, e.reach, p, e) || !l.match(f, i) {
				continue
			}
			s.keep(i, e.base, e.vec[0]*s.v[0]+e.vec[1]*s.v[1]+e.vec[2]*s.v[2])
		}
		return s.result()
	}
	slices.SortFunc(cells, func(a, b visit) int { return cmp.Compare(a.km, b.km) })
	for _, cl := range cells {
		recs := cl.recs
		if plain && k >= 0 && cl.km > s.worstKm+1e-9 {
			// Only counted: a radius short of the cell's nearest point
			// reaches none of it, one past its farthest point all of it.
			near := cl.km - 1e-9
			end := 0
			for end < len(recs) && recs[end].radius > near {
				end++
			}
			recs = recs[:end]
			if len(recs) > 16 {
				far := geo.FarthestKm(p, cl.at) + 1e-9
				n := 0
				for n < len(recs) && recs[n].radius > far {
					n++
				}
				s.total += n
				recs = recs[n:]
			}
			for j := range recs {
				rc := &recs[j]
				dot := rc.vec[0]*s.v[0] + rc.vec[1]*s.v[1] + rc.vec[2]*s.v[2]
				if dot > rc.reach+reachGuard || (dot >= rc.reach-reachGuard && reaches(&rc.vec, &s.v, rc.reach, p, &l.recs[rc.idx])) {
					s.total++
				}
			}
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
			s.keep(rc.idx, rc.base, dot)
		}
		s.narrow()
	}
	return s.result()
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

// keep counts camello i (in reach, matching) and keeps it while it may be
// among the first k.
func (s *nearSearch) keep(i int32, base geo.Point, dot float64) {
	s.total++
	if s.k != 0 && dot >= s.worstDot {
		s.cands = append(s.cands, candidate{dot, base, i})
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
				s.worstKm = geo.DistanceKm(s.p, c.base)
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
		out = append(out, nearby{c.idx, geo.DistanceKm(s.p, c.base)})
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
