package camellos

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"camellos/internal/geo"
)

// benchListing is a listing of 100,000 camellos (50 cities, 300 services,
// 1–3 services each, a base point each), without the database.
func benchListing(b *testing.B) (*listing, []camelloRow) {
	return benchListingOf(b, 100_000)
}

// benchListingOf is a listing of n camellos as the benchmark seeds them:
// 50 cities 0.5° apart, each camello within ±0.075° of its city's centre,
// travelling 3–20 km.
func benchListingOf(b *testing.B, n int) (*listing, []camelloRow) {
	var services []*serviceRef
	for i := 0; i < 300; i++ {
		s := &serviceRef{ServiceSummary: ServiceSummary{ID: fmt.Sprintf("svc%012d", i), Name: fmt.Sprintf("Servicio %d", i), Slug: fmt.Sprintf("servicio-%d", i)},
			category: fmt.Sprintf("cat%d", i%30)}
		s.json, _ = json.Marshal(s.ServiceSummary)
		services = append(services, s)
	}
	rows := make([]camelloRow, n)
	rng := rand.New(rand.NewSource(1))
	for i := range rows {
		var svc []string
		for k := 0; k <= i%3; k++ {
			svc = append(svc, services[(i*7+k*13)%300].ID)
		}
		raw, _ := json.Marshal(svc)
		rows[i] = camelloRow{ID: fmt.Sprintf("cam%012d", len(rows)-i), User: fmt.Sprintf("usr%012d", i), Name: fmt.Sprintf("Camello %06d", i),
			Trades: `["plomería"]`, Status: StatusActive, Services: string(raw), Created: "2026-11-27 10:00:00.000Z", Updated: "2026-11-27 10:00:00.000Z",
			City: "Ciudad", CityKey: fmt.Sprintf("ciudad %d", i%50), Description: "Trabajo garantizado", RatingAvg: float64(i%51) / 10,
			SearchText: "camello plomeria ciudad trabajo garantizado", HasBase: true,
			BaseLat: 2 + float64(i%50/10)*0.5 + (rng.Float64()-0.5)*0.15, BaseLng: -76 + float64(i%10)*0.5 + (rng.Float64()-0.5)*0.15, RadiusKm: float64(3 + rng.Intn(18))}
	}
	l := newListing(services, len(rows))
	for i := range rows {
		if _, err := l.addRow(&rows[i]); err != nil {
			b.Fatal(err)
		}
	}
	l.finish()
	return l, rows
}

// BenchmarkAssemble100k is the in-memory part of a build and of a patch
// of the listing index at 100,000 camellos.
func BenchmarkAssemble100k(b *testing.B) {
	l, rows := benchListing(b)
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := *l
			n.index()
		}
	})
	// A patch without its SQL: one camello leaves its place and comes back
	// elsewhere (another rating), copy on write.
	b.Run("patch", func(b *testing.B) {
		b.ReportAllocs()
		cur := l
		i := 0
		// CPU time too: the machine may be busy
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		defer func() {
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(max(i, 1)), "cpu-ns/op")
		}()
		for b.Loop() {
			r := rows[(i*7919)%len(rows)]
			i++
			r.RatingAvg = float64(i%51) / 10
			n, err := cur.withRows([]string{r.ID}, []camelloRow{r})
			if err != nil {
				b.Fatal(err)
			}
			if len(n.order) != len(cur.order) {
				b.Fatal("lost an entry")
			}
			cur = n
		}
	})
}

// BenchmarkNear is one search by distance (a page of 20, and with a
// service) over 1,000 to 100,000 camellos: what the listing adds to a
// request's fixed cost.
func BenchmarkNear(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		l, rows := benchListingOf(b, n)
		rng := rand.New(rand.NewSource(2))
		var points []geo.Point
		for i := 0; i < 200; i++ {
			points = append(points, geo.Point{Lat: 2 + float64(i%50/10)*0.5 + (rng.Float64()-0.5)*0.08, Lng: -76 + float64(i%10)*0.5 + (rng.Float64()-0.5)*0.08})
		}
		for _, f := range []*filter{{}, {service: l.services[0].Slug}} {
			name := fmt.Sprintf("%d", n)
			if f.service != "" {
				name += "-service"
			}
			b.Run(name, func(b *testing.B) {
				// CPU time too: the machine may be busy
				var before, after syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
				i := 0
				for b.Loop() {
					l.near(f, points[i%len(points)], 20)
					i++
				}
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
				cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(i), "cpu-ns/op")
			})
		}
		_ = rows
	}
}
