package camellos

import (
	"container/heap"
	"math"
	"slices"

	"camellos/internal/geo"
)

// reachRec is a camello of a grid cell as a search by distance reads it:
// packed side by side, so a search walks the cells around the client as
// plain arrays of numbers, never touching the entries it does not keep.
type reachRec struct {
	vec   [3]float64 // the base point as a unit vector
	reach float64    // entry.reach
	idx   int32
}

// cell is one cell of the spatial grid: its camellos (in no order) and
// the largest travel radius among them (a search skips a cell farther
// from the client than it).
type cell struct {
	recs      []reachRec
	maxRadius float64
}

// with is a copy of c with entry i.
func (c cell) with(l *listing, i int32) cell {
	e := &l.recs[i]
	out := cell{recs: make([]reachRec, 0, len(c.recs)+1), maxRadius: max(c.maxRadius, e.radius)}
	out.recs = append(append(out.recs, c.recs...), reachRec{vec: e.vec, reach: e.reach, idx: i})
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

// nearest keeps the first k camellos found, by distance then in the
// listing's order: a heap whose root is the last of them.
type nearest struct {
	l    *listing
	list []nearby
}

func (h *nearest) less(a, b nearby) bool {
	if a.km != b.km {
		return a.km < b.km
	}
	return h.l.compare(a.idx, b.idx) < 0
}
func (h *nearest) Len() int           { return len(h.list) }
func (h *nearest) Less(i, j int) bool { return h.less(h.list[j], h.list[i]) } // the last first
func (h *nearest) Swap(i, j int)      { h.list[i], h.list[j] = h.list[j], h.list[i] }
func (h *nearest) Push(x any)         { h.list = append(h.list, x.(nearby)) }
func (h *nearest) Pop() any {
	x := h.list[len(h.list)-1]
	h.list = h.list[:len(h.list)-1]
	return x
}

// near returns the first k camellos (every one when k < 0) matching f
// whose travel radius reaches p, nearest first (then in the listing's
// order), and how many there are in all. It walks the smaller of two
// candidate sets: the grid cells around p (only those within their own
// largest radius of p), or the list a city, service or category filter
// narrows to; a candidate costs one dot product, and only a candidate that
// can enter the first k has its distance computed.
func (l *listing) near(f *filter, p geo.Point, k int) ([]nearby, int) {
	if l.maxRadius <= 0 {
		return nil, 0
	}
	v := unitVector(p)
	h := &nearest{l: l}
	// the least dot product of a camello that can still enter, once k are
	// kept: the last kept's distance, less the rounding's margin
	worstDot := math.Inf(-1)
	total := 0
	plain := len(f.words) == 0 && len(f.trades) == 0 && f.city == "" && f.category == "" && f.service == ""
	keep := func(i int32, dot float64) {
		total++
		if k == 0 {
			return
		}
		// a camello farther than the last kept (by a margin wider than the
		// rounding) cannot enter: no distance to compute
		if dot < worstDot {
			return
		}
		n := nearby{i, geo.DistanceKm(p, l.recs[i].base)}
		if k < 0 {
			h.list = append(h.list, n)
			return
		}
		if len(h.list) < k {
			heap.Push(h, n)
		} else if h.less(n, h.list[0]) {
			h.list[0] = n
			heap.Fix(h, 0)
		} else {
			return
		}
		if len(h.list) == k {
			worstDot = math.Cos(math.Min(math.Pi, h.list[0].km/geo.EarthRadiusKm)) - reachGuard
		}
	}
	// The cells within reach.
	var cells []cell
	spatial := 0
	rows, cols := geo.CellsWithin(p, l.maxRadius)
	for r := rows[0]; r <= rows[1]; r++ {
		for c := cols[0]; c <= cols[1]; c++ {
			at := geo.Cell{Row: r, Col: c}
			cl, ok := l.grid[at]
			if !ok || len(cl.recs) == 0 || geo.NearestKm(p, at) > cl.maxRadius {
				continue
			}
			cells = append(cells, cl)
			spatial += len(cl.recs)
		}
	}
	list, all, _ := l.candidates(f)
	if !all && len(list) < spatial {
		for _, i := range list {
			e := &l.recs[i]
			if e.flags&flagBase == 0 || !reaches(&e.vec, &v, e.reach, p, e) || !l.match(f, i) {
				continue
			}
			keep(i, e.vec[0]*v[0]+e.vec[1]*v[1]+e.vec[2]*v[2])
		}
	} else {
		for _, cl := range cells {
			for j := range cl.recs {
				rc := &cl.recs[j]
				dot := rc.vec[0]*v[0] + rc.vec[1]*v[1] + rc.vec[2]*v[2]
				if dot < rc.reach-reachGuard {
					continue
				}
				if dot <= rc.reach+reachGuard && !reaches(&rc.vec, &v, rc.reach, p, &l.recs[rc.idx]) {
					continue
				}
				if !plain && !l.match(f, rc.idx) {
					continue
				}
				keep(rc.idx, dot)
			}
		}
	}
	out := h.list
	slices.SortFunc(out, func(a, b nearby) int {
		switch {
		case h.less(a, b):
			return -1
		case h.less(b, a):
			return 1
		}
		return 0
	})
	return out, total
}
