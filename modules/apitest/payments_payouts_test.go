package apitest_test

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/payments"
)

// released pays the world's current job and has an admin release it.
func (w *payWorld) released(t *testing.T) string {
	t.Helper()
	id, _ := w.held(t)
	testkit.Expect(t, w.K.Post("/api/payments/"+id+"/release", w.AdminCookie, nil), http.StatusOK, "")
	return id
}

// TestPayoutBatch: nothing owed is a 409; two admins running batches at
// once pay each balance exactly once; the bank file; marking paid (races:
// one wins) or failed (the balance is owed again and the next batch pays
// it); roles; the camello's months.
func TestPayoutBatch(t *testing.T) {
	w := newPayWorld(t, nil)
	k, app := w.K, w.K.App
	testkit.Expect(t, k.Post("/api/admin/payouts/batches", w.AdminCookie, nil), 409, payments.MsgNoBalances)

	w.released(t)
	w.job = w.pricedJob(t)
	w.released(t)
	_, cam2, cam2Cookie := k.CreateCamello(testkit.CamelloOpts{Name: "=HIPERVINCULO(1)"})
	w.job = k.CreateJob(testkit.JobOpts{Client: w.Client})
	if err := jobs.AssignQuoted(app, w.job.Id, cam2.Id, 50_000); err != nil {
		t.Fatal(err)
	}
	w.released(t)
	fee := payments.Commission(price, 10)
	owed := map[string]int64{w.Camello.Id: 2 * (price - fee), cam2.Id: 50_000 - payments.Commission(50_000, 10)}

	_, admin2 := k.UserWithSession("ADMIN")
	var wg sync.WaitGroup
	results := make(chan *testkit.Response, 6)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := w.AdminCookie
			if i%2 == 1 {
				c = admin2
			}
			results <- k.Post("/api/admin/payouts/batches", c, nil)
		}()
	}
	wg.Wait()
	close(results)
	var batch *testkit.Response
	for r := range results {
		switch r.Status {
		case 201:
			if batch != nil {
				t.Fatal("two batches paid")
			}
			batch = r
		case 409:
		default:
			t.Fatalf("batch answered %d %s", r.Status, r.Raw)
		}
	}
	if batch == nil || batch.Get("total") != float64(owed[w.Camello.Id]+owed[cam2.Id]) {
		t.Fatalf("batch: %v", batch)
	}
	for cam := range owed {
		if b := balance(t, app, ledger.AccountOfCamello(cam)); b != 0 {
			t.Fatalf("balance of %s after the batch: %d", cam, b)
		}
	}
	if n := k.Count("payouts", "1 = 1"); n != 2 {
		t.Fatalf("%d payouts", n)
	}

	// The bank file.
	r := k.Get(batch.Str("csvUrl"), w.AdminCookie)
	testkit.Expect(t, r, 200, "")
	rows, err := csv.NewReader(strings.NewReader(string(r.Raw))).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][5] != "monto_cop" {
		t.Fatalf("csv %v: %q", err, r.Raw)
	}
	for _, row := range rows[1:] {
		if strconv.FormatInt(owed[row[1]], 10) != row[5] {
			t.Fatalf("csv row %v", row)
		}
		if row[1] == cam2.Id && row[2] != "'=HIPERVINCULO(1)" {
			t.Fatalf("a formula is not escaped: %v", row)
		}
	}
	testkit.Expect(t, k.Get("/api/admin/payouts/batches/zzzzzzzzzzzzzzz/csv", w.AdminCookie), 404, payments.MsgBatchNotFound)

	// Mark one paid (two admins: one wins), the other failed.
	list := k.Get("/api/admin/payouts?status=PENDIENTE", w.AdminCookie)
	testkit.Expect(t, list, 200, "")
	var paidID, failedID string
	for _, p := range list.Get("payouts").([]any) {
		m := p.(map[string]any)
		if m["camelloId"] == w.Camello.Id {
			paidID = m["id"].(string)
		} else {
			failedID = m["id"].(string)
		}
	}
	codes := make(chan int, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := w.AdminCookie
			if i%2 == 1 {
				c = admin2
			}
			codes <- k.Post("/api/admin/payouts/"+paidID+"/paid", c, map[string]any{"reference": "BANCO-123"}).Status
		}()
	}
	wg.Wait()
	close(codes)
	ok := 0
	for c := range codes {
		if c == 200 {
			ok++
		} else if c != 409 {
			t.Fatalf("paid answered %d", c)
		}
	}
	if ok != 1 {
		t.Fatalf("%d marks", ok)
	}
	testkit.Expect(t, k.Post("/api/admin/payouts/"+failedID+"/failed", w.AdminCookie, nil), 200, "")
	testkit.Expect(t, k.Post("/api/admin/payouts/"+failedID+"/paid", w.AdminCookie, nil), 409, payments.MsgPayoutNotPending)
	if b := -balance(t, app, ledger.AccountOfCamello(cam2.Id)); b != owed[cam2.Id] {
		t.Fatalf("a failed payout is owed again: %d", b)
	}
	again := k.Post("/api/admin/payouts/batches", w.AdminCookie, nil)
	testkit.Expect(t, again, 201, "")
	if again.Get("total") != float64(owed[cam2.Id]) {
		t.Fatalf("the next batch pays the failed one only: %s", again.Raw)
	}
	testkit.Expect(t, k.Get("/api/admin/payouts?status=OTRO", w.AdminCookie), 400, "Datos inválidos")
	testkit.Expect(t, k.Post("/api/admin/payouts/zzzzzzzzzzzzzzz/paid", w.AdminCookie, nil), 404, payments.MsgPayoutNotFound)

	// Roles.
	for _, tc := range []struct {
		name, cookie string
		status       int
	}{{"anonymous", "", 401}, {"client", w.ClientCookie, 403}, {"camello", w.CamCookie, 403}} {
		for _, r := range []*testkit.Response{
			k.Post("/api/admin/payouts/batches", tc.cookie, nil), k.Get(batch.Str("csvUrl"), tc.cookie),
			k.Get("/api/admin/payouts", tc.cookie), k.Post("/api/admin/payouts/"+paidID+"/paid", tc.cookie, nil),
		} {
			if r.Status != tc.status {
				t.Fatalf("%s: %d %s", tc.name, r.Status, r.Raw)
			}
		}
	}

	// The camello's months: earned, commission, paid out.
	m := k.Get("/api/me/earnings/monthly", w.CamCookie)
	testkit.Expect(t, m, 200, "")
	month := m.Get("months").([]any)[0].(map[string]any)
	if month["earned"] != float64(2*price) || month["commission"] != float64(2*fee) || month["paidOut"] != float64(2*(price-fee)) || month["net"] != float64(0) {
		t.Fatalf("months: %s", m.Raw)
	}
	if m.Get("balance") != float64(0) || !strings.HasPrefix(month["month"].(string), w.clock().Format("2006-01")) {
		t.Fatalf("months: %s", m.Raw)
	}
	testkit.Expect(t, k.Get("/api/me/earnings/monthly", w.ClientCookie), 403, "")
	testkit.Expect(t, k.Get("/api/me/earnings/monthly", cam2Cookie), 200, "")
	verified(t, app)
}
