package messages_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/messages"
	"camellos/modules/quotes"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// BenchmarkListCachesHeap fills the list caches as the large set's readers
// would (jobs with 5 quotes of 5 camellos, jobs with 5 messages, as the
// bench seeds them) and reports the live heap they hold, per job and in
// all, against the caches' bounds:
//
//	go test -run x -bench ListCachesHeap -benchtime 1x ./modules/messages/
func BenchmarkListCachesHeap(b *testing.B) {
	const jobsN = 4000
	k := testkit.New(b)
	client, clientCk := k.UserWithSession(users.RoleClient)
	svc := k.CreateService()
	cams := make([]*core.Record, 5)
	for i := range cams {
		_, cams[i], _ = k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	}
	now := time.Now().UTC()
	at := func(d time.Duration) string { return timefmt.DB(now.Add(d)) }
	err := k.App.RunInTransaction(func(tx core.App) error {
		exec := func(q string, p dbx.Params) error { _, err := tx.DB().NewQuery(q).Bind(p).Execute(); return err }
		for j := 0; j < 2*jobsN; j++ {
			id := fmt.Sprintf("heapjob%08d", j)
			status, provider := "PENDIENTE", ""
			if j >= jobsN {
				status, provider = "ASIGNADO", cams[j%5].Id
			}
			if err := exec("INSERT INTO jobs (id, title, description, status, source, city, cityKey, service, client, provider, created, updated) "+
				"VALUES ({:id}, 'Arreglar fuga', 'Descripción', {:st}, 'EXPLORE', 'Bogotá', 'bogota', {:svc}, {:cli}, {:prov}, {:at}, {:at})",
				dbx.Params{"id": id, "st": status, "svc": svc.Id, "cli": client.Id, "prov": provider, "at": at(-time.Hour)}); err != nil {
				return err
			}
			for i := 0; i < 5; i++ {
				if j < jobsN {
					err := exec("INSERT INTO quotes (id, job, camello, amount, currency, message, status, expiresAt, created, updated) "+
						"VALUES ({:id}, {:job}, {:cam}, 100000, 'COP', 'Puedo ir mañana en la mañana, incluye materiales básicos', 'PENDIENTE', {:exp}, {:at}, {:at})",
						dbx.Params{"id": fmt.Sprintf("hq%06d%d", j, i), "job": id, "cam": cams[i].Id, "exp": at(7 * 24 * time.Hour), "at": at(-time.Hour)})
					if err != nil {
						return err
					}
					continue
				}
				err := exec("INSERT INTO messages (id, job, camello, author, body, files, created) "+
					"VALUES ({:id}, {:job}, {:cam}, {:author}, 'Hola, ¿a qué hora llega mañana? Dejo la llave con el portero.', '[]', {:at})",
					dbx.Params{"id": fmt.Sprintf("hm%06d%d", j, i), "job": id, "cam": provider, "author": client.Id, "at": at(time.Duration(i-10) * time.Hour)})
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for _, list := range []string{"quotes", "messages"} {
		from := 0
		if list == "messages" {
			from = jobsN
		}
		k.Get(fmt.Sprintf("/api/jobs/heapjob%08d/%s", from, list), clientCk) // the shared parts (authors, summaries, pools)
		before := heap()
		for j := from; j < from+jobsN; j++ {
			if r := k.Get(fmt.Sprintf("/api/jobs/heapjob%08d/%s", j, list), clientCk); r.Status != 200 {
				b.Fatalf("%s: %d %s", list, r.Status, r.Raw)
			}
		}
		grown := float64(heap()-before) / jobsN
		var n int
		var cost int64
		if list == "quotes" {
			n, cost = quotes.CachedLists(k.App)
		} else {
			n, cost = messages.CachedLists(k.App)
		}
		b.Logf("%s: %d jobs cached (cost %d B each), live heap %.0f B per job (parties included); %d parties, %d summaries",
			list, n, cost/int64(n), grown, jobs.CachedParties(k.App), camellos.CachedSummaries(k.App))
		b.ReportMetric(grown, list+"-heap-B/job")
	}
}
