package quotes_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/quotes"
)

func TestOpenBoard(t *testing.T) {
	m := newMarket(t, 1)
	k := m.k
	bogota := m.openJob(t, "Bogotá")
	time.Sleep(5 * time.Millisecond)
	medellin := m.openJob(t, "Medellín")
	other := k.CreateJob(testkit.JobOpts{Client: m.client}) // another service
	assigned := k.CreateJob(testkit.JobOpts{Client: m.client, Service: m.service, Provider: m.cams[0], Status: "ASIGNADO"})
	direct := k.CreateJob(testkit.JobOpts{Client: m.client, Service: m.service, Provider: m.cams[0], Source: "PERFIL"})
	_, _, pendingCk := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE", Services: []string{m.service.Id}})
	_, _, suspendedCk := k.CreateCamello(testkit.CamelloOpts{Status: "SUSPENDIDO", Services: []string{m.service.Id}})

	expect(t, k.Get("/api/jobs/open", ""), 401, "No autorizado")
	expect(t, k.Get("/api/jobs/open", m.clientCookie), 403, quotes.MsgOnlyActiveBoard)
	expect(t, k.Get("/api/jobs/open", m.adminCookie), 403, quotes.MsgOnlyActiveBoard)
	expect(t, k.Get("/api/jobs/open", pendingCk), 403, quotes.MsgOnlyActiveBoard)
	expect(t, k.Get("/api/jobs/open", suspendedCk), 403, quotes.MsgOnlyActiveBoard)

	r := k.Get("/api/jobs/open", m.camCookies[0])
	expect(t, r, 200, "")
	if r.Get("total") != 2.0 || r.Str("jobs.0.id") != medellin || r.Str("jobs.1.id") != bogota {
		t.Fatalf("board: %s", r.Raw)
	}
	for _, leak := range []string{"Calle 10", "address", "phone", "email", other.Id, assigned.Id, direct.Id} {
		if strings.Contains(string(r.Raw), leak) {
			t.Errorf("board shows %q: %s", leak, r.Raw)
		}
	}
	for q, want := range map[string]string{"city=bogota": bogota, "city=MEDELLIN": medellin, "city=Medell%C3%ADn": medellin} {
		r := k.Get("/api/jobs/open?"+q, m.camCookies[0])
		if r.Get("total") != 1.0 || r.Str("jobs.0.id") != want {
			t.Errorf("%s: %s", q, r.Raw)
		}
	}
	if r := k.Get("/api/jobs/open?service="+other.GetString("service"), m.camCookies[0]); r.Get("total") != 0.0 {
		t.Errorf("foreign service filter: %s", r.Raw)
	}
	for _, q := range []string{"perPage=0", "perPage=101", "page=0", "service=a.b", "city=" + strings.Repeat("a", 121)} {
		expect(t, k.Get("/api/jobs/open?"+q, m.camCookies[0]), 400, httpapi.MsgInvalidData)
	}
	expect(t, k.Get("/api/jobs/open?perPage=100&city="+strings.Repeat("a", 120), m.camCookies[0]), 200, "")
	if r := k.Get("/api/jobs/open?perPage=1&page=2", m.camCookies[0]); r.Str("jobs.0.id") != bogota || r.Get("total") != 2.0 {
		t.Errorf("page 2: %s", r.Raw)
	}
}

func TestQuoteCreate(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	job := m.openJob(t, "Bogotá")
	path := "/api/jobs/" + job + "/quotes"

	t.Run("bounds", func(t *testing.T) {
		cases := []struct {
			body  map[string]any
			field string // "" → valid
		}{
			{map[string]any{}, "amount"},
			{map[string]any{"amount": 9999}, "amount"},
			{map[string]any{"amount": 100000001}, "amount"},
			{map[string]any{"amount": 10000.5}, "amount"},
			{map[string]any{"amount": "10000"}, "amount"},
			{map[string]any{"amount": 10000, "message": strings.Repeat("ñ", 1001)}, "message"},
			{map[string]any{"amount": 10000, "validDays": 0}, "validDays"},
			{map[string]any{"amount": 10000, "validDays": 31}, "validDays"},
			{map[string]any{"amount": 10000, "validDays": 1.5}, "validDays"},
		}
		for _, c := range cases {
			r := k.Post(path, m.camCookies[0], c.body)
			expect(t, r, 400, httpapi.MsgInvalidData)
			if len(r.FieldErrors(c.field)) == 0 {
				t.Errorf("%v: no %s error: %s", c.body, c.field, r.Raw)
			}
		}
		if n := k.Count("quotes", ""); n != 0 {
			t.Fatalf("%d quotes written by invalid requests", n)
		}
		valid := []map[string]any{
			{"amount": 10000, "message": strings.Repeat("ñ", 1000), "validDays": 1},
			{"amount": 100000000, "validDays": 30},
		}
		for i, b := range valid {
			r := k.Post(path, m.camCookies[i], b)
			expect(t, r, 201, "")
			if r.Get("quote.amount") != b["amount"].(int)*1.0+0 && r.Get("quote.amount") != float64(b["amount"].(int)) {
				t.Errorf("amount: %s", r.Raw)
			}
			if r.Str("quote.status") != "PENDIENTE" || r.Str("quote.currency") != "COP" || r.Str("quote.jobId") != job ||
				r.Str("quote.camello.id") != m.cams[i].Id || r.Get("quote.camello.ratingAvg") == nil {
				t.Errorf("quote: %s", r.Raw)
			}
			exp, _ := time.Parse(time.RFC3339, r.Str("quote.expiresAt"))
			want := time.Now().Add(time.Duration(b["validDays"].(int)) * 24 * time.Hour)
			if exp.Sub(want).Abs() > time.Minute {
				t.Errorf("expiresAt %s, want about %s", exp, want)
			}
		}
		if n := k.Count("notifications", "kind = 'QUOTE_RECEIVED' AND user = {:u}", map[string]any{"u": m.client.Id}); n != 2 {
			t.Errorf("%d QUOTE_RECEIVED notifications, want 2", n)
		}
	})

	t.Run("who and when", func(t *testing.T) {
		_, _, pendingCk := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE", Services: []string{m.service.Id}})
		_, _, suspendedCk := k.CreateCamello(testkit.CamelloOpts{Status: "SUSPENDIDO", Services: []string{m.service.Id}})
		_, _, noServiceCk := k.CreateCamello()
		_, other, otherCk := k.CreateCamello()
		body := map[string]any{"amount": 50000}
		expect(t, k.Post(path, "", body), 401, "No autorizado")
		expect(t, k.Post(path, m.clientCookie, body), 403, quotes.MsgOnlyCamellos)
		expect(t, k.Post(path, m.adminCookie, body), 403, quotes.MsgOnlyCamellos)
		expect(t, k.Post(path, pendingCk, body), 403, quotes.MsgCamelloInactive)
		expect(t, k.Post(path, suspendedCk, body), 403, quotes.MsgCamelloInactive)
		expect(t, k.Post(path, noServiceCk, body), 403, quotes.MsgCannotQuote)
		expect(t, k.Post(path, m.camCookies[0], body), 409, quotes.MsgAlreadyQuoted)
		expect(t, k.Post("/api/jobs/nosuchjob12345/quotes", m.camCookies[0], body), 404, jobs.MsgJobNotFound)
		expect(t, k.Post("/api/jobs/a.b/quotes", m.camCookies[0], body), 400, httpapi.MsgInvalidData)
		for _, st := range []string{"ASIGNADO", "EN_PROGRESO", "COMPLETADO", "CANCELADO"} {
			j := k.CreateJob(testkit.JobOpts{Client: m.client, Service: m.service, Provider: m.cams[1], Status: st})
			expect(t, k.Post("/api/jobs/"+j.Id+"/quotes", m.camCookies[0], body), 409, quotes.MsgJobNotPending)
		}
		// A direct request: only the camello it names may quote.
		direct := k.CreateJob(testkit.JobOpts{Client: m.client, Provider: other, Source: "PERFIL"})
		expect(t, k.Post("/api/jobs/"+direct.Id+"/quotes", m.camCookies[0], body), 403, quotes.MsgCannotQuote)
		expect(t, k.Post("/api/jobs/"+direct.Id+"/quotes", otherCk, body), 201, "")
		// A withdrawn quote makes room for a new one.
		id := k.Get(path, m.camCookies[0]).Str("quotes.0.id")
		expect(t, k.Post("/api/quotes/"+id+"/withdraw", m.camCookies[0], nil), 200, "")
		expect(t, k.Post(path, m.camCookies[0], body), 201, "")
	})

	t.Run("parallel twice", func(t *testing.T) {
		_, _, ck := k.CreateCamello(testkit.CamelloOpts{Services: []string{m.service.Id}})
		var wg sync.WaitGroup
		statuses := make([]int, 6)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = k.Post(path, ck, map[string]any{"amount": 20000 + i}).Status
			}()
		}
		wg.Wait()
		created := 0
		for _, s := range statuses {
			switch s {
			case 201:
				created++
			case 409:
			default:
				t.Fatalf("status %d", s)
			}
		}
		if created != 1 {
			t.Fatalf("%d quotes created, want 1 (%v)", created, statuses)
		}
	})
}

func TestQuotesListVisibility(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	job := m.openJob(t, "Bogotá")
	q0 := m.quote(t, 0, job, 30000)
	time.Sleep(5 * time.Millisecond)
	q1 := m.quote(t, 1, job, 40000)
	path := "/api/jobs/" + job + "/quotes"
	for _, ck := range []string{m.clientCookie, m.adminCookie} {
		r := k.Get(path, ck)
		if r.Status != 200 || len(r.Get("quotes").([]any)) != 2 || r.Str("quotes.0.id") != q1 || r.Str("quotes.1.id") != q0 {
			t.Fatalf("all quotes newest first: %s", r.Raw)
		}
	}
	if r := k.Get(path, m.camCookies[0]); len(r.Get("quotes").([]any)) != 1 || r.Str("quotes.0.id") != q0 {
		t.Fatalf("own quote only: %s", r.Raw)
	}
	expect(t, k.Get(path, m.strangerCk), 403, "No autorizado")
	expect(t, k.Get(path, ""), 401, "No autorizado")
	// A camello that neither quoted nor may quote the job.
	_, _, outsider := k.CreateCamello()
	expect(t, k.Get(path, outsider), 403, "No autorizado")
	// One that may quote but has not yet: an empty list.
	_, _, newcomer := k.CreateCamello(testkit.CamelloOpts{Services: []string{m.service.Id}})
	if r := k.Get(path, newcomer); r.Status != 200 || len(r.Get("quotes").([]any)) != 0 {
		t.Fatalf("newcomer: %s", r.Raw)
	}
	expect(t, k.Get("/api/jobs/nosuchjob12345/quotes", m.clientCookie), 404, "")
	if strings.Contains(string(k.Get(path, m.clientCookie).Raw), "Calle 10") {
		t.Fatal("quotes show the address")
	}
}

func TestAcceptRejectWithdraw(t *testing.T) {
	m := newMarket(t, 3)
	k := m.k
	job := m.openJob(t, "Bogotá")
	q0 := m.quote(t, 0, job, 30000)
	q1 := m.quote(t, 1, job, 45000)
	q2 := m.quote(t, 2, job, 60000)

	// Only the job's client decides; only the quote's camello withdraws.
	expect(t, k.Post("/api/quotes/"+q0+"/accept", m.strangerCk, nil), 403, quotes.MsgOnlyJobClient)
	expect(t, k.Post("/api/quotes/"+q0+"/accept", m.camCookies[0], nil), 403, quotes.MsgOnlyJobClient)
	expect(t, k.Post("/api/quotes/"+q0+"/accept", m.adminCookie, nil), 403, quotes.MsgOnlyJobClient)
	expect(t, k.Post("/api/quotes/"+q0+"/reject", m.camCookies[0], nil), 403, quotes.MsgOnlyJobClient)
	expect(t, k.Post("/api/quotes/"+q0+"/withdraw", m.camCookies[1], nil), 403, quotes.MsgOnlyQuoteCamello)
	expect(t, k.Post("/api/quotes/"+q0+"/withdraw", m.clientCookie, nil), 403, quotes.MsgOnlyQuoteCamello)
	expect(t, k.Post("/api/quotes/nosuchquote123/accept", m.clientCookie, nil), 404, quotes.MsgQuoteNotFound)
	expect(t, k.Post("/api/quotes/a.b/accept", m.clientCookie, nil), 400, httpapi.MsgInvalidData)
	expect(t, k.Post("/api/quotes/"+q0+"/accept", "", nil), 401, "No autorizado")

	r := k.Post("/api/quotes/"+q2+"/withdraw", m.camCookies[2], nil)
	expect(t, r, 200, "")
	if r.Str("quote.status") != "RETIRADA" {
		t.Fatalf("withdraw: %s", r.Raw)
	}
	expect(t, k.Post("/api/quotes/"+q2+"/withdraw", m.camCookies[2], nil), 409, quotes.MsgQuoteNotPending)
	expect(t, k.Post("/api/quotes/"+q2+"/accept", m.clientCookie, nil), 409, quotes.MsgQuoteNotPending)

	r = k.Post("/api/quotes/"+q0+"/accept", m.clientCookie, nil)
	expect(t, r, 200, "")
	if r.Str("job.status") != "ASIGNADO" || r.Str("job.provider.id") != m.cams[0].Id || r.Get("job.price.amount") != 30000.0 ||
		r.Str("job.price.currency") != "COP" || r.Str("quote.status") != "ACEPTADA" || r.Str("job.address") == "" {
		t.Fatalf("accept: %s", r.Raw)
	}
	want := map[string]string{q0: "ACEPTADA", q1: "RECHAZADA", q2: "RETIRADA"}
	for id, st := range want {
		if got := reload(t, k, "quotes", id).GetString("status"); got != st {
			t.Errorf("quote %s: %s, want %s", id, got, st)
		}
	}
	camUser := func(i int) string { return m.cams[i].GetString("user") }
	for kind, user := range map[string]string{"QUOTE_ACCEPTED": camUser(0), "QUOTE_REJECTED": camUser(1)} {
		if n := k.Count("notifications", "kind = {:k} AND user = {:u}", map[string]any{"k": kind, "u": user}); n != 1 {
			t.Errorf("%s: %d notifications", kind, n)
		}
	}
	expect(t, k.Post("/api/quotes/"+q1+"/accept", m.clientCookie, nil), 409, quotes.MsgQuoteNotPending)
	expect(t, k.Post("/api/quotes/"+q0+"/accept", m.clientCookie, nil), 409, quotes.MsgQuoteNotPending)
	expect(t, k.Post("/api/quotes/"+q1+"/reject", m.clientCookie, nil), 409, quotes.MsgQuoteNotPending)
	// The assigned camello now reads the address; the others never did.
	if r := k.Get("/api/jobs/"+job, m.camCookies[0]); r.Str("job.address") == "" || r.Get("job.price.amount") != 30000.0 {
		t.Errorf("assigned camello: %s", r.Raw)
	}
	// A later quote on the assigned job is refused.
	expect(t, k.Post("/api/jobs/"+job+"/quotes", m.camCookies[1], map[string]any{"amount": 10000}), 409, quotes.MsgJobNotPending)

	// Reject of a live quote.
	job2 := m.openJob(t, "Cali")
	q := m.quote(t, 1, job2, 15000)
	r = k.Post("/api/quotes/"+q+"/reject", m.clientCookie, nil)
	if r.Status != 200 || r.Str("quote.status") != "RECHAZADA" {
		t.Fatalf("reject: %s", r.Raw)
	}
}

func TestExpiredQuotes(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	job := m.openJob(t, "Bogotá")
	r := k.Post("/api/jobs/"+job+"/quotes", m.camCookies[0], map[string]any{"amount": 20000, "validDays": 1})
	q := r.Str("quote.id")
	live := m.quote(t, 1, job, 25000)
	clock.Set(k.App, func() time.Time { return time.Now().Add(25 * time.Hour) })
	defer clock.Set(k.App, nil)
	list := k.Get("/api/jobs/"+job+"/quotes", m.clientCookie)
	for _, it := range list.Get("quotes").([]any) {
		it := it.(map[string]any)
		want := map[string]string{q: "VENCIDA", live: "PENDIENTE"}[it["id"].(string)]
		if it["status"] != want {
			t.Errorf("quote %v reads %v, want %s", it["id"], it["status"], want)
		}
	}
	expect(t, k.Post("/api/quotes/"+q+"/accept", m.clientCookie, nil), 409, quotes.MsgQuoteExpired)
	expect(t, k.Post("/api/quotes/"+q+"/withdraw", m.camCookies[0], nil), 409, quotes.MsgQuoteExpired)
	// The camello may quote again: the expired quote no longer blocks.
	expect(t, k.Post("/api/jobs/"+job+"/quotes", m.camCookies[0], map[string]any{"amount": 21000}), 201, "")
	if got := reload(t, k, "quotes", q).GetString("status"); got != "VENCIDA" {
		t.Errorf("expired quote stored as %s", got)
	}
	// The sweep marks the rest.
	n, err := quotes.ExpireDue(k.App, time.Now().Add(9*24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("sweep: %d %v", n, err)
	}
}

// TestParallelAccepts: ten accepts of ten different quotes of one job at
// once → exactly one 200, the others 409, one provider, one ACEPTADA.
func TestParallelAccepts(t *testing.T) {
	m := newMarket(t, 10)
	k := m.k
	job := m.openJob(t, "Bogotá")
	ids := make([]string, 10)
	for i := range ids {
		ids[i] = m.quote(t, i, job, 10000+i*1000)
	}
	statuses := make([]int, 10)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = k.Post("/api/quotes/"+ids[i]+"/accept", m.clientCookie, nil).Status
		}()
	}
	wg.Wait()
	winner := -1
	for i, s := range statuses {
		switch s {
		case 200:
			if winner >= 0 {
				t.Fatalf("two winners: %v", statuses)
			}
			winner = i
		case 409:
		default:
			t.Fatalf("status %d: %v", s, statuses)
		}
	}
	if winner < 0 {
		t.Fatalf("no winner: %v", statuses)
	}
	j := reload(t, k, "jobs", job)
	if j.GetString("provider") != m.cams[winner].Id || j.GetString("status") != "ASIGNADO" || j.GetInt("priceAmount") != 10000+winner*1000 {
		t.Fatalf("job: provider %s status %s price %d", j.GetString("provider"), j.GetString("status"), j.GetInt("priceAmount"))
	}
	if n := k.Count("quotes", "status = 'ACEPTADA'"); n != 1 {
		t.Fatalf("%d ACEPTADA", n)
	}
	if n := k.Count("quotes", "status = 'RECHAZADA'"); n != 9 {
		t.Fatalf("%d RECHAZADA", n)
	}
}

// TestAcceptRacesAssign: a quote accept racing an admin assignment of
// another camello → exactly one provider, and the quote's state agrees.
func TestAcceptRacesAssign(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	for round := 0; round < 8; round++ {
		job := m.openJob(t, "Bogotá")
		q := m.quote(t, 0, job, 50000)
		var wg sync.WaitGroup
		var accept, assign int
		wg.Add(2)
		go func() {
			defer wg.Done()
			accept = k.Post("/api/quotes/"+q+"/accept", m.clientCookie, nil).Status
		}()
		go func() {
			defer wg.Done()
			assign = k.Post("/api/admin/jobs/"+job+"/assign", m.adminCookie, map[string]any{"camelloId": m.cams[1].Id}).Status
		}()
		wg.Wait()
		if (accept == 200) == (assign == 200) || (accept != 200 && accept != 409) || (assign != 200 && assign != 409) {
			t.Fatalf("round %d: accept %d, assign %d", round, accept, assign)
		}
		j := reload(t, k, "jobs", job)
		st := reload(t, k, "quotes", q).GetString("status")
		switch {
		case accept == 200 && (j.GetString("provider") != m.cams[0].Id || st != "ACEPTADA" || j.GetInt("priceAmount") != 50000):
			t.Fatalf("round %d: accept won but provider %s, quote %s", round, j.GetString("provider"), st)
		case assign == 200 && (j.GetString("provider") != m.cams[1].Id || st != "RECHAZADA" || j.GetInt("priceAmount") != 0):
			t.Fatalf("round %d: assign won but provider %s, quote %s", round, j.GetString("provider"), st)
		}
	}
}

// TestAssignmentsRejectLiveQuotes: an admin assignment and a camello
// accepting a direct request close the job's live quotes.
func TestAssignmentsRejectLiveQuotes(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	job := m.openJob(t, "Bogotá")
	q0, q1 := m.quote(t, 0, job, 20000), m.quote(t, 1, job, 30000)
	expect(t, k.Post("/api/admin/jobs/"+job+"/assign", m.adminCookie, map[string]any{"camelloId": m.cams[1].Id}), 200, "")
	for _, id := range []string{q0, q1} {
		if st := reload(t, k, "quotes", id).GetString("status"); st != "RECHAZADA" {
			t.Errorf("after assign quote %s is %s", id, st)
		}
	}

	direct := k.Post("/api/jobs", m.clientCookie, map[string]any{"title": "Pintar sala", "serviceId": m.service.Id, "city": "Bogotá", "camelloId": m.cams[0].Id}).Str("job.id")
	q := m.quote(t, 0, direct, 80000)
	expect(t, k.Post("/api/jobs/"+direct+"/accept", m.camCookies[0], nil), 200, "")
	if st := reload(t, k, "quotes", q).GetString("status"); st != "RECHAZADA" {
		t.Errorf("after the camello accepted the request, its quote is %s", st)
	}
	if n := k.Count("notifications", "kind = 'QUOTE_REJECTED'"); n != 3 {
		t.Errorf("%d QUOTE_REJECTED, want 3", n)
	}
}

// TestQuoteRecordRules: the dashboard (record saves) obeys the same rules.
func TestQuoteRecordRules(t *testing.T) {
	m := newMarket(t, 1)
	k := m.k
	job := m.openJob(t, "Bogotá")
	col, _ := k.App.FindCollectionByNameOrId("quotes")
	save := func(fields map[string]any) error {
		rec := newRecord(col, fields)
		return k.App.Save(rec)
	}
	future := time.Now().Add(48 * time.Hour)
	base := func() map[string]any {
		return map[string]any{"job": job, "camello": m.cams[0].Id, "amount": 20000, "status": "PENDIENTE", "expiresAt": future}
	}
	bad := []func(map[string]any){
		func(f map[string]any) { f["amount"] = 9999 },
		func(f map[string]any) { f["currency"] = "USD" },
		func(f map[string]any) { f["status"] = "ACEPTADA" },
		func(f map[string]any) { f["expiresAt"] = time.Now().Add(-time.Hour) },
		func(f map[string]any) {
			f["job"] = k.CreateJob(testkit.JobOpts{Client: m.client, Service: m.service, Status: "CANCELADO"}).Id
		},
	}
	for i, change := range bad {
		f := base()
		change(f)
		if err := save(f); err == nil {
			t.Errorf("case %d saved", i)
		}
	}
	if err := save(base()); err != nil {
		t.Fatal(err)
	}
	rec, _ := k.App.FindFirstRecordByData("quotes", "job", job)
	rec.Set("status", "ACEPTADA")
	if err := k.App.Save(rec); err == nil {
		t.Error("dashboard accepted a quote without assigning the job")
	}
	rec.Set("status", "RECHAZADA")
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	rec.Set("status", "PENDIENTE")
	if err := k.App.Save(rec); err == nil {
		t.Error("a rejected quote came back")
	}
	_ = fmt.Sprint
	_ = http.StatusOK
}

// TestQuotedDirectRequest: the camello named by a direct request quotes it,
// and the client's acceptance assigns the job to it at that price.
func TestQuotedDirectRequest(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	direct := k.Post("/api/jobs", m.clientCookie, map[string]any{"title": "Pintar la sala", "serviceId": m.service.Id,
		"city": "Bogotá", "camelloId": m.cams[0].Id}).Str("job.id")
	expect(t, k.Post("/api/jobs/"+direct+"/quotes", m.camCookies[1], map[string]any{"amount": 10000}), 403, quotes.MsgCannotQuote)
	q := m.quote(t, 0, direct, 250000)
	r := k.Post("/api/quotes/"+q+"/accept", m.clientCookie, nil)
	expect(t, r, 200, "")
	if r.Str("job.status") != "ASIGNADO" || r.Str("job.provider.id") != m.cams[0].Id || r.Get("job.price.amount") != 250000.0 {
		t.Fatalf("accepted direct request: %s", r.Raw)
	}
	// A suspended camello's quote cannot be accepted, and nothing changes.
	job := m.openJob(t, "Bogotá")
	q1 := m.quote(t, 1, job, 30000)
	m.cams[1].Set("status", "SUSPENDIDO")
	if err := k.App.Save(m.cams[1]); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Post("/api/quotes/"+q1+"/accept", m.clientCookie, nil), 409, "El camello no está activo")
	if st := reload(t, k, "quotes", q1).GetString("status"); st != "PENDIENTE" {
		t.Fatalf("refused accept left the quote %s", st)
	}
	if j := reload(t, k, "jobs", job); j.GetString("status") != "PENDIENTE" || j.GetString("provider") != "" {
		t.Fatalf("refused accept changed the job")
	}
}

// TestCancelledJobClosesQuotes: cancelling a job rejects its live quotes in
// the same transaction.
func TestCancelledJobClosesQuotes(t *testing.T) {
	m := newMarket(t, 2)
	k := m.k
	job := m.openJob(t, "Bogotá")
	q0, q1 := m.quote(t, 0, job, 20000), m.quote(t, 1, job, 30000)
	expect(t, k.Post("/api/quotes/"+q1+"/withdraw", m.camCookies[1], nil), 200, "")
	expect(t, k.Post("/api/jobs/"+job+"/cancel", m.clientCookie, nil), 200, "")
	if st := reload(t, k, "quotes", q0).GetString("status"); st != "RECHAZADA" {
		t.Errorf("live quote after cancel: %s", st)
	}
	if st := reload(t, k, "quotes", q1).GetString("status"); st != "RETIRADA" {
		t.Errorf("withdrawn quote after cancel: %s", st)
	}
	expect(t, k.Post("/api/quotes/"+q0+"/accept", m.clientCookie, nil), 409, quotes.MsgQuoteNotPending)
	if n := k.Count("notifications", "kind = 'QUOTE_REJECTED' AND user = {:u}", map[string]any{"u": m.cams[0].GetString("user")}); n != 1 {
		t.Errorf("%d QUOTE_REJECTED to the camello", n)
	}
}
