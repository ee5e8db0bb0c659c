//go:build linux

package jobs_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"camellos/internal/config"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// TestReminderSweepLoad measures one sweep over CAMELLOS_SWEEP_LOAD due
// appointments (e.g. 100000) spread over 20 clients and 10 camellos:
// wall time and memory growth. Skipped unless the variable is set; it
// asserts nothing about time (numbers are logged):
//
//	CAMELLOS_SWEEP_LOAD=100000 go test -run TestReminderSweepLoad -v ./modules/jobs/
func TestReminderSweepLoad(t *testing.T) {
	n, _ := strconv.Atoi(config.Switch(config.SwitchSweepLoad))
	if n <= 0 {
		t.Skip("set CAMELLOS_SWEEP_LOAD=<appointments> to run")
	}
	k := testkit.New(t)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var pairs []*core.Record
	var camellos []*core.Record
	for i := 0; i < 10; i++ {
		_, c, _ := k.CreateCamello()
		camellos = append(camellos, c)
	}
	for i := 0; i < 20; i++ {
		client := k.CreateUser(users.RoleClient)
		pairs = append(pairs, k.CreateJob(testkit.JobOpts{Client: client, Provider: camellos[i%10], Status: "ASIGNADO"}))
	}
	step := 86400 * time.Second / time.Duration(n+1)
	per := n / len(pairs)
	for i, job := range pairs {
		count := per
		if i == len(pairs)-1 {
			count = n - per*(len(pairs)-1)
		}
		// Each job's appointments interleave with the others' in time.
		bulkAppointmentsTB(t, k, job, now.Add(time.Second+time.Duration(i)*step/time.Duration(len(pairs))), count, step)
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset the peak RSS (Linux)
	rssBefore := procStatus("VmRSS")
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peakHeap.Load() {
				peakHeap.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	var ruBefore, ruAfter syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ruBefore)
	began := time.Now()
	sent, err := jobs.SendReminders(k.App, now)
	elapsed := time.Since(began)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ruAfter)
	close(stop)
	<-sampled
	if err != nil || sent != n {
		t.Fatalf("sent %d of %d: %v", sent, n, err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	t.Logf("%d appointments in %v (%.1f µs/appointment)", n, elapsed.Round(time.Millisecond),
		float64(elapsed.Microseconds())/float64(n))
	cpu := func(ru syscall.Rusage) time.Duration {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	t.Logf("process CPU time during the sweep: %v (user %v, system %v)",
		(cpu(ruAfter) - cpu(ruBefore)).Round(time.Millisecond),
		time.Duration(ruAfter.Utime.Nano()-ruBefore.Utime.Nano()).Round(time.Millisecond),
		time.Duration(ruAfter.Stime.Nano()-ruBefore.Stime.Nano()).Round(time.Millisecond))
	t.Logf("heap in use: before %.1f MB, peak %.1f MB (+%.1f MB), after %.1f MB",
		mb(before.HeapInuse), mb(peakHeap.Load()), mb(peakHeap.Load())-mb(before.HeapInuse), mb(after.HeapInuse))
	t.Logf("Sys: before %.1f MB, after %.1f MB (+%.1f MB); RSS before %s, peak during sweep %s",
		mb(before.Sys), mb(after.Sys), mb(after.Sys)-mb(before.Sys), rssBefore, procStatus("VmHWM"))
	if got := k.Count("notifications", "kind = 'APPOINTMENT_REMINDER'"); got != 2*n {
		t.Fatalf("%d reminder notifications, want %d", got, 2*n)
	}
	if !notifications.WaitIdle(k.App, time.Minute) {
		t.Fatal("delivery queue did not drain")
	}
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// procStatus reads one field of /proc/self/status ("" elsewhere).
func procStatus(field string) string {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
