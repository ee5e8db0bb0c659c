package quotes_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/internal/text"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// sqlBoard is the open board as the route answered it before the
// in-memory projection: the caller's camello, then one SQL query for the
// page and one for the total, the records rendered by jobs.JSON without
// the address, encoded as e.JSON encodes. The projection must answer
// these bytes exactly.
func sqlBoard(t *testing.T, app core.App, userID, city, service string, p httpapi.Page) (int, string) {
	t.Helper()
	cam := jobs.CamelloOfUser(app, userID)
	if cam == nil || cam.GetString("status") != camellos.StatusActive {
		return 403, ""
	}
	services := []any{}
	for _, s := range cam.GetStringSlice("services") {
		if service == "" || s == service {
			services = append(services, s)
		}
	}
	var body bytes.Buffer
	if len(services) == 0 {
		if err := json.NewEncoder(&body).Encode(p.Answer("jobs", []any{}, 0)); err != nil {
			t.Fatal(err)
		}
		return 200, body.String()
	}
	where := dbx.And(dbx.In("service", services...), dbx.HashExp{"status": jobs.StatusPending, "provider": ""})
	if city != "" {
		where = dbx.And(where, dbx.HashExp{"cityKey": text.Fold(city)})
	}
	var total int64
	if err := app.DB().Select("COUNT(*)").From(jobs.Collection).Where(where).Row(&total); err != nil {
		t.Fatal(err)
	}
	recs := []*core.Record{}
	if err := app.RecordQuery(jobs.Collection).Where(where).OrderBy("created DESC", "id DESC").
		Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs); err != nil {
		t.Fatal(err)
	}
	list, err := jobs.JSON(app, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range list {
		delete(j, "address")
	}
	if err := json.NewEncoder(&body).Encode(p.Answer("jobs", list, total)); err != nil {
		t.Fatal(err)
	}
	return 200, body.String()
}

// boardWorld is a camello with three services, clients posting jobs in two
// cities, another camello that quotes, and an admin.
type boardWorld struct {
	k                   *testkit.Kit
	svcs                []string
	other               string
	camUser, cam        *core.Record
	camCk               string
	quoter              *core.Record
	quoterCk            string
	clients             []*core.Record
	clientCks           []string
	adminCk             string
	cities              []string
	n                   int
	comparedPages, hits int
}

func newBoardWorld(t *testing.T) *boardWorld {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	w := &boardWorld{k: k, cities: []string{"Bogotá", "Medellín", "Santa Marta"}}
	w.svcs = []string{k.CreateService().Id, k.CreateService().Id, k.CreateService().Id}
	w.other = k.CreateService().Id
	w.camUser, w.cam, w.camCk = k.CreateCamello(testkit.CamelloOpts{Services: w.svcs})
	_, w.quoter, w.quoterCk = k.CreateCamello(testkit.CamelloOpts{Services: append([]string{w.other}, w.svcs...)})
	for i := 0; i < 3; i++ {
		c, ck := k.UserWithSession(users.RoleClient, testkit.UserOpts{Name: fmt.Sprintf("Cliente %d", i)})
		w.clients = append(w.clients, c)
		w.clientCks = append(w.clientCks, ck)
	}
	_, w.adminCk = k.UserWithSession(users.RoleAdmin)
	return w
}

// post makes client c post an open job in service svc.
func (w *boardWorld) post(t *testing.T, c int, svc string) string {
	t.Helper()
	w.n++
	r := w.k.Post("/api/jobs", w.clientCks[c], map[string]any{
		"title": fmt.Sprintf("Trabajo %d", w.n), "description": "Arreglo <urgente> & rápido", "serviceId": svc,
		"city": w.cities[w.n%len(w.cities)], "neighborhood": "Centro", "address": "Calle 1 # 2-3",
	})
	if r.Status != 201 {
		t.Fatalf("post job: %d %s", r.Status, r.Raw)
	}
	return r.Str("job.id")
}

// get answers the board's raw body.
func (w *boardWorld) get(t *testing.T, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, w.k.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: w.camCk})
	res, err := w.k.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// compare asks the board every page of several page sizes, with and
// without a city and a service, and compares each answer byte for byte
// with the SQL answer.
func (w *boardWorld) compare(t *testing.T, after string) {
	t.Helper()
	for _, city := range []string{"", "bogota", " MEDELLÍN ", "Cali"} {
		for _, service := range []string{"", w.svcs[1], w.other} {
			for _, per := range []int{1, 3, 20, 100} {
				for page := 1; ; page++ {
					p := httpapi.Page{Page: page, PerPage: per}
					path := fmt.Sprintf("/api/jobs/open?page=%d&perPage=%d&city=%s&service=%s", page, per, strings.ReplaceAll(city, " ", "%20"), service)
					status, got := w.get(t, path)
					wantStatus, want := sqlBoard(t, w.k.App, w.camUser.Id, strings.TrimSpace(city), service, p)
					if status != wantStatus || (status == 200 && got != want) {
						t.Fatalf("after %s: %s\n got %d %s\nwant %d %s", after, path, status, got, wantStatus, want)
					}
					w.comparedPages++
					if status != 200 {
						return
					}
					var body struct {
						Jobs  []any `json:"jobs"`
						Total int   `json:"total"`
					}
					if err := json.Unmarshal([]byte(got), &body); err != nil {
						t.Fatal(err)
					}
					w.hits += len(body.Jobs)
					if (page-1)*per >= body.Total {
						break
					}
				}
			}
		}
	}
}

// TestBoardProjectionEqualsSQL: the in-memory open board answers exactly
// what the SQL did (bodies compared byte for byte, every page of several
// page sizes, city and service filters), right after each kind of write:
// jobs posted, edited, cancelled, assigned by an admin and by an accepted
// quote, dashboard saves and deletes of jobs, client renames, service and
// category renames, a review, the camello's services and status, an
// erased client, and raw SQL commits from another connection.
func TestBoardProjectionEqualsSQL(t *testing.T) {
	w := newBoardWorld(t)
	k := w.k
	var ids []string
	for i := 0; i < 9; i++ {
		svc := w.svcs[i%3]
		if i%4 == 3 {
			svc = w.other
		}
		ids = append(ids, w.post(t, i%2, svc))
	}
	// A direct request names a camello: never on the board.
	if r := k.Post("/api/jobs", w.clientCks[0], map[string]any{"title": "Directo", "serviceId": w.svcs[0], "city": "Bogotá", "camelloId": w.cam.Id}); r.Status != 201 {
		t.Fatalf("direct request: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "the first build")

	ids = append(ids, w.post(t, 0, w.svcs[2]))
	w.compare(t, "a job posted")

	if r := k.Patch("/api/jobs/"+ids[0], w.clientCks[0], map[string]any{"description": "Ahora con \"comillas\" y <b>"}); r.Status != 200 {
		t.Fatalf("edit: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "a job edited")
	// A client whose only open job is edited (its client entry is shared).
	only := w.post(t, 2, w.svcs[1])
	w.compare(t, "a job posted by a third client")
	if r := k.Patch("/api/jobs/"+only, w.clientCks[2], map[string]any{"description": "Única"}); r.Status != 200 {
		t.Fatalf("edit: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "the only job of a client edited")

	if r := k.Post("/api/jobs/"+ids[1]+"/cancel", w.clientCks[1], nil); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "a job cancelled")

	if r := k.Post("/api/admin/jobs/"+ids[2]+"/assign", w.adminCk, map[string]any{"camelloId": w.quoter.Id}); r.Status != 200 {
		t.Fatalf("assign: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "a job assigned by an admin")

	q := k.Post("/api/jobs/"+ids[4]+"/quotes", w.quoterCk, map[string]any{"amount": 50000})
	if q.Status != 201 {
		t.Fatalf("quote: %d %s", q.Status, q.Raw)
	}
	w.compare(t, "a quote")
	if r := k.Post("/api/quotes/"+q.Str("quote.id")+"/accept", w.clientCks[0], nil); r.Status != 200 {
		t.Fatalf("accept: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "a quote accepted")

	// Dashboard saves: title, service, city and a price on an open job.
	rec, err := k.App.FindRecordById(jobs.Collection, ids[5])
	if err != nil {
		t.Fatal(err)
	}
	rec.Set("title", "Movido por el panel")
	rec.Set("service", w.svcs[0])
	rec.Set("city", "Bogotá D.C.")
	rec.Set("priceAmount", 120000)
	rec.Set("description", "Línea\u2028separada\tcon\x01control – y \xff inválido \\ fin"+strings.Repeat(" <a&b>", 250))
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "a dashboard save")
	rec, _ = k.App.FindRecordById(jobs.Collection, ids[6])
	if err := k.App.Delete(rec); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "a dashboard delete")

	// The client's name, the service's and the category's names.
	c := w.clients[0]
	c.Set("name", "Ana <María> & Co")
	if err := k.App.Save(c); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "a client renamed")
	svc, _ := k.App.FindRecordById("services", w.svcs[0])
	svc.Set("name", "Plomería renombrada")
	if err := k.App.Save(svc); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "a service renamed")
	cat, err := k.App.FindRecordById("categories", svc.GetString("category"))
	if err != nil {
		t.Fatal(err)
	}
	cat.Set("name", "Categoría renombrada")
	if err := k.App.Save(cat); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "a category renamed")

	// A review saved from the dashboard on an open job is refused (reviews
	// need a completed job with that camello, camellos.OnReviewValidate),
	// and the board is unchanged.
	col, _ := k.App.FindCollectionByNameOrId(camellos.ReviewsCollection)
	review := core.NewRecord(col)
	review.Set("job", ids[0])
	review.Set("camello", w.cam.Id)
	review.Set("client", w.clients[0].Id)
	review.Set("rating", 4)
	if err := k.App.Save(review); err == nil {
		t.Fatal("a review of an open job was saved")
	}
	w.compare(t, "a refused review")

	// The camello's services, then its status.
	cam, _ := k.App.FindRecordById(camellos.Collection, w.cam.Id)
	cam.Set("services", []string{w.svcs[0], w.other})
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "the camello's services changed")
	cam.Set("status", camellos.StatusSuspended)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	if st, _ := w.get(t, "/api/jobs/open"); st != 403 {
		t.Fatalf("suspended camello: %d", st)
	}
	w.compare(t, "the camello suspended")
	cam.Set("status", camellos.StatusActive)
	cam.Set("services", w.svcs)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "the camello active again")

	// A client erases the account: the open jobs go (cancelled).
	w.post(t, 1, w.svcs[0])
	w.compare(t, "another job posted")
	if r := k.Delete("/api/me", w.clientCks[1], map[string]any{"password": testkit.DefaultPassword}); r.Status != 200 {
		t.Fatalf("erase: %d %s", r.Status, r.Raw)
	}
	w.compare(t, "a client erased")
	// A client deleted from the dashboard: its jobs go with it (cascade).
	if err := k.App.Delete(w.clients[2]); err != nil {
		t.Fatal(err)
	}
	w.compare(t, "a client deleted from the dashboard")

	// Raw SQL from another connection (another process): a title, ties on
	// created across services, a client's name, a job cancelled and one
	// posted, none seen by a record hook.
	for i := 0; i < 4; i++ {
		w.post(t, 0, w.svcs[i%3])
	}
	w.compare(t, "more jobs posted")
	db, err := sql.Open("sqlite", filepath.Join(k.App.DataDir(), "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rawExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rawExec("UPDATE jobs SET title = 'Cambiado por SQL' WHERE id = ?", ids[0])
	w.compare(t, "a raw SQL title")
	rawExec("UPDATE jobs SET created = '2026-01-01 10:00:00.000Z' WHERE status = 'PENDIENTE'")
	w.compare(t, "raw SQL ties on created")
	rawExec("UPDATE jobs SET created = '2026-01-01 10:00:00Z', updated = '2026-02-03T04:05:06.789Z' WHERE id = ?", ids[7])
	w.compare(t, "raw SQL dates in another form")
	rawExec("UPDATE users SET name = 'Nombre por SQL' WHERE id = ?", w.clients[0].Id)
	w.compare(t, "a raw SQL rename")
	rawExec("UPDATE jobs SET status = 'CANCELADO' WHERE id = ?", ids[3])
	w.compare(t, "a raw SQL cancel")
	rawExec(`INSERT INTO jobs (id, title, description, status, source, city, cityKey, neighborhood, service, client, provider, address, priceAmount, created, updated)
		VALUES ('rawjob000000001', 'Insertado por SQL', '', 'PENDIENTE', 'ADMIN', 'Medellín', 'medellin', '', ?, ?, '', '', 0, '2026-01-01 10:00:00.000Z', '2026-01-01 10:00:00.000Z')`,
		w.svcs[1], w.clients[0].Id)
	w.compare(t, "a raw SQL insert")
	rawExec("UPDATE camellos SET services = ? WHERE id = ?", `["`+w.svcs[1]+`"]`, w.cam.Id)
	w.compare(t, "the camello's services by raw SQL")
	rawExec("UPDATE camellos SET status = 'SUSPENDIDO' WHERE id = ?", w.cam.Id)
	if st, _ := w.get(t, "/api/jobs/open"); st != 403 {
		t.Fatalf("camello suspended by raw SQL: %d", st)
	}
	rawExec("UPDATE camellos SET status = 'ACTIVO', services = ? WHERE id = ?", `["`+strings.Join(w.svcs, `","`)+`"]`, w.cam.Id)
	w.compare(t, "the camello active again by raw SQL")

	// The own writes still patch the rebuilt board.
	w.post(t, 0, w.svcs[1])
	w.compare(t, "a job posted after the rebuild")
	if w.hits == 0 || w.comparedPages < 500 {
		t.Fatalf("compared %d pages, %d jobs: the test compares too little", w.comparedPages, w.hits)
	}
	t.Logf("compared %d pages (%d jobs) with the SQL answer", w.comparedPages, w.hits)
}

// TestBoardAccessUnchanged: who may read the board and the 400s, as before.
func TestBoardAccessUnchanged(t *testing.T) {
	w := newBoardWorld(t)
	k := w.k
	_, _, pendingCamCk := k.CreateCamello(testkit.CamelloOpts{Status: camellos.StatusPending, Services: w.svcs})
	for name, tc := range map[string]struct {
		cookie, path string
		status       int
	}{
		"anonymous":        {"", "/api/jobs/open", 401},
		"client":           {w.clientCks[0], "/api/jobs/open", 403},
		"admin":            {w.adminCk, "/api/jobs/open", 403},
		"pending camello":  {pendingCamCk, "/api/jobs/open", 403},
		"bad page":         {w.camCk, "/api/jobs/open?page=0", 400},
		"bad perPage":      {w.camCk, "/api/jobs/open?perPage=101", 400},
		"bad service":      {w.camCk, "/api/jobs/open?service=no.es.un.id", 400},
		"long city":        {w.camCk, "/api/jobs/open?city=" + strings.Repeat("a", 121), 400},
		"fields picking":   {w.camCk, "/api/jobs/open?fields=total", 200},
		"foreign service":  {w.camCk, "/api/jobs/open?service=" + w.other, 200},
		"active camello":   {w.camCk, "/api/jobs/open", 200},
		"active, any page": {w.camCk, "/api/jobs/open?page=" + strconv.Itoa(httpapi.MaxPage), 200},
	} {
		if r := k.Get(tc.path, tc.cookie); r.Status != tc.status {
			t.Errorf("%s: %d %s, want %d", name, r.Status, r.Raw, tc.status)
		}
	}
	if r := k.Get("/api/jobs/open?fields=total", w.camCk); strings.TrimSpace(string(r.Raw)) != `{"total":0}` {
		t.Errorf("fields: %s", r.Raw)
	}
}

// TestBoardExactAfterConcurrentWrites: jobs posted, edited and cancelled
// by several clients at once while the board is read: once the writes are
// answered the board equals the SQL answer (patches re-read the database,
// so hooks running in any order end at its state).
func TestBoardExactAfterConcurrentWrites(t *testing.T) {
	w := newBoardWorld(t)
	k := w.k
	for i := 0; i < 6; i++ {
		w.post(t, i%3, w.svcs[i%3])
	}
	w.compare(t, "the first build")
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for c := 0; c < 3; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				r := k.Post("/api/jobs", w.clientCks[c], map[string]any{"title": fmt.Sprintf("Concurrente %d-%d", c, i), "serviceId": w.svcs[(c+i)%3], "city": w.cities[i%3]})
				if r.Status != 201 {
					errs <- fmt.Sprintf("post: %d %s", r.Status, r.Raw)
					return
				}
				id := r.Str("job.id")
				switch i % 3 {
				case 1:
					r = k.Patch("/api/jobs/"+id, w.clientCks[c], map[string]any{"description": fmt.Sprintf("editado %d", i)})
				case 2:
					r = k.Post("/api/jobs/"+id+"/cancel", w.clientCks[c], nil)
				}
				if r.Status >= 300 {
					errs <- fmt.Sprintf("write: %d %s", r.Status, r.Raw)
					return
				}
			}
		}(c)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 30; i++ {
			if r := k.Get("/api/jobs/open?perPage=5", w.camCk); r.Status != 200 {
				errs <- fmt.Sprintf("read: %d %s", r.Status, r.Raw)
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	w.compare(t, "concurrent writes")
}
