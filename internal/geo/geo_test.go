package geo

import (
	"math"
	"testing"
)

// The distances were worked by hand with the haversine formula and checked
// against the figures published for these city pairs (great-circle).
func TestDistanceKmOfKnownPairs(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b Point
		want float64 // km
		tol  float64
	}{
		// Bogotá (4.60971, −74.08175) – Medellín (6.25184, −75.56359):
		// Δφ=1.64213°, Δλ=−1.48184°, a=sin²(0.014330)+cos(4.60971°)cos(6.25184°)sin²(−0.012931)
		// = 2.0535e-4 + 0.99676·0.99405·1.6722e-4 ≈ 3.7197e-4, d=2R·asin(√a) ≈ 2·6371.0088·0.019263 = 245.45 km.
		{"Bogotá–Medellín", Point{4.60971, -74.08175}, Point{6.25184, -75.56359}, 245.45, 0.1},
		// Bogotá – Cali (3.43722, −76.5225): 2R·asin(√(sin²(−0.010235)+0.99676·0.99820·sin²(−0.021285))) = 300.5 km.
		{"Bogotá–Cali", Point{4.60971, -74.08175}, Point{3.43722, -76.5225}, 300.5, 0.1},
		// One degree of latitude on a meridian: R·π/180 = 111.195 km.
		{"un grado de latitud", Point{0, -74}, Point{1, -74}, 111.195, 0.01},
		{"el mismo punto", Point{4.6, -74.1}, Point{4.6, -74.1}, 0, 0},
	} {
		if got := DistanceKm(c.a, c.b); math.Abs(got-c.want) > c.tol {
			t.Errorf("%s: %.3f km, want %.3f ± %.3f", c.name, got, c.want, c.tol)
		}
		if got, back := DistanceKm(c.a, c.b), DistanceKm(c.b, c.a); math.Abs(got-back) > 1e-9 {
			t.Errorf("%s: not symmetric (%v, %v)", c.name, got, back)
		}
	}
}

func TestRoundKm(t *testing.T) {
	for in, want := range map[float64]float64{0.04: 0, 0.05: 0.1, 3.26: 3.3, 9.94: 9.9, 10.4: 10, 245.5: 246} {
		if got := RoundKm(in); got != want {
			t.Errorf("RoundKm(%v) = %v, want %v", in, got, want)
		}
	}
}

// Every point within km of p lies in a cell of CellsWithin (the listing's
// cell bounds: modules/camellos TestCellBoundsHoldForEveryPoint).
func TestCellsCoverTheDisc(t *testing.T) {
	p := Point{4.65, -74.08}
	rows, cols := CellsWithin(p, 20)
	for i := 0; i < 3600; i++ {
		ang := float64(i) * math.Pi / 1800
		for _, km := range []float64{0.5, 10, 19.99} {
			q := Point{p.Lat + km/111.195*math.Sin(ang), p.Lng + km/(111.195*math.Cos(p.Lat*math.Pi/180))*math.Cos(ang)}
			if DistanceKm(p, q) > 20 {
				continue
			}
			c := CellOf(q)
			if c.Row < rows[0] || c.Row > rows[1] || c.Col < cols[0] || c.Col > cols[1] {
				t.Fatalf("%v (%.2f km away) is in cell %v, outside rows %v cols %v", q, DistanceKm(p, q), c, rows, cols)
			}
		}
	}
	if !(Point{4.6, -74.1}).Valid() || (Point{91, 0}).Valid() || (Point{0, -181}).Valid() || (Point{math.NaN(), 0}).Valid() {
		t.Fatal("Valid")
	}
}
