package camellos

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"camellos/internal/geo"

	"github.com/pocketbase/pocketbase/core"
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
		rows[i] = camelloRow{ID: fmt.Sprintf("cam%012d", len(rows)-i), Name: fmt.Sprintf("Camello %06d", i),
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
		cpuPerOp(b, func() int {
			i := 0
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
			return i
		})
	})
}

// cpuPerOp reports the process's CPU time per iteration of b (the
// machine may be busy: wall time alone would say little).
func cpuPerOp(b *testing.B, loop func() int) {
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := loop()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(max(n, 1)), "cpu-ns/op")
}

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkNear is the listing's route over 1,000 to 100,000 camellos
// (the growth run's rows: a client near a city centre, with and without a
// service; a city's first page of 20), its answer written to a writer
// that keeps nothing: what the listing adds to a request's fixed cost;
// and the search by distance alone (near).
func BenchmarkNear(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		l, _ := benchListingOf(b, n)
		x := &publicIndex{}
		_, _ = x.cache.Get(func() (*listing, error) { return l, nil })
		rng := rand.New(rand.NewSource(2))
		var points []geo.Point
		for i := 0; i < 200; i++ {
			points = append(points, geo.Point{Lat: 2 + float64(i%50/10)*0.5 + (rng.Float64()-0.5)*0.08, Lng: -76 + float64(i%10)*0.5 + (rng.Float64()-0.5)*0.08})
		}
		queries := map[string]func(i int) string{
			"near": func(i int) string { p := points[i%len(points)]; return fmt.Sprintf("lat=%.5f&lng=%.5f", p.Lat, p.Lng) },
			"near-service": func(i int) string {
				p := points[i%len(points)]
				return fmt.Sprintf("lat=%.5f&lng=%.5f&service=%s", p.Lat, p.Lng, l.services[i%300].ID)
			},
			"city": func(i int) string { return "city=ciudad+" + fmt.Sprint(i%50) },
		}
		for _, name := range []string{"near", "near-service", "city"} {
			reqs := make([]*http.Request, 200)
			for i := range reqs {
				reqs[i] = httptest.NewRequest(http.MethodGet, "/api/camellos?"+queries[name](i), nil)
			}
			b.Run(fmt.Sprintf("%d-route-%s", n, name), func(b *testing.B) {
				w := &discard{h: http.Header{}}
				cpuPerOp(b, func() int {
					i := 0
					for b.Loop() {
						e := &core.RequestEvent{}
						e.Request, e.Response = reqs[i%len(reqs)], w
						if err := x.camellosList(e); err != nil {
							b.Fatal(err)
						}
						i++
					}
					return i
				})
			})
		}
		for _, f := range []*filter{{}, {service: l.services[0].Slug}} {
			name := fmt.Sprintf("%d-near", n)
			if f.service != "" {
				name += "-service"
			}
			b.Run(name, func(b *testing.B) {
				cpuPerOp(b, func() int {
					i := 0
					for b.Loop() {
						l.near(f, points[i%len(points)], 20)
						i++
					}
					return i
				})
			})
		}
	}
}
