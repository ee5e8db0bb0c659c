package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"time"
)

// coldIndex is the cold build of one in-memory index: the latency of the
// first request that needs it (on a fresh service) and the live heap it
// added (HeapAlloc after a full GC, before and after).
type coldIndex struct {
	Name      string
	Request   string
	Available bool
	Took      time.Duration
	HeapBytes int64
}

// growthPoint is one data size of the cost-growth series.
type growthPoint struct {
	Camellos int
	SeedTime time.Duration
	Cold     []coldIndex
	HeapBase int64
	RPS      map[string]*result // listing, slots, open-board
	Note     string
}

// runGrowth seeds a data dir per size (n camellos, one due appointment
// each, the same catalog, slots camello and lanes), and on a fresh service
// measures each index's cold build, then the listing, slots and open-board
// loads.
func runGrowth(r *report, floor *service) []*growthPoint {
	var out []*growthPoint
	d := r.Cfg.Duration * 2 / 3
	if d < 2*time.Second {
		d = 2 * time.Second
	}
	for _, n := range r.Cfg.Growth {
		p := &growthPoint{Camellos: n, RPS: map[string]*result{}}
		out = append(out, p)
		dir, err := os.MkdirTemp("", "camellos-growth-")
		if err != nil {
			p.Note = err.Error()
			continue
		}
		fmt.Printf("growth: seeding %d camellos…\n", n)
		ds, err := seed(dir, growthSizes(n))
		if err != nil {
			p.Note = err.Error()
			os.RemoveAll(dir)
			continue
		}
		p.SeedTime = ds.SeedTime
		svc, err := startService(dir, serviceEnv())
		if err != nil {
			p.Note = err.Error()
			os.RemoveAll(dir)
			continue
		}
		client := newClient(r.Cfg.Conns)
		city, svcID := ds.Combos[0][0], ds.Combos[0][1]
		probes := []struct{ name, what, path, cookie string }{
			{"sessions", "session cache (first signed-in request, `GET /api/me`)", "/api/me", ds.ClientCookie},
			{"listing", "listing index (first `GET /api/camellos`)", "/api/camellos?city=" + url.QueryEscape(city) + "&service=" + svcID, ""},
			{"categories", "categories answer (first `GET /api/categories`)", "/api/categories", ""},
			{"agenda", "agenda view of one camello (first slots request)", slotsPath(ds.SlotCamello), ds.ClientCookie},
			{"open-board", "open board (first `GET /api/jobs/open`)", "/api/jobs/open", ds.BoardCookie},
		}
		p.HeapBase = svc.heap()
		before := p.HeapBase
		for _, pr := range probes {
			ci := coldIndex{Name: pr.name, Request: pr.what}
			var prof chan []byte
			if r.Cfg.ProfileDir != "" && (pr.name == "listing" || pr.name == "open-board") {
				prof = profileAsync(svc.pprof, 10*time.Second)
				time.Sleep(100 * time.Millisecond)
			}
			t0 := time.Now()
			st, _ := once(client, cookieGet(svc.base, pr.path, pr.cookie))
			ci.Took = time.Since(t0)
			if prof != nil {
				saveProfile(r.Cfg.ProfileDir, fmt.Sprintf("cold-%s-%d", pr.name, n), <-prof)
			}
			ci.Available = st == http.StatusOK
			after := svc.heap()
			ci.HeapBytes = after - before
			before = after
			p.Cold = append(p.Cold, ci)
			fmt.Printf("growth %-7d cold %-11s %-10s heap %+.1f MB (status %d)\n", n, pr.name, ci.Took.Round(time.Microsecond), float64(ci.HeapBytes)/(1<<20), st)
		}
		// With -profile: the heap with every index built (go tool pprof
		// -sample_index=inuse_space), what issue 27's live-heap goal counts.
		if r.Cfg.ProfileDir != "" {
			if res, err := http.Get(svc.pprof + "/debug/pprof/heap?gc=1"); err == nil {
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				saveProfile(r.Cfg.ProfileDir, fmt.Sprintf("heap-%d", n), raw)
			}
		}
		// A write of one listed camello (an admin toggles its premium flag)
		// and the next listing: the index is patched, not built again.
		if len(ds.CamelloIDs) > 0 {
			ci := coldIndex{Name: "camello write", Request: "one camello written (admin `PATCH /api/admin/camellos/{id}` premium) and the next `GET /api/camellos`: the index patched"}
			t0 := time.Now()
			st, _ := once(client, cookieJSON(http.MethodPatch, svc.base, "/api/admin/camellos/"+ds.CamelloIDs[0], ds.AdminCookie, map[string]any{"premium": true}))
			st2, _ := once(client, cookieGet(svc.base, "/api/camellos?city="+url.QueryEscape(city)+"&service="+svcID, ""))
			ci.Took = time.Since(t0)
			ci.Available = st == http.StatusOK && st2 == http.StatusOK
			after := svc.heap()
			ci.HeapBytes = after - before
			p.Cold = append(p.Cold, ci)
			fmt.Printf("growth %-7d cold %-11s %-10s (status %d, %d)\n", n, ci.Name, ci.Took.Round(time.Microsecond), st, st2)
		}
		var comboIdx, cityIdx, nearIdx atomic.Int64
		loads := []scenario{
			// The bare floor again, in the same minute as this size's rows.
			{name: "floor", next: func() *http.Request { return cookieGet(floor.base, "/", "") }},
			// "Cerca de mí": the camellos whose radius reaches a client near
			// a city centre, nearest first (the spatial grid of the listing).
			{name: "listing-near", next: func() *http.Request {
				q := ds.NearQueries[int(nearIdx.Add(1))%len(ds.NearQueries)]
				return cookieGet(svc.base, "/api/camellos?"+q, "")
			}},
			// The same with a service: the narrower of the service's list
			// and the cells around the client.
			{name: "listing-near-service", next: func() *http.Request {
				i := int(nearIdx.Add(1))
				q := ds.NearQueries[i%len(ds.NearQueries)]
				return cookieGet(svc.base, "/api/camellos?"+q+"&service="+ds.Combos[i%len(ds.Combos)][1], "")
			}},
			// A page of 20 at every size (20 camellos per city at 1,000):
			// the cost of the same answer over more data.
			{name: "listing-city", next: func() *http.Request {
				c := cityNames[int(cityIdx.Add(1))%len(cityNames)]
				return cookieGet(svc.base, "/api/camellos?city="+url.QueryEscape(c), "")
			}},
			// The main run's query: its answer grows with the data (about
			// 0.1 camellos per (city, service) at 1,000, 13 at 100,000).
			{name: "listing", next: func() *http.Request {
				c := ds.Combos[int(comboIdx.Add(1))%len(ds.Combos)]
				return cookieGet(svc.base, "/api/camellos?city="+url.QueryEscape(c[0])+"&service="+c[1], "")
			}},
			{name: "slots", next: func() *http.Request { return cookieGet(svc.base, slotsPath(ds.SlotCamello), ds.ClientCookie) }},
			{name: "open-board", next: func() *http.Request { return cookieGet(svc.base, "/api/jobs/open", ds.BoardCookie) }},
		}
		for _, sc := range loads {
			if sc.name != "floor" && r.Cfg.skipped(sc.name) {
				p.RPS[sc.name] = &result{Name: sc.name, Note: "skipped (-skip)"}
				continue
			}
			st, _ := once(client, sc.next())
			if st != http.StatusOK {
				p.RPS[sc.name] = &result{Name: sc.name, Note: fmt.Sprintf("not available (%d)", st)}
				continue
			}
			var prof chan []byte
			if r.Cfg.ProfileDir != "" && (sc.name == "listing-near" || sc.name == "listing-city" || sc.name == "open-board") {
				prof = profileAsync(svc.pprof, d)
			}
			res := load(client, r.Cfg.Conns, d, sc.next)
			if prof != nil {
				saveProfile(r.Cfg.ProfileDir, fmt.Sprintf("load-%s-%d", sc.name, n), <-prof)
			}
			res.Name = sc.name
			p.RPS[sc.name] = res
			fmt.Printf("growth %-7d %-11s %8.0f req/s p99 %s\n", n, sc.name, res.RPS, res.P99)
		}
		svc.stop()
		os.RemoveAll(dir)
	}
	return out
}
