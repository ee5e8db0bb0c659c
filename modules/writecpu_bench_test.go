package modules_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// BenchmarkWriteCPU is the in-process loop of issue 27's goal row "CPU
// time per API write" (bench/cpuwrite.go): one class of write per
// sub-benchmark, the same requests as the bench's writer, sent one after
// the other over HTTP to a testkit service. It reports the process's CPU
// (user + system, getrusage) per write as cpu-ms/op; wall time is not the
// measure (the machine may be busy). The "floor" row is a signed-in
// GET /api/me: the transport, the client and the middleware that every
// request pays, measured the same way.
//
//	go test ./modules -run x -bench WriteCPU -benchtime 400x
//
// With WRITECPU_PROFILE=dir, a CPU profile of each class's measured loop
// only (setup left out) is written to dir/write-CLASS.pprof.
func BenchmarkWriteCPU(b *testing.B) {
	b.Setenv("AUTH_IP_LIMIT", "0") // the load is not about the limits
	k := testkit.New(b)
	// PocketBase's request log as the service runs it (the test app turns
	// it off): every write is a row of auxiliary.db's _logs.
	k.App.Settings().Logs.MaxDays = 5
	svc := k.CreateService()
	bogota, err := time.LoadLocation("America/Bogota")
	if err != nil {
		b.Fatal(err)
	}
	day0 := time.Now().In(bogota).AddDate(0, 0, 1)
	day0 = time.Date(day0.Year(), day0.Month(), day0.Day(), 0, 0, 0, 0, bogota)
	weekly := []map[string]any{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
	}

	// lane is a client and a camello offering svc, open every day
	// 06:00–22:00, with n ASIGNADO jobs between them.
	type lane struct {
		client        *core.Record
		clientCookie  string
		camello       *core.Record
		camelloCookie string
		jobs          []string
	}
	newLane := func(b *testing.B, jobs int) *lane {
		l := &lane{}
		l.client, l.clientCookie = k.UserWithSession(users.RoleClient)
		_, l.camello, l.camelloCookie = k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
		if r := k.Put("/api/agenda/availability", l.camelloCookie, map[string]any{"weekly": weekly, "worksHolidays": true}); r.Status != 200 {
			b.Fatalf("availability: %d %s", r.Status, r.Raw)
		}
		for j := 0; j < jobs; j++ {
			l.jobs = append(l.jobs, k.CreateJob(testkit.JobOpts{Client: l.client, Provider: l.camello, Service: svc, Status: "ASIGNADO"}).Id)
		}
		return l
	}
	// quoters are camellos offering svc; open returns n open jobs of a client.
	var quoters []string
	for i := 0; i < 20; i++ {
		_, _, ck := k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
		quoters = append(quoters, ck)
	}
	open := func(client *core.Record, n int) []string {
		var ids []string
		for i := 0; i < n; i++ {
			ids = append(ids, k.CreateJob(testkit.JobOpts{Client: client, Service: svc}).Id)
		}
		return ids
	}
	sendQuote := func(b *testing.B, job string, i int) string {
		r := k.Post("/api/jobs/"+job+"/quotes", quoters[i%len(quoters)],
			map[string]any{"amount": 150000, "message": "Puedo ir mañana en la mañana, incluye materiales básicos", "validDays": 7})
		if r.Status != 201 {
			b.Fatalf("quote %d: %d %s", i, r.Status, r.Raw)
		}
		return r.Str("quote.id")
	}

	b.Run("floor", func(b *testing.B) {
		l := newLane(b, 0)
		measureWriteCPU(b, "floor", func(i int) {
			if r := k.Get("/api/me", l.clientCookie); r.Status != 200 {
				b.Fatalf("me: %d %s", r.Status, r.Raw)
			}
		})
	})
	b.Run("job", func(b *testing.B) {
		l := newLane(b, 0)
		body := map[string]any{"title": "Arreglo de tubería", "description": "Se rompió un tubo en la cocina, necesito ayuda esta semana",
			"serviceId": svc.Id, "city": "Bogotá", "neighborhood": "Chapinero"}
		measureWriteCPU(b, "job", func(i int) {
			if r := k.Post("/api/jobs", l.clientCookie, body); r.Status != 201 {
				b.Fatalf("job %d: %d %s", i, r.Status, r.Raw)
			}
		})
	})
	b.Run("message", func(b *testing.B) {
		l := newLane(b, 10)
		body := map[string]any{"body": "Hola, ¿a qué hora llega mañana? Dejo la llave con el portero."}
		measureWriteCPU(b, "message", func(i int) {
			if r := k.Post("/api/jobs/"+l.jobs[i%len(l.jobs)]+"/messages", l.clientCookie, body); r.Status != 201 {
				b.Fatalf("message %d: %d %s", i, r.Status, r.Raw)
			}
		})
	})
	b.Run("booking", func(b *testing.B) {
		// As the bench: ten bookings a job, sixteen a day a camello, at
		// most 57 days ahead (the horizon).
		const perLane = 57 * 16
		var lanes []*lane
		for n := 0; n < b.N; n += perLane {
			lanes = append(lanes, newLane(b, (min(b.N-n, perLane)+9)/10))
		}
		measureWriteCPU(b, "booking", func(i int) {
			l, n := lanes[i/perLane], i%perLane
			start := day0.AddDate(0, 0, n/16).Add(time.Duration(6+n%16) * time.Hour).UTC()
			if r := k.Post("/api/jobs/"+l.jobs[n/10]+"/appointments", l.clientCookie, map[string]any{"start": timefmt.ISO(start)}); r.Status != 201 {
				b.Fatalf("booking %d: %d %s", i, r.Status, r.Raw)
			}
		})
	})
	b.Run("quote", func(b *testing.B) {
		l := newLane(b, 0)
		jobs := open(l.client, b.N)
		measureWriteCPU(b, "quote", func(i int) { sendQuote(b, jobs[i], i) })
	})
	b.Run("accept", func(b *testing.B) {
		l := newLane(b, 0)
		jobs := open(l.client, b.N)
		quotes := make([]string, b.N)
		for i := range jobs {
			quotes[i] = sendQuote(b, jobs[i], i)
		}
		measureWriteCPU(b, "accept", func(i int) {
			if r := k.Post("/api/quotes/"+quotes[i]+"/accept", l.clientCookie, map[string]any{}); r.Status != 200 {
				b.Fatalf("accept %d: %d %s", i, r.Status, r.Raw)
			}
		})
	})
}

// measureWriteCPU runs do b.N times and reports the process's CPU time
// per call (cpu-ms/op), with a CPU profile of the loop when
// WRITECPU_PROFILE names a directory.
func measureWriteCPU(b *testing.B, class string, do func(i int)) {
	b.Helper()
	if dir := os.Getenv("WRITECPU_PROFILE"); dir != "" && b.N > 1 {
		f, err := os.Create(filepath.Join(dir, "write-"+class+".pprof"))
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			_ = f.Close()
		}()
	}
	c0 := processCPU(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		do(i)
	}
	b.StopTimer()
	cpu := processCPU(b) - c0
	b.ReportMetric(float64(cpu.Nanoseconds())/1e6/float64(b.N), "cpu-ms/op")
	if testing.Verbose() {
		fmt.Printf("write CPU %-8s %6d writes, %s CPU\n", class, b.N, cpu)
	}
}

// processCPU is this process's user + system time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
