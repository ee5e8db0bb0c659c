package jobs_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestBoardPatchesAndCompactionsStayExact: 1,200 patches (titles
// edited, prices set, jobs moved to another service or city, cancelled,
// posted) applied to the packed board while readers page it. The
// replaced entries are compacted away more than once (the store shrinks
// back near the open jobs' count), and afterwards the board equals a
// fresh build and every page equals the SQL answer, byte for byte.
func TestBoardPatchesAndCompactionsStayExact(t *testing.T) {
	const n = 300
	k := testkit.New(t)
	client := k.CreateUser(users.RoleClient)
	var svcs []string
	for range 4 {
		svcs = append(svcs, k.CreateService().Id)
	}
	cities := [][2]string{{"Bogotá", "bogota"}, {"Medellín", "medellin"}, {"Santa Marta", "santa marta"}}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	service := map[string]string{}
	insert := func(db dbx.Builder, i int) (string, error) {
		id := fmt.Sprintf("cjob%011d", i)
		at := timefmt.DB(base.Add(time.Duration(i%(n/2)) * time.Minute)) // ties on created
		c := cities[i%len(cities)]
		service[id] = svcs[i%len(svcs)]
		_, err := db.Insert(jobs.Collection, dbx.Params{"id": id, "title": fmt.Sprint("Trabajo ", i), "description": "Gotea <mucho> & \"siempre\"",
			"status": jobs.StatusPending, "source": "WEB", "city": c[0], "cityKey": c[1], "neighborhood": "Centro", "service": service[id],
			"client": client.Id, "provider": "", "address": "Calle 1", "priceAmount": 0, "created": at, "updated": at}).Execute()
		return id, err
	}
	var ids []string
	err := k.App.RunInTransaction(func(tx core.App) error {
		for i := range n {
			id, err := insert(tx.DB(), i)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	page := func(services []string, city string, p httpapi.Page) []byte {
		body, release, err := jobs.BoardPage(k.App, services, city, p)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		return bytes.Clone(body)
	}
	page(svcs, "", httpapi.Page{Page: 1, PerPage: 20}) // built

	// Readers page the board while it is patched (run with -race).
	var stop atomic.Bool
	var wg sync.WaitGroup
	var read atomic.Int64
	for r := range 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				body, release, err := jobs.BoardPage(k.App, svcs[r:r+2], "", httpapi.Page{Page: 1 + i%5, PerPage: 20})
				if err != nil || !bytes.HasPrefix(body, []byte(`{"jobs":[`)) {
					t.Errorf("read during patches: %v %q", err, body)
					return
				}
				release()
				read.Add(1)
				runtime.Gosched()
			}
		}()
	}
	exec := func(q string, params dbx.Params) {
		t.Helper()
		if _, err := k.App.DB().NewQuery(q).Bind(params).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	minEntries, compactions, prev := 1<<30, 0, 0
	next := n
	for i := range 1200 {
		id := ids[(i*7919)%len(ids)]
		old := service[id]
		switch i % 10 {
		case 0, 1, 2, 3, 4: // an edit
			exec("UPDATE jobs SET title = {:t}, updated = {:u} WHERE id = {:id}", dbx.Params{"t": fmt.Sprint("Editado ", i), "u": timefmt.DB(base.Add(time.Duration(i) * time.Second)), "id": id})
		case 5: // a price
			exec("UPDATE jobs SET priceAmount = {:p} WHERE id = {:id}", dbx.Params{"p": 1000 * i, "id": id})
		case 6: // another service
			service[id] = svcs[(i/10)%len(svcs)]
			exec("UPDATE jobs SET service = {:s} WHERE id = {:id}", dbx.Params{"s": service[id], "id": id})
		case 7: // another city
			c := cities[(i/10)%len(cities)]
			exec("UPDATE jobs SET city = {:c}, cityKey = {:k} WHERE id = {:id}", dbx.Params{"c": c[0], "k": c[1], "id": id})
		case 8: // cancelled, or open again
			exec("UPDATE jobs SET status = CASE status WHEN 'PENDIENTE' THEN 'CANCELADO' ELSE 'PENDIENTE' END WHERE id = {:id}", dbx.Params{"id": id})
		case 9: // a new job
			nid, err := insert(k.App.DB(), next)
			if err != nil {
				t.Fatal(err)
			}
			next++
			ids = append(ids, nid)
			id, old = nid, ""
		}
		jobs.RefreshBoardJob(k.App, id, old)
		entries, _ := jobs.BoardEntries(k.App)
		if entries == 0 {
			t.Fatalf("patch %d dropped the board", i)
		}
		if entries < prev {
			compactions++
		}
		prev = entries
		minEntries = min(minEntries, entries)
	}
	stop.Store(true)
	wg.Wait()
	if compactions < 2 {
		t.Fatalf("%d compactions in 1,200 patches", compactions)
	}
	var open int
	if err := k.App.DB().NewQuery("SELECT COUNT(*) FROM jobs WHERE status = 'PENDIENTE' AND provider = ''").Row(&open); err != nil {
		t.Fatal(err)
	}
	if entries, dead := jobs.BoardEntries(k.App); entries-dead != open {
		t.Fatalf("%d entries, %d dead, for %d open jobs", entries, dead, open)
	}
	if diffs, err := jobs.BoardDiffs(k.App); err != nil || diffs != 0 {
		t.Fatalf("the patched board differs from a fresh build in %d places (%v)", diffs, err)
	}
	compared := 0
	for _, services := range [][]string{svcs, svcs[:1], svcs[1:3]} {
		for _, city := range []string{"", "medellin", "Santa Marta"} {
			for _, per := range []int{7, 100} {
				for pg := 1; pg <= n/per+2; pg++ {
					p := httpapi.Page{Page: pg, PerPage: per}
					got := bytes.TrimSpace(page(services, city, p))
					want := boardPageSQL(t, k.App, services, text.Fold(city), p)
					if !bytes.Equal(got, want) {
						t.Fatalf("services %v city %q page %d/%d:\n got %s\nwant %s", services, city, pg, per, got, want)
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d compactions, the store at least %d entries; %d pages read during the patches, %d compared after", compactions, minEntries, read.Load(), compared)
}

// TestBoardBuildsTheSameWithOneOrTwoReaders: a board built by two readers
// (each half of the rowids, rendering as they read) and one built by the
// one reader of idx_jobs_open are the same, and every page of either is
// the SQL's answer byte for byte: with most jobs open (two readers scan
// the table) and with few (one reader walks the index), with closed jobs
// between the open ones, ties on created, created in another form, texts
// that need escaping, a client's name, reviews and a price.
func TestBoardBuildsTheSameWithOneOrTwoReaders(t *testing.T) {
	for _, tc := range []struct {
		name     string
		openEach int // one job in openEach is open
	}{{"most open", 1}, {"a third closed", 3}, {"few open", 7}} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 700
			k := testkit.New(t)
			named := k.CreateUser(users.RoleClient)
			if _, err := k.App.DB().NewQuery("UPDATE users SET name = {:n} WHERE id = {:id}").Bind(dbx.Params{"n": "Ana <María> \"la\" \u2028", "id": named.Id}).Execute(); err != nil {
				t.Fatal(err)
			}
			other := k.CreateUser(users.RoleClient)
			var svcs []string
			for range 3 {
				svcs = append(svcs, k.CreateService().Id)
			}
			cities := [][2]string{{"Bogotá", "bogota"}, {"Medellín", "medellin"}, {"Santa Marta", "santa marta"}}
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			err := k.App.RunInTransaction(func(tx core.App) error {
				for i := range n {
					status, open := jobs.StatusCancelled, i%tc.openEach == 0
					if open {
						status = jobs.StatusPending
					}
					client := other.Id
					if i%5 == 0 {
						client = named.Id
					}
					at := timefmt.DB(base.Add(time.Duration(i%(n/3)) * time.Minute)) // ties on created
					if i%150 == 0 {
						at = strings.Replace(at, ".000Z", "Z", 1) // another form: the first service sorts by its text
					}
					c := cities[i%len(cities)]
					if _, err := tx.DB().Insert(jobs.Collection, dbx.Params{"id": fmt.Sprintf("rjob%011d", i), "title": fmt.Sprint("Trabajo <", i, ">"),
						"description": "Gotea\tmucho & \"siempre\" \xff", "status": status, "source": "WEB", "city": c[0], "cityKey": c[1], "neighborhood": "Centro",
						"service": svcs[i%len(svcs)], "client": client, "provider": "", "address": "Calle 1", "priceAmount": (i % 4) * 1500,
						"created": at, "updated": at}).Execute(); err != nil {
						return err
					}
				}
				// Reviews of some open jobs (raw rows: no route makes one),
				// read by batch as the subquery read them by row.
				for i := 0; i < n; i += 13 * tc.openEach {
					if _, err := tx.DB().NewQuery("INSERT INTO reviews (id, job, camello, client, rating, comment, sealed, publishAt, created) " +
						"VALUES ({:id}, {:job}, 'cam', {:client}, 5, 'Bien', FALSE, '', '2026-01-01 10:00:00.000Z')").
						Bind(dbx.Params{"id": fmt.Sprintf("rv%013d", i), "job": fmt.Sprintf("rjob%011d", i), "client": other.Id}).Execute(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			defer jobs.BoardTwoReadersFrom(1)()
			var open int
			for _, services := range [][]string{svcs, svcs[1:2]} {
				for _, city := range []string{"", "medellin"} {
					for _, per := range []int{9, 100} {
						for pg := 1; pg <= n/per+2; pg++ {
							p := httpapi.Page{Page: pg, PerPage: per}
							body, release, err := jobs.BoardPage(k.App, services, city, p)
							if err != nil {
								t.Fatal(err)
							}
							got := bytes.TrimSpace(bytes.Clone(body))
							release()
							if want := boardPageSQL(t, k.App, services, text.Fold(city), p); !bytes.Equal(got, want) {
								t.Fatalf("services %v city %q page %d/%d:\n got %s\nwant %s", services, city, pg, per, got, want)
							}
							open++
						}
					}
				}
			}
			jobs.BoardTwoReadersFrom(1 << 40) // the check builds with one reader
			if diffs, err := jobs.BoardDiffs(k.App); err != nil || diffs != 0 {
				t.Fatalf("the board built by two readers differs from one built by one in %d places (%v)", diffs, err)
			}
			if entries, dead := jobs.BoardEntries(k.App); entries != (n+tc.openEach-1)/tc.openEach || dead != 0 {
				t.Fatalf("%d entries (%d dead)", entries, dead)
			}
		})
	}
}
