package camellos

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"camellos/internal/geo"
)

// denseRows are n camellos packed into two cities' few cells (hundreds a
// cell: the counting by radius bands and corners is what answers), with
// fractional and whole radii, shared points, camellos without a point,
// and 1–3 of 12 services each.
func denseRows(n int, rng *rand.Rand, services []*serviceRef) []camelloRow {
	rows := make([]camelloRow, n)
	for i := range rows {
		var svc []string
		for k := 0; k <= i%3; k++ {
			svc = append(svc, `"`+services[rng.Intn(len(services))].ID+`"`)
		}
		radius := float64(1 + rng.Intn(25))
		if i%3 == 0 {
			radius = 0.5 + rng.Float64()*20
		}
		lat, lng := 4.6+(rng.Float64()-0.5)*0.15, -74.1+(rng.Float64()-0.5)*0.15
		if i%2 == 1 {
			lat, lng = 6.25+(rng.Float64()-0.5)*0.1, -75.56+(rng.Float64()-0.5)*0.1
		}
		if i%17 == 5 && i > 0 { // on the point of the one before
			lat, lng = rows[i-1].BaseLat, rows[i-1].BaseLng
		}
		rows[i] = camelloRow{ID: fmt.Sprintf("cam%012d", i), Name: fmt.Sprintf("Camello %d", i),
			Trades: `["pintura"]`, Status: StatusActive, Services: "[" + joinComma(svc) + "]",
			Created: fmt.Sprintf("2026-11-%02d 10:00:00.000Z", 1+i%9), Updated: "2026-11-27 10:00:00.000Z", City: "Ciudad",
			CityKey: fmt.Sprint("ciudad ", i%2), RatingAvg: float64(rng.Intn(6)), Premium: i%11 == 0, SearchText: "camello",
			HasBase: i%23 != 7, BaseLat: lat, BaseLng: lng, RadiusKm: radius}
	}
	return rows
}

func joinComma(s []string) string {
	out := ""
	for k, v := range s {
		if k > 0 {
			out += ","
		}
		out += v
	}
	return out
}

// fullScan is what near must answer: every listed camello matching f whose
// radius reaches p (haversine), nearest first, then in the listing's order.
func fullScan(l *listing, f *filter, p geo.Point) []nearby {
	var out []nearby
	for _, i := range l.order {
		e := &l.recs[i]
		if e.flags&flagBase == 0 || !l.match(f, i) {
			continue
		}
		if km := geo.DistanceKm(p, e.base); km <= e.radius {
			out = append(out, nearby{i, km})
		}
	}
	slices.SortFunc(out, func(a, b nearby) int {
		if c := cmp.Compare(a.km, b.km); c != 0 {
			return c
		}
		return l.compare(a.idx, b.idx)
	})
	return out
}

// The search by distance over dense cells (its counting path: binary
// searches by radius, the farthest corner, the band one by one; a
// service's own spatial list) answers what a full scan does, page and
// total, for clients inside the cells, on their edges and corners, on a
// camello's own point and far away; before and after patches that move,
// add and remove camellos; and a patched listing describes itself as a
// full build does.
func TestNearOverDenseCellsMatchesAFullScan(t *testing.T) {
	var services []*serviceRef
	for i := 0; i < 12; i++ {
		s := &serviceRef{ServiceSummary: ServiceSummary{ID: fmt.Sprintf("svc%012d", i), Name: fmt.Sprint("Servicio ", i), Slug: fmt.Sprint("servicio-", i)},
			category: fmt.Sprint("cat", i%3)}
		s.json = []byte(`{}`)
		services = append(services, s)
	}
	// one service's slug is another's id: a filter naming both
	services[11].Slug = services[0].ID
	rng := rand.New(rand.NewSource(27))
	rows := denseRows(6000, rng, services)
	build := func(rows []camelloRow) *listing {
		l := newListing(services, len(rows))
		for i := range rows {
			if _, err := l.addRow(&rows[i]); err != nil {
				t.Fatal(err)
			}
		}
		l.finish()
		return l
	}
	l := build(rows)
	points := func() []geo.Point {
		var out []geo.Point
		for q := 0; q < 60; q++ {
			p := geo.Point{Lat: 4.6 + (rng.Float64()-0.5)*0.3, Lng: -74.1 + (rng.Float64()-0.5)*0.3}
			if q%2 == 1 {
				p = geo.Point{Lat: 6.25 + (rng.Float64()-0.5)*0.2, Lng: -75.56 + (rng.Float64()-0.5)*0.2}
			}
			switch q % 6 {
			case 2: // on a cell's corner
				p.Lat, p.Lng = float64(int(p.Lat/geo.CellDeg))*geo.CellDeg, float64(int(p.Lng/geo.CellDeg))*geo.CellDeg
			case 3: // on a cell's edge
				p.Lat = float64(int(p.Lat/geo.CellDeg)) * geo.CellDeg
			case 4: // on a camello's point
				r := rows[rng.Intn(len(rows))]
				p = geo.Point{Lat: r.BaseLat, Lng: r.BaseLng}
			}
			out = append(out, p)
		}
		return append(out, geo.Point{Lat: 10.4, Lng: -75.5}) // none near
	}
	check := func(round string, l *listing) {
		t.Helper()
		for q, p := range points() {
			filters := []*filter{{}, {service: services[q%12].ID}, {service: services[q%12].Slug}, {service: "ninguno"},
				{category: "cat1"}, {city: "ciudad 1", cityPrefix: "ciudad 1 "}, {service: services[q%12].ID, city: "ciudad 0", cityPrefix: "ciudad 0 "}}
			for fi, f := range filters {
				want := fullScan(l, f, p)
				for _, k := range []int{-1, 0, 1, 7, 20, 60} {
					got, total := l.near(f, p, k)
					exp := want
					if k >= 0 && len(exp) > k {
						exp = exp[:k]
					}
					if total != len(want) || fmt.Sprint(got) != fmt.Sprint(exp) {
						t.Fatalf("%s: point %v filter %d k %d: total %d, want %d\ngot  %v\nwant %v", round, p, fi, k, total, len(want), got, exp)
					}
				}
			}
		}
	}
	check("built", l)
	// Patches: moves (new points and radii), camellos leaving and coming
	// back, new services.
	for round := 0; round < 30; round++ {
		var ids []string
		var changed []camelloRow
		for j := 0; j < 1+round%4; j++ {
			k := rng.Intn(len(rows))
			r := rows[k]
			r.BaseLat, r.BaseLng = r.BaseLat+(rng.Float64()-0.5)*0.05, r.BaseLng+(rng.Float64()-0.5)*0.05
			r.RadiusKm = float64(1 + rng.Intn(30))
			r.Services = `["` + services[rng.Intn(12)].ID + `"]`
			r.HasBase = round%5 != 3
			rows[k] = r
			ids = append(ids, r.ID)
			if round%7 != 6 { // else: no longer ACTIVO
				changed = append(changed, r)
			}
		}
		if round%6 == 2 && len(changed) > 0 { // an id read twice
			ids, changed = append(ids, changed[0].ID), append(changed, changed[0])
		}
		n, err := l.withRows(ids, changed)
		if err != nil {
			t.Fatal(err)
		}
		l = n
	}
	var listed []camelloRow
	for _, i := range l.order {
		id := l.str(l.recs[i].id)
		k := slices.IndexFunc(rows, func(r camelloRow) bool { return r.ID == id })
		listed = append(listed, rows[k])
	}
	full := build(listed)
	if a, b := l.describe(), full.describe(); a != b {
		t.Fatalf("the patched listing differs from a full build")
	}
	for k := range l.order {
		if a, b := l.str(l.recs[l.order[k]].id), full.str(full.recs[full.order[k]].id); a != b {
			t.Fatalf("place %d of the order: %s, a full build has %s", k, a, b)
		}
		if _, ok := l.find(l.str(l.recs[l.order[k]].id)); !ok {
			t.Fatalf("place %d: not found by its id", k)
		}
	}
	check("patched", l)
}

// A cell's bounds hold for every point of it: no point has a dot product
// with the client above bound (its nearest point) or below leastDot (its
// farthest corner), for clients inside, beside and far from the cell, on
// its edges and corners, north and south of the equator; and bound is
// tight (a point of the cell comes within 1e-9 of it).
func TestCellBoundsHoldForEveryPoint(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	const rad = math.Pi / 180
	for round := 0; round < 400; round++ {
		p := geo.Point{Lat: (rng.Float64() - 0.5) * 150, Lng: (rng.Float64() - 0.5) * 340}
		if round%5 == 1 { // on a cell's corner
			p.Lat, p.Lng = float64(int(p.Lat/geo.CellDeg))*geo.CellDeg, float64(int(p.Lng/geo.CellDeg))*geo.CellDeg
		}
		v := unitVector(p)
		l := &listing{}
		rows, cols := geo.CellsWithin(p, float64(1+rng.Intn(100)))
		for _, at := range []geo.Cell{geo.CellOf(p), {Row: rows[0], Col: cols[0]}, {Row: rows[1], Col: cols[1]},
			{Row: rows[0] + int32(rng.Intn(int(rows[1]-rows[0]+1))), Col: cols[0] + int32(rng.Intn(int(cols[1]-cols[0]+1)))}} {
			c := newCell(at)
			c.recs = []reachRec{{}}
			l.grid = []*cell{c}
			s := &nearSearch{l: l, p: p, v: v}
			got, _ := l.visits(s, [2]int32{at.Row, at.Row}, [2]int32{at.Col, at.Col}, nil)
			if len(got) != 1 {
				t.Fatalf("cell %v not visited", at)
			}
			bound, least := got[0].bound, c.leastDot(&v)
			best := -2.0
			for i := 0; i <= 40; i++ {
				for j := 0; j <= 40; j++ {
					q := geo.Point{Lat: (float64(at.Row) + float64(i)/40) * geo.CellDeg, Lng: (float64(at.Col) + float64(j)/40) * geo.CellDeg}
					if i%40 != 0 && j%40 != 0 && rng.Intn(4) == 0 { // and points anywhere inside
						q.Lat += (rng.Float64() - 0.5) * geo.CellDeg / 40
						q.Lng += (rng.Float64() - 0.5) * geo.CellDeg / 40
					}
					u := unitVector(q)
					dot := u[0]*v[0] + u[1]*v[1] + u[2]*v[2]
					if dot > bound+1e-15 || dot < least-1e-15 {
						t.Fatalf("client %v cell %v point %v: dot %v outside [%v, %v]", p, at, q, dot, least, bound)
					}
					best = max(best, dot)
				}
			}
			// the nearest point may lie between the points tried: on an
			// edge, at the latitude the bound's formula names
			phi := math.Atan2(math.Sin(p.Lat*rad), math.Cos(p.Lat*rad)*cosNearestLng(p, at))
			lat := min(max(phi/rad, float64(at.Row)*geo.CellDeg), float64(at.Row+1)*geo.CellDeg)
			lng := min(max(p.Lng, float64(at.Col)*geo.CellDeg), float64(at.Col+1)*geo.CellDeg)
			u := unitVector(geo.Point{Lat: lat, Lng: lng})
			best = max(best, u[0]*v[0]+u[1]*v[1]+u[2]*v[2])
			if best < bound-1e-9 {
				t.Fatalf("client %v cell %v: bound %v, best point %v", p, at, bound, best)
			}
		}
	}
}

// cosNearestLng is cos(λ − λp) at the cell's nearest longitude to p.
func cosNearestLng(p geo.Point, at geo.Cell) float64 {
	lng0 := float64(at.Col) * geo.CellDeg
	return math.Cos(max(lng0-p.Lng, p.Lng-(lng0+geo.CellDeg), 0) * math.Pi / 180)
}
