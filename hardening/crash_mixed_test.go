package hardening_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/internal/timefmt"
	"camellos/modules/users"
	_ "camellos/pb_migrations"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// mixedFixtures is the data the mixed write load needs, written into the
// data dir before the binary starts.
type mixedFixtures struct {
	clientCookie, camelloCookie string
	service                     string
	jobs                        []string // ASIGNADO, client ↔ camello (bookings, messages)
	open                        []string // PENDIENTE, no provider, in the camello's service (quotes)
}

// prepareMixed migrates a new data dir and writes a client, an ACTIVO
// camello open 06:00–22:00 every day, ASIGNADO and open jobs between them,
// and a session for each.
func prepareMixed(t *testing.T, dir string, nJobs, nOpen int) mixedFixtures {
	t.Helper()
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		t.Fatal(err)
	}
	defer app.ResetBootstrapState()
	if err := app.RunAllMigrations(); err != nil {
		t.Fatal(err)
	}
	save := func(col string, fields map[string]any) *core.Record {
		c, err := app.FindCollectionByNameOrId(col)
		if err != nil {
			t.Fatal(err)
		}
		rec := core.NewRecord(c)
		for k, v := range fields {
			rec.Set(k, v)
		}
		if c.IsAuth() {
			rec.SetPassword("secreto-123")
		}
		if err := app.Save(rec); err != nil {
			t.Fatalf("save %s: %v", col, err)
		}
		return rec
	}
	cat := save("categories", map[string]any{"id": "cat-crash", "name": "Hogar", "nameKey": "hogar"})
	svc := save("services", map[string]any{"name": "Plomería", "slug": "plomeria", "category": cat.Id})
	client := save(users.Collection, map[string]any{"email": "cliente@crash.test", "name": "Cliente Crash", "role": users.RoleClient, "city": "Bogotá"})
	camUser := save(users.Collection, map[string]any{"email": "camello@crash.test", "name": "Camello Crash", "role": users.RoleCamello, "city": "Bogotá"})
	cam := save("camellos", map[string]any{"user": camUser.Id, "name": "Camello Crash", "trades": []string{"plomería"}, "status": "ACTIVO",
		"services": []string{svc.Id}, "phone": "3001234567", "city": "Bogotá", "cityKey": "bogota", "timezone": "America/Bogota"})
	weekly := []map[string]any{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
	}
	save("availability", map[string]any{"camello": cam.Id, "timezone": "America/Bogota", "weekly": weekly, "blockedDates": []string{}})
	fx := mixedFixtures{service: svc.Id}
	for i := 0; i < nJobs; i++ {
		j := save("jobs", map[string]any{"title": fmt.Sprintf("Trabajo %d", i), "description": "Arreglo", "status": "ASIGNADO", "source": "EXPLORE",
			"city": "Bogotá", "neighborhood": "Centro", "service": svc.Id, "client": client.Id, "provider": cam.Id})
		fx.jobs = append(fx.jobs, j.Id)
	}
	for i := 0; i < nOpen; i++ {
		j := save("jobs", map[string]any{"title": fmt.Sprintf("Abierto %d", i), "description": "Arreglo", "status": "PENDIENTE", "source": "EXPLORE",
			"city": "Bogotá", "neighborhood": "Centro", "service": svc.Id, "client": client.Id})
		fx.open = append(fx.open, j.Id)
	}
	var err error
	if fx.clientCookie, err = session.CreateSession(app, client, "127.0.0.1", "crash"); err != nil {
		t.Fatal(err)
	}
	if fx.camelloCookie, err = session.CreateSession(app, camUser, "127.0.0.1", "crash"); err != nil {
		t.Fatal(err)
	}
	return fx
}

// ack is one acknowledged write: the table and id it must be found in,
// and the status the row must hold ("" = any).
type ack struct {
	kind, table, id, field, want string
}

// TestCrashDuringMixedWrites runs the real binary under the mixed write
// load of the marketplace (bookings, job posts, and — where the routes
// exist on this branch — quotes, accepts and messages), kills it with
// SIGKILL, restarts it on the same data dir: every acknowledged write is
// there with the state it was acknowledged in, and integrity_check is ok.
func TestCrashDuringMixedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Setenv("AUTH_IP_LIMIT", "0")
	bin := binary(t)
	data := testkit.MigratedDir(t) // the schema, as the binary migrates it
	fx := prepareMixed(t, data, 80, 400)
	srv, base := startServer(t, bin, data)
	client := &http.Client{Timeout: 10 * time.Second}

	post := func(ctx context.Context, path, cookie string, body any) (int, []byte, error) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie})
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, out, nil
	}
	// Which write routes this branch has (an empty body is enough to tell).
	exists := func(path, cookie string) bool {
		st, body, err := post(context.Background(), path, cookie, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		return st != http.StatusNotFound && st != http.StatusMethodNotAllowed || bytes.Contains(body, []byte(`"issues"`)) && !bytes.Contains(body, []byte(httpapi.MsgRouteNotFound))
	}
	haveQuotes := exists("/api/jobs/"+fx.open[len(fx.open)-1]+"/quotes", fx.camelloCookie)
	haveMessages := exists("/api/jobs/"+fx.jobs[len(fx.jobs)-1]+"/messages", fx.clientCookie)
	t.Logf("write kinds: bookings, jobs, quotes+accepts %v, messages %v", haveQuotes, haveMessages)

	bogota, _ := time.LoadLocation("America/Bogota")
	d := time.Now().In(bogota).AddDate(0, 0, 2)
	day0 := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, bogota)
	var (
		mu     sync.Mutex
		acked  []ack
		slot   atomic.Int64
		opened atomic.Int64
		msgs   atomic.Int64
		wg     sync.WaitGroup
	)
	record := func(a ack) {
		mu.Lock()
		acked = append(acked, a)
		mu.Unlock()
	}
	idOf := func(body []byte, key string) string {
		var out map[string]struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(body, &out)
		return out[key].ID
	}
	ctx, cancel := context.WithCancel(context.Background())
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for turn := g; ctx.Err() == nil; turn++ {
				switch turn % 4 {
				case 0: // a booking on the next free hour
					n := int(slot.Add(1)) - 1
					if n/10 >= len(fx.jobs) || n >= 56*16 {
						continue
					}
					start := day0.AddDate(0, 0, n/16).Add(time.Duration(6+n%16) * time.Hour).UTC()
					st, body, err := post(ctx, "/api/jobs/"+fx.jobs[n/10]+"/appointments", fx.clientCookie, map[string]any{"start": timefmt.ISO(start)})
					if err == nil && st == http.StatusCreated {
						record(ack{"booking", "appointments", idOf(body, "appointment"), "status", "PROGRAMADA"})
					}
				case 1: // a job post
					st, body, err := post(ctx, "/api/jobs", fx.clientCookie, map[string]any{"title": "Fuga en la cocina", "description": "Urgente",
						"serviceId": fx.service, "city": "Bogotá", "neighborhood": "Centro"})
					if err == nil && st == http.StatusCreated {
						record(ack{"job", "jobs", idOf(body, "job"), "status", "PENDIENTE"})
					}
				case 2: // a quote, then its accept
					if !haveQuotes {
						continue
					}
					n := int(opened.Add(1)) - 1
					if n >= len(fx.open) {
						continue
					}
					st, body, err := post(ctx, "/api/jobs/"+fx.open[n]+"/quotes", fx.camelloCookie, map[string]any{"amount": 120000, "message": "Voy mañana"})
					if err != nil || st != http.StatusCreated {
						continue
					}
					id := idOf(body, "quote")
					record(ack{"quote", "quotes", id, "", ""})
					st, _, err = post(ctx, "/api/quotes/"+id+"/accept", fx.clientCookie, map[string]any{})
					if err == nil && st == http.StatusOK {
						record(ack{"accept", "quotes", id, "status", "ACEPTADA"})
						record(ack{"accept", "jobs", fx.open[n], "status", "ASIGNADO"})
					}
				case 3: // a message
					if !haveMessages {
						continue
					}
					n := int(msgs.Add(1)) - 1
					st, body, err := post(ctx, "/api/jobs/"+fx.jobs[n%len(fx.jobs)]+"/messages", fx.clientCookie, map[string]any{"body": "¿A qué hora llega?"})
					if err == nil && st == http.StatusCreated {
						record(ack{"message", "messages", idOf(body, "message"), "", ""})
					}
				}
			}
		}(g)
	}
	// Kill once a fair number of writes were acknowledged.
	killWhen(t, srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}, 60)
	cancel()
	wg.Wait()
	mu.Lock()
	got := append([]ack(nil), acked...)
	mu.Unlock()
	kinds := map[string]int{}
	for _, a := range got {
		kinds[a.kind]++
	}
	if kinds["booking"] == 0 || kinds["job"] == 0 {
		t.Fatalf("too few writes acknowledged before the kill: %v", kinds)
	}

	db := restartAndCheck(t, bin, data)
	defer db.Close()
	for _, a := range got {
		if a.id == "" {
			t.Errorf("acknowledged %s without an id in the answer", a.kind)
			continue
		}
		var row dbx.NullStringMap = dbx.NullStringMap{}
		if err := db.Select("*").From(a.table).Where(dbx.HashExp{"id": a.id}).One(row); err != nil {
			t.Errorf("acknowledged %s %s lost after the crash: %v", a.kind, a.id, err)
			continue
		}
		if a.field != "" && row[a.field].String != a.want {
			t.Errorf("acknowledged %s: %s %s has %s = %q, want %q", a.kind, a.table, a.id, a.field, row[a.field].String, a.want)
		}
	}
	t.Logf("%d acknowledged writes survived SIGKILL: %v", len(got), kinds)
}
