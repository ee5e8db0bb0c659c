// Command bench measures the service against true floors on a realistic
// data set. It seeds a temporary data dir (`-scale small`: 10,000 ACTIVO
// camellos, the issue-7 set; `-scale large`: 100,000 camellos, 1,000,000
// clients, 200,000 jobs, 1,000,000 appointments, plus quotes and messages
// once those tables exist), runs the service as a child process on
// 127.0.0.1, and drives bounded load from its own client. Every scenario is
// reported against floors measured in the same run: a bare net/http server
// answering a fixed 2 KB JSON (a second child), the service's health route,
// a raw SQLite insert loop (writes) and raw webpush-go sends (push). It
// writes BENCHMARKS.md with the goals of issues 17 and 27 and an SVG plot of req/s
// against data size.
//
//	go run ./bench [-scale small|large] [-d 6s] [-c 32] [-out BENCHMARKS.md] [-profile DIR] [-keep] [-skip a,b] [-pushlat 10000,100000] [-pushmodes web,worker]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	_ "net/http/pprof" // the child serves profiles on BENCH_PPROF_ADDR
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"camellos/modules"
	_ "camellos/pb_migrations"
	_ "time/tzdata"

	"github.com/pocketbase/pocketbase"
)

func main() {
	switch os.Getenv(childEnv) {
	case "1":
		runService()
		return
	case "floor":
		runFloor()
		return
	case "pushrecv":
		runPushReceiverChild()
		return
	}
	dur := flag.Duration("d", 6*time.Second, "duration of each load scenario")
	conns := flag.Int("c", 32, "concurrent connections")
	scale := flag.String("scale", "small", "data set: small (10,000 camellos) or large (100,000 camellos, 1,000,000 clients)")
	out := flag.String("out", "BENCHMARKS.md", "report file (the plot goes next to it as bench-growth.svg)")
	profile := flag.String("profile", "", "directory for CPU profiles of the service, one per scenario")
	keep := flag.Bool("keep", false, "keep the temporary data dir")
	seedOnly := flag.String("seed", "", "only seed this (new) data dir and exit, for investigation")
	skip := flag.String("skip", "", "comma-separated scenarios to leave out (e.g. growth,push,sweep,register), for investigation")
	growth := flag.String("growth", "", "camello counts of the cost-growth points (default 1000,10000,100000)")
	label := flag.String("label", "", "a note printed in the report (e.g. the load of the machine)")
	pushModes := flag.String("pushmodes", "web,worker", "configurations of the push-latency rows: web (the web process delivers) and/or worker (PUSH_DELIVERY=worker, `camellos push work` at nice 10)")
	pushLat := flag.String("pushlat", "10000,100000", "subscriptions of the push-latency rows (comma-separated)")
	flag.Parse()

	sz, ok := scales[*scale]
	if !ok {
		log.Fatalf("unknown -scale %q (small or large)", *scale)
	}
	if *seedOnly != "" {
		ds, err := seed(*seedOnly, sz)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("seeded %s (%s) in %s; slots camello %s; missing tables: %v\n", *seedOnly, sz.Name, ds.SeedTime.Round(time.Millisecond), ds.SlotCamello, ds.Missing)
		return
	}
	points := []int{1_000, 10_000, 100_000}
	if *growth != "" {
		points = nil
		for _, f := range strings.Split(*growth, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 100 {
				log.Fatalf("bad -growth %q", *growth)
			}
			points = append(points, n)
		}
	}

	var pushSizes []int
	for _, f := range strings.Split(*pushLat, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("bad -pushlat %q", *pushLat)
		}
		pushSizes = append(pushSizes, n)
	}

	prev, _ := os.ReadFile(*out) // the report this run replaces: its read ratios must hold
	start := time.Now()
	r, err := run(config{Duration: *dur, Conns: *conns, ProfileDir: *profile, Keep: *keep, Skip: *skip, Size: sz, Growth: points, Label: *label, PushLat: pushSizes, PushModes: strings.Split(*pushModes, ","),
		Previous: previousReadRatios(string(prev), sz.Name)})
	if err != nil {
		log.Fatal(err)
	}
	r.Total = time.Since(start)
	svgName := "bench-growth.svg"
	svgPath := filepath.Join(filepath.Dir(*out), svgName)
	if svg := r.Plot(); svg != "" {
		_ = os.MkdirAll(filepath.Dir(svgPath), 0o755)
		if err := os.WriteFile(svgPath, []byte(svg), 0o644); err != nil {
			log.Fatal(err)
		}
		r.PlotFile = svgName
	}
	report := r.Markdown()
	fmt.Println(report)
	if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s in %s\n", *out, r.Total.Round(time.Second))
}

const childEnv = "CAMELLOS_BENCH_CHILD"

// runService is the child: the service exactly as main.go builds it, plus
// pprof and /bench/heap (live heap after a full GC) on BENCH_PPROF_ADDR.
func runService() {
	if addr := os.Getenv("BENCH_PPROF_ADDR"); addr != "" {
		http.HandleFunc("/bench/heap", func(w http.ResponseWriter, _ *http.Request) {
			runtime.GC()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			_ = json.NewEncoder(w).Encode(map[string]uint64{"heapAlloc": m.HeapAlloc, "sys": m.Sys})
		})
		http.HandleFunc("/bench/memstats", func(w http.ResponseWriter, _ *http.Request) {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			rss := ""
			if b, err := os.ReadFile("/proc/self/status"); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") {
						rss += strings.Join(strings.Fields(l), " ") + "; "
					}
				}
			}
			fmt.Fprintf(w, "%sGo sys %d MB, heap inuse %d MB, heap idle %d MB (released %d MB), heap alloc %d MB, stacks %d MB, GC cycles %d, next GC at %d MB",
				rss, m.Sys>>20, m.HeapInuse>>20, m.HeapIdle>>20, m.HeapReleased>>20, m.HeapAlloc>>20, m.StackInuse>>20, m.NumGC, m.NextGC>>20)
		})
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}
	var app *pocketbase.PocketBase = modules.New()
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}

// floorBody is the bare floor's answer: a fixed 2 KB JSON document.
var floorBody = func() []byte {
	var items []map[string]any
	for i := 0; ; i++ {
		items = append(items, map[string]any{"id": fmt.Sprintf("cam%012d", i), "name": fmt.Sprintf("Camello %05d", i)})
		raw, _ := json.Marshal(map[string]any{"items": items})
		if len(raw) > 2040 {
			items = items[:len(items)-1]
			break
		}
	}
	raw, _ := json.Marshal(map[string]any{"items": items})
	for len(raw) < 2048 { // pad with spaces before the closing brace
		raw = append(raw[:len(raw)-1], ' ', '}')
	}
	return raw
}()

// runFloor is the bare floor: net/http alone on BENCH_FLOOR_ADDR, the same
// 2 KB JSON for every request, no router, no database, no middleware.
func runFloor() {
	body := floorBody
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
	log.Fatal(http.ListenAndServe(os.Getenv("BENCH_FLOOR_ADDR"), h))
}
