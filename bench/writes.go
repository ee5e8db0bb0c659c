package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"camellos/internal/timefmt"

	"github.com/pocketbase/dbx"
)

// writesResult is the write scenarios of one run.
type writesResult struct {
	Kinds      []string           // write kinds exercised (booking, job, quote, accept, message)
	Missing    []string           // write kinds whose routes are not on this branch
	Floor      *result            // raw SQLite insert loop, one writer
	FloorRows  map[string]int     // rows per table in the floor loop
	WriteOnly  map[string]*result // per kind, plus "writes" (all)
	Mixed      map[string]*result // "reads", "writes"
	MixedKinds map[string]*result
	CPU        []writeCPU // the service's CPU per write: "all" (write-only), then each class alone
}

// writer makes the write requests of the lanes: worker w writes in lane
// w % nLanes; each lane has its own counters so concurrent workers never
// ask for the same slot or open job.
type writer struct {
	base    string
	ds      *dataset
	kinds   []string
	slot    []atomic.Int64 // per lane: next booking slot
	open    []atomic.Int64 // per lane: next open job to quote
	msg     []atomic.Int64
	pending []string // per worker: a quote to accept next
	turn    []int    // per worker: next kind
	mu      sync.Mutex
	bogota  *time.Location
	day0    time.Time
}

func newWriter(base string, ds *dataset, kinds []string, workers int) *writer {
	bogota, _ := time.LoadLocation("America/Bogota")
	d := time.Now().In(bogota).AddDate(0, 0, 2)
	return &writer{base: base, ds: ds, kinds: kinds, slot: make([]atomic.Int64, nLanes), open: make([]atomic.Int64, nLanes),
		msg: make([]atomic.Int64, nLanes), pending: make([]string, workers), turn: make([]int, workers), bogota: bogota,
		day0: time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, bogota)}
}

// kindOp is one write of the given kind in worker w's lane.
func (wr *writer) kindOp(w int, kind string) op {
	ln := wr.ds.Lanes[w%len(wr.ds.Lanes)]
	l := w % len(wr.ds.Lanes)
	created := func(st int) bool { return st == http.StatusCreated || st == http.StatusOK }
	switch kind {
	case "booking":
		n := int(wr.slot[l].Add(1)) - 1
		if n/10 >= len(ln.Jobs) || n >= 57*16 {
			return op{}
		}
		start := wr.day0.AddDate(0, 0, n/16).Add(time.Duration(6+n%16) * time.Hour).UTC()
		return op{class: kind, ok: created, req: cookieJSON(http.MethodPost, wr.base, "/api/jobs/"+ln.Jobs[n/10]+"/appointments", ln.ClientCookie,
			map[string]any{"start": timefmt.ISO(start)})}
	case "job":
		return op{class: kind, ok: created, req: cookieJSON(http.MethodPost, wr.base, "/api/jobs", ln.ClientCookie, map[string]any{
			"title": "Arreglo de tubería", "description": "Se rompió un tubo en la cocina, necesito ayuda esta semana",
			"serviceId": serviceID(0), "city": "Bogotá", "neighborhood": "Chapinero"})}
	case "quote":
		n := int(wr.open[l].Add(1)) - 1
		if n >= len(ln.OpenJobs) {
			return op{}
		}
		return op{class: kind, ok: created, req: cookieJSON(http.MethodPost, wr.base, "/api/jobs/"+ln.OpenJobs[n]+"/quotes", ln.Quoters[n%len(ln.Quoters)],
			map[string]any{"amount": 150000, "message": "Puedo ir mañana en la mañana, incluye materiales básicos", "validDays": 7}),
			done: func(st int, body []byte) {
				if st != http.StatusCreated {
					return
				}
				var out struct {
					Quote struct {
						ID string `json:"id"`
					} `json:"quote"`
				}
				if json.Unmarshal(body, &out) == nil && out.Quote.ID != "" {
					wr.pending[w] = out.Quote.ID
				}
			}}
	case "accept":
		id := wr.pending[w]
		if id == "" {
			return op{}
		}
		wr.pending[w] = ""
		return op{class: kind, ok: created, req: cookieJSON(http.MethodPost, wr.base, "/api/quotes/"+id+"/accept", ln.ClientCookie, map[string]any{})}
	case "message":
		n := int(wr.msg[l].Add(1)) - 1
		return op{class: kind, ok: created, req: cookieJSON(http.MethodPost, wr.base, "/api/jobs/"+ln.Jobs[n%len(ln.Jobs)]+"/messages", ln.ClientCookie,
			map[string]any{"body": "Hola, ¿a qué hora llega mañana? Dejo la llave con el portero."})}
	}
	return op{}
}

// next is worker w's next write: the kinds in turn; an accept follows
// each quote the worker got.
func (wr *writer) next(w int) op {
	if wr.pending[w] != "" {
		return wr.kindOp(w, "accept")
	}
	for tries := 0; tries < len(wr.kinds); tries++ {
		k := wr.kinds[wr.turn[w]%len(wr.kinds)]
		wr.turn[w]++
		if k == "accept" {
			continue
		}
		if o := wr.kindOp(w, k); o.req != nil {
			return o
		}
	}
	return op{}
}

// writeKinds probes which write routes exist (a bad request is enough).
func writeKinds(client *http.Client, base string, ds *dataset) (have, missing []string) {
	ln := ds.Lanes[len(ds.Lanes)-1]
	probes := []struct {
		kind, path, cookie string
	}{
		{"booking", "/api/jobs/" + ln.Jobs[len(ln.Jobs)-1] + "/appointments", ln.ClientCookie},
		{"job", "/api/jobs", ln.ClientCookie},
		{"quote", "/api/jobs/" + ln.OpenJobs[len(ln.OpenJobs)-1] + "/quotes", ln.CamelloCookie},
		{"accept", "/api/quotes/zzzzzzzzzzzzzzz/accept", ln.ClientCookie},
		{"message", "/api/jobs/" + ln.Jobs[len(ln.Jobs)-1] + "/messages", ln.ClientCookie},
	}
	for _, p := range probes {
		st, _ := once(client, cookieJSON(http.MethodPost, base, p.path, p.cookie, map[string]any{"bench": "probe"}))
		if st == http.StatusNotFound || st == http.StatusMethodNotAllowed || st == 0 {
			missing = append(missing, p.kind)
		} else {
			have = append(have, p.kind)
		}
	}
	return have, missing
}

func runWrites(r *report, client *http.Client, svc *service, ds *dataset, listing, profile func() *http.Request, slots string, beforeMixed func()) *writesResult {
	out := &writesResult{}
	out.Kinds, out.Missing = writeKinds(client, svc.base, ds)
	fmt.Printf("%-20s kinds %v, missing %v\n", "writes", out.Kinds, out.Missing)
	d := r.Cfg.Duration

	// The floor first, on its own database file.
	out.Floor, out.FloorRows = sqliteFloor(ds.Floor, out.Kinds, d)
	if out.Floor != nil {
		fmt.Printf("%-20s %8.0f rows/s  p50 %-10s p99 %-10s %v\n", "sqlite floor", out.Floor.RPS, out.Floor.P50, out.Floor.P99, out.FloorRows)
	}

	// Write-only.
	wr := newWriter(svc.base, ds, out.Kinds, r.Cfg.Conns)
	var prof chan []byte
	if r.Cfg.ProfileDir != "" {
		prof = profileAsync(svc.pprof, d-time.Second)
	}
	all := measureCPU(svc, "all", func() map[string]*result {
		out.WriteOnly = loadOps(client, r.Cfg.Conns, d, wr.next)
		return out.WriteOnly
	})
	if prof != nil {
		saveProfile(r.Cfg.ProfileDir, "write-only", <-prof)
	}
	out.WriteOnly["writes"] = merge("writes", out.WriteOnly, d)
	printClasses("write-only", out.WriteOnly)

	// Mixed: 90 % reads (listing, slots, profile in turn), 10 % writes.
	var seq atomic.Int64
	mixed := func(w int) op {
		n := seq.Add(1)
		if n%10 == 0 {
			o := wr.next(w)
			if o.req != nil {
				return o
			}
		}
		var req *http.Request
		switch n % 3 {
		case 0:
			req = listing()
		case 1:
			req = cookieGet(svc.base, slots, ds.ClientCookie)
		default:
			req = profile()
		}
		return op{req: req, class: "read-" + []string{"listing", "slots", "profile"}[n%3]}
	}
	if r.Cfg.ProfileDir != "" {
		prof = profileAsync(svc.pprof, d-time.Second)
	}
	beforeMixed()
	byClass := loadOps(client, r.Cfg.Conns, d, mixed)
	if prof != nil {
		saveProfile(r.Cfg.ProfileDir, "mixed", <-prof)
		// what the memory is right after the mixed load (no GC forced)
		if res, err := http.Get(svc.pprof + "/debug/pprof/heap"); err == nil {
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			saveProfile(r.Cfg.ProfileDir, "mixed-heap", data)
		}
		if res, err := http.Get(svc.pprof + "/bench/memstats"); err == nil {
			data, _ := io.ReadAll(res.Body)
			res.Body.Close()
			fmt.Printf("mixed: memory after the load: %s\n", data)
		}
	}
	out.MixedKinds = byClass
	reads, writes := map[string]*result{}, map[string]*result{}
	for k, v := range byClass {
		if strings.HasPrefix(k, "read-") {
			reads[k] = v
		} else {
			writes[k] = v
		}
	}
	out.Mixed = map[string]*result{"reads": merge("reads", reads, d), "writes": merge("writes", writes, d)}
	printClasses("mixed", byClass)
	printClasses("mixed", out.Mixed)
	out.CPU = append([]writeCPU{all}, runWriteCPU(client, svc, wr, r.Cfg.Conns, d/2, r.Cfg.ProfileDir)...)
	return out
}

// merge sums classes: requests, statuses, rates; the percentiles are
// recomputed from the classes' own (p50/p99 of the merge are the worst
// class's, an upper bound).
func merge(name string, parts map[string]*result, d time.Duration) *result {
	m := &result{Name: name, Available: true, Statuses: map[int]int{}}
	for _, p := range parts {
		if p == nil {
			continue
		}
		m.Requests += p.Requests
		m.Errors += p.Errors
		m.RPS += p.RPS
		for s, n := range p.Statuses {
			m.Statuses[s] += n
		}
		if p.P99 > m.P99 {
			m.P99 = p.P99
		}
		if p.P50 > m.P50 {
			m.P50 = p.P50
		}
		if p.Max > m.Max {
			m.Max = p.Max
		}
	}
	return m
}

func printClasses(label string, m map[string]*result) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		fmt.Printf("%-20s %-16s %8.0f req/s  p50 %-10s p99 %-10s errors %d %v\n", label, k, v.RPS, v.P50, v.P99, v.Errors, v.Statuses)
	}
}

// floorTable is what the floor inserts for a write kind: the table the API
// writes and the column that must vary to keep unique indexes happy.
var floorTable = map[string][2]string{
	"booking": {"appointments", "start"},
	"job":     {"jobs", ""},
	"quote":   {"quotes", "job"},
	"accept":  {"", ""}, // an UPDATE of two rows, not an insert: no floor row
	"message": {"messages", ""},
}

// floorSource is what the floor copies from the seeded database: each
// floor table's schema (table and indexes) and one sample row. It is read
// right after seeding, before the service starts: a second process reading
// the service's data.db while it runs shows to the service as a commit by
// another process (internal/dbwatch), which would drop every cache.
type floorSource map[string]*floorTableSource

type floorTableSource struct {
	schema []string
	cols   []string
	vals   []any
}

// readFloorSource reads the floor tables of the seeded data dir.
func readFloorSource(seeded string) floorSource {
	src, err := dbx.Open("sqlite", filepath.Join(seeded, "data.db")+"?mode=ro")
	if err != nil {
		return nil
	}
	defer src.Close()
	out := floorSource{}
	for _, ft := range floorTable {
		if ft[0] == "" || out[ft[0]] != nil {
			continue
		}
		ts := &floorTableSource{}
		if err := src.NewQuery(`SELECT sql FROM sqlite_master WHERE tbl_name={:t} AND type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type DESC`).
			Bind(dbx.Params{"t": ft[0]}).Column(&ts.schema); err != nil || len(ts.schema) == 0 {
			continue
		}
		// A sample row of the table (seeded), or none: skip.
		sample := dbx.NullStringMap{}
		if err := src.Select("*").From(ft[0]).Limit(1).Offset(7).One(sample); err != nil || len(sample) == 0 {
			if err := src.Select("*").From(ft[0]).Limit(1).One(sample); err != nil || len(sample) == 0 {
				continue
			}
		}
		for c, v := range sample {
			ts.cols = append(ts.cols, c)
			if v.Valid {
				ts.vals = append(ts.vals, v.String)
			} else {
				ts.vals = append(ts.vals, nil)
			}
		}
		out[ft[0]] = ts
	}
	return out
}

// sqliteFloor is the single-writer floor: a fresh database file with the
// same tables and indexes as the service's (copied from the seeded
// schema), the service's connection pragmas, and one goroutine inserting
// rows copied from the seeded data (same columns, same sizes), one
// autocommit transaction per row, round-robin over the tables the writes
// touch, for d.
func sqliteFloor(source floorSource, kinds []string, d time.Duration) (*result, map[string]int) {
	dir, err := os.MkdirTemp("", "camellos-floor-")
	if err != nil {
		return nil, nil
	}
	defer os.RemoveAll(dir)
	pragmas := "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(200000000)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-8000)"
	dst, err := sql.Open("sqlite", filepath.Join(dir, "floor.db")+pragmas)
	if err != nil {
		return nil, nil
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)

	type tableRow struct {
		table, vary string
		cols        []string
		vals        []any
		stmt        *sql.Stmt
	}
	var rows []*tableRow
	for _, k := range kinds {
		ft := floorTable[k]
		ts := source[ft[0]]
		if ft[0] == "" || ts == nil {
			continue
		}
		for _, q := range ts.schema {
			if _, err := dst.Exec(q); err != nil && !strings.Contains(err.Error(), "already exists") {
				fmt.Println("floor schema:", err)
			}
		}
		tr := &tableRow{table: ft[0], vary: ft[1], cols: ts.cols, vals: ts.vals}
		q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", ft[0], `"`+strings.Join(tr.cols, `","`)+`"`, strings.TrimSuffix(strings.Repeat("?,", len(tr.cols)), ","))
		if tr.stmt, err = dst.Prepare(q); err != nil {
			fmt.Println("floor prepare:", err)
			continue
		}
		defer tr.stmt.Close()
		rows = append(rows, tr)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	counts := map[string]int{}
	var lat []time.Duration
	rng := rand.New(rand.NewSource(1))
	base := time.Now().Add(400 * 24 * time.Hour)
	start := time.Now()
	errs := 0
	for i := 0; time.Since(start) < d; i++ {
		tr := rows[i%len(rows)]
		vals := append([]any(nil), tr.vals...)
		for c, name := range tr.cols {
			switch {
			case name == "id":
				vals[c] = fmt.Sprintf("f%014d", rng.Int63n(1e14))
			case name == tr.vary && name == "start":
				vals[c] = dbTime(base.Add(time.Duration(i) * time.Hour))
			case name == tr.vary:
				vals[c] = fmt.Sprintf("v%014d", i)
			}
		}
		t0 := time.Now()
		if _, err := tr.stmt.Exec(vals...); err != nil {
			errs++
			continue
		}
		lat = append(lat, time.Since(t0))
		counts[tr.table]++
	}
	res := summarize("sqlite-floor", lat, time.Since(start), map[int]int{}, errs)
	return res, counts
}
