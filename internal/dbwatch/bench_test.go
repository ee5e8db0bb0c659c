package dbwatch_test

import (
	"syscall"
	"testing"
	"time"

	"camellos/internal/dbwatch"
	"camellos/internal/readmodel"
	"camellos/internal/testkit"
)

// BenchmarkOwnWriteThenCheck is an own autocommit write of a counted table
// followed by the next request's Check: what the watcher adds to a write
// and to the read after it (CPU of both, in process).
//
//	go test ./internal/dbwatch -run x -bench OwnWrite -benchtime 2000x -count 5
func BenchmarkOwnWriteThenCheck(b *testing.B) {
	k := testkit.New(b)
	w := dbwatch.Of(k.App)
	if _, err := k.App.DB().NewQuery("CREATE TABLE scratch (n INTEGER)").Execute(); err != nil {
		b.Fatal(err)
	}
	if err := readmodel.Install(k.App, []string{"scratch"}); err != nil {
		b.Fatal(err)
	}
	q := k.App.DB().NewQuery("INSERT INTO scratch (n) VALUES (1)")
	for i := 0; i < 3; i++ {
		_ = w.Check()
		if _, err := q.Execute(); err != nil {
			b.Fatal(err)
		}
	}
	ext := w.External()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := q.Execute(); err != nil {
			b.Fatal(err)
		}
		if err := w.Check(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	if w.External() != ext {
		b.Fatalf("%d own writes taken for foreign ones", w.External()-ext)
	}
}

// cpuTime is the process's CPU time (user and system): less moved by the
// machine's load than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
