// Command bench measures the service against the framework's own limits on
// a realistic data set: it seeds a temporary data dir (10,000 ACTIVO
// camellos in 30 categories, 300 services and 50 cities; 100,000
// appointments), runs the service as a child process on 127.0.0.1, drives
// bounded load from its own client (32 connections, fixed duration per
// scenario), prints requests/s, p50, p99 and ratios to references measured
// in the same run, and writes BENCHMARKS.md.
//
//	go run ./bench [-d 6s] [-out BENCHMARKS.md] [-profile DIR] [-keep]
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	_ "net/http/pprof" // the child serves profiles on BENCH_PPROF_ADDR
	"os"
	"strconv"
	"time"

	"camellos/modules"
	_ "camellos/pb_migrations"
	_ "time/tzdata"

	"github.com/pocketbase/pocketbase"
)

func main() {
	if os.Getenv(childEnv) == "1" {
		runService()
		return
	}
	dur := flag.Duration("d", 6*time.Second, "duration of each load scenario")
	conns := flag.Int("c", 32, "concurrent connections")
	out := flag.String("out", "BENCHMARKS.md", "report file")
	profile := flag.String("profile", "", "directory for CPU profiles of the service, one per scenario")
	keep := flag.Bool("keep", false, "keep the temporary data dir")
	seedOnly := flag.String("seed", "", "only seed this (new) data dir and exit, for investigation")
	skip := flag.String("skip", "", "comma-separated scenarios to leave out (e.g. sweep,register), for investigation")
	idle := flag.Int("idle", 0, "experiment: the service's DataMaxIdleConns (0 = PocketBase's default, as main.go)")
	open := flag.Int("open", 0, "experiment: the service's DataMaxOpenConns (0 = PocketBase's default, as main.go)")
	flag.Parse()

	if *seedOnly != "" {
		ds, err := seed(*seedOnly)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("seeded %s in %s; slots camello %s; a (city, service) pair: %v\n", *seedOnly, ds.SeedTime.Round(time.Millisecond), ds.SlotCamello, ds.Combos[0])
		return
	}

	start := time.Now()
	r, err := run(config{Duration: *dur, Conns: *conns, ProfileDir: *profile, Keep: *keep, Idle: *idle, Open: *open, Skip: *skip})
	if err != nil {
		log.Fatal(err)
	}
	r.Total = time.Since(start)
	report := r.Markdown()
	fmt.Println(report)
	if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s in %s\n", *out, r.Total.Round(time.Second))
}

const childEnv = "CAMELLOS_BENCH_CHILD"

// runService is the child: the service exactly as main.go builds it, plus
// pprof on BENCH_PPROF_ADDR when set.
func runService() {
	if addr := os.Getenv("BENCH_PPROF_ADDR"); addr != "" {
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}
	// The same construction as main.go; the pool sizes only when asked for.
	idle, _ := strconv.Atoi(os.Getenv("BENCH_DATA_MAX_IDLE"))
	open, _ := strconv.Atoi(os.Getenv("BENCH_DATA_MAX_OPEN"))
	app := modules.New()
	if idle > 0 || open > 0 {
		app = modules.NewWithConfig(pocketbase.Config{DataMaxIdleConns: idle, DataMaxOpenConns: open})
	}
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}
