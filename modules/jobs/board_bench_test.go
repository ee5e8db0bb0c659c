package jobs_test

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/catalog"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// BenchmarkBoard: CPU per call, in process, of the open board at
// CAMELLOS_BOARD_JOBS open jobs (20,000; as many assigned ones beside
// them, as at the bench's growth points) over 20 services — a page of a
// camello with 3 services from the projection against the plain indexed
// query it replaces (the same page and total, rendered as jobs.JSON), and
// the patch one job's write applies to the projection, the live heap the
// built board holds per open job (build: heap-B/job) and a cold build
// (rebuild: wall and CPU time)
// (go test -run x -bench Board -benchtime 2000x ./modules/jobs).
func BenchmarkBoard(b *testing.B) {
	n := 20_000
	if s := os.Getenv("CAMELLOS_BOARD_JOBS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	k := testkit.New(b)
	client := k.CreateUser(users.RoleClient)
	var svcs []string
	for range 20 {
		svcs = append(svcs, k.CreateService().Id)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	err := k.App.RunInTransaction(func(tx core.App) error {
		for i := range n {
			id := fmt.Sprintf("bjob%011d", i)
			ids = append(ids, id)
			at := timefmt.DB(base.Add(time.Duration(i) * time.Minute))
			if _, err := tx.DB().Insert(jobs.Collection, dbx.Params{"id": id, "title": "Arreglo " + id, "description": "Se daña la llave del lavaplatos, gotea día y noche",
				"status": jobs.StatusPending, "source": "WEB", "city": "Bogotá", "cityKey": "bogota", "neighborhood": "Chapinero", "service": svcs[i%len(svcs)],
				"client": client.Id, "provider": "", "address": "Calle 1", "priceAmount": 0, "created": at, "updated": at}).Execute(); err != nil {
				return err
			}
			if _, err := tx.DB().Insert(jobs.Collection, dbx.Params{"id": fmt.Sprintf("ajob%011d", i), "title": "Asignado", "description": "Hecho",
				"status": jobs.StatusAssigned, "source": "WEB", "city": "Bogotá", "cityKey": "bogota", "neighborhood": "Chapinero", "service": svcs[i%len(svcs)],
				"client": client.Id, "provider": "", "address": "Calle 1", "priceAmount": 0, "created": at, "updated": at}).Execute(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	mine := svcs[:3]
	p := httpapi.Page{Page: 1, PerPage: 20}
	heapBefore, cpuBefore := liveHeap(), processCPU()
	if _, release, err := jobs.BoardPage(k.App, mine, "", p); err != nil { // built before it is timed
		b.Fatal(err)
	} else {
		release()
	}
	buildCPU := processCPU() - cpuBefore
	perJob := float64(liveHeap()-heapBefore) / float64(n)
	b.Run("build", func(b *testing.B) { // the live heap the built board holds, the CPU its build took
		for range b.N {
		}
		b.ReportMetric(perJob, "heap-B/job")
		b.ReportMetric(float64(buildCPU)/float64(n), "build-cpu-ns/job")
	})
	b.Run("rebuild", func(b *testing.B) {
		cpuPerOp(b, func(int) {
			if err := jobs.BuildBoard(k.App); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("page/projection", func(b *testing.B) {
		cpuPerOp(b, func(int) {
			body, release, err := jobs.BoardPage(k.App, mine, "", p)
			if err != nil || len(body) < 1000 {
				b.Fatal(err, len(body))
			}
			release()
		})
	})
	b.Run("page/sql", func(b *testing.B) {
		cpuPerOp(b, func(int) {
			if body := boardPageSQL(b, k.App, mine, "", p); len(body) < 1000 {
				b.Fatal(len(body))
			}
		})
	})
	b.Run("patch", func(b *testing.B) {
		cpuPerOp(b, func(i int) { jobs.RefreshBoardJob(k.App, ids[(i*7919)%len(ids)]) })
	})
}

// liveHeap is the live heap after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// cpuPerOp reports the process's CPU time (user + system) per iteration
// of fn: less sensitive than ns/op to a machine busy with other work.
func cpuPerOp(b *testing.B, fn func(i int)) {
	start := processCPU()
	for i := range b.N {
		fn(i)
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's CPU time so far (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// boardPageSQL is the page as the SQL the board replaced answers it:
// idx_jobs_open's rows of the services (in one folded city when cityKey
// is not ""), newest first, with their clients'
// names, reviews and services, counted and rendered like jobs.JSON.
func boardPageSQL(b testing.TB, app core.App, services []string, cityKey string, p httpapi.Page) []byte {
	var rows []jobs.BoardRow
	in := []any{}
	for _, s := range services {
		in = append(in, s)
	}
	where := dbx.And(dbx.HashExp{"status": jobs.StatusPending, "provider": ""}, dbx.In("service", in...))
	if cityKey != "" {
		where = dbx.And(where, dbx.HashExp{"cityKey": cityKey})
	}
	var total int
	if err := app.DB().Select("COUNT(*)").From(jobs.Collection).Where(where).Row(&total); err != nil {
		b.Fatal(err)
	}
	err := app.DB().Select("id", "created", "updated", "title", "description", "source", "city", "neighborhood", "service", "client", "priceAmount",
		"COALESCE((SELECT u.name FROM users u WHERE u.id = jobs.client), '') AS clientName",
		"EXISTS (SELECT 1 FROM reviews r WHERE r.job = jobs.id) AS reviewed").
		From(jobs.Collection).Where(where).OrderBy("created DESC", "id DESC").Limit(int64(p.PerPage)).Offset(int64(p.Offset())).All(&rows)
	if err != nil {
		b.Fatal(err)
	}
	refs, err := catalog.ServiceRefs(app, services)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		var price any
		if n := int(r.PriceAmount); n > 0 {
			price = map[string]any{"amount": n, "currency": jobs.Currency}
		}
		out = append(out, map[string]any{"id": r.ID, "title": r.Title, "description": r.Description, "status": jobs.StatusPending,
			"source": r.Source, "city": r.City, "neighborhood": r.Neighborhood, "price": price, "service": refs[r.Service], "provider": nil,
			"clientId": r.Client, "client": map[string]any{"id": r.Client, "name": r.ClientName}, "reviewed": r.Reviewed,
			"createdAt": timefmt.ISOOfStored(r.Created), "updatedAt": timefmt.ISOOfStored(r.Updated)})
	}
	body, err := json.Marshal(p.Answer("jobs", out, int64(total)))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkParties: CPU per call of a job's parties (read by every quote
// and message request) from the projection against the plain primary-key
// query it keeps (go test -run x -bench Parties ./modules/jobs).
func BenchmarkParties(b *testing.B) {
	k := testkit.New(b)
	client := k.CreateUser(users.RoleClient)
	job := k.CreateJob(testkit.JobOpts{Client: client})
	b.Run("projection", func(b *testing.B) {
		cpuPerOp(b, func(int) {
			if _, ok, err := jobs.PartiesOf(k.App, job.Id); !ok || err != nil {
				b.Fatal(ok, err)
			}
		})
	})
	b.Run("sql", func(b *testing.B) {
		cpuPerOp(b, func(int) {
			if _, ok, err := jobs.LoadParties(k.App, job.Id); !ok || err != nil {
				b.Fatal(ok, err)
			}
		})
	})
}
