package main

import (
	"database/sql"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"camellos/internal/mptest"
	"camellos/internal/session"
	"camellos/modules/payments"
	"camellos/modules/seed"
)

// TestPaymentSurvivesSIGKILL runs the real binary against the Mercado Pago
// test server (trusted through SSL_CERT_FILE) and kills it with SIGKILL
// three times: (1) after Mercado Pago created the checkout and before the
// service heard back and committed it; (2) right after a webhook's commit;
// (3) after Mercado Pago made a refund (the client cancelled) and before
// the service committed it. After each restart nothing is lost and nothing
// counted twice: one payment row, one checkout (the retry carries the same
// idempotency key), one charge, one hold, one refund at Mercado Pago (the
// CLI's sweep retries it with the same key), and `ledger verify` passes.
func TestPaymentSurvivesSIGKILL(t *testing.T) {
	mp := mptest.New(t)
	certFile := filepath.Join(t.TempDir(), "mp.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: mp.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"SSL_CERT_FILE":              certFile,
		"MERCADOPAGO_ACCESS_TOKEN":   mp.Token,
		"MERCADOPAGO_WEBHOOK_SECRET": mp.Secret,
		"MERCADOPAGO_API_URL":        mp.URL,
		"AUTH_IP_LIMIT":              "0",
		"REMINDERS_SCHEDULE":         "off",
	}
	dir := migratedDir(t)
	if r := cli(t, env, "seed", "--camellos", "2", "--clients", "1", "--dir", dir); r.code != 0 {
		t.Fatalf("seed: %d %s", r.code, r.stderr)
	}
	// Fixture: the demo client's assigned job gets an agreed price.
	db, err := sql.Open("sqlite", filepath.Join(dir, "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	var jobID string
	if err := db.QueryRow(`SELECT j.id FROM jobs j JOIN users u ON u.id = j.client WHERE u.email = ? AND j.status = 'ASIGNADO' AND j.provider != '' LIMIT 1`,
		seed.ClientEmail).Scan(&jobID); err != nil {
		t.Fatalf("no assigned job of the demo client: %v", err)
	}
	if _, err := db.Exec(`UPDATE jobs SET priceAmount = 150000 WHERE id = ?`, jobID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	url, stop := startServe(t, env, dir)
	cookie := signIn(t, url, seed.ClientEmail, seed.ClientPassword)
	post := func(url, path string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url+path, nil)
		req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie.Value})
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(raw)
	}

	// (1) Mercado Pago creates the checkout; its answer is held; SIGKILL.
	release := mp.Hold()
	t.Cleanup(release)
	answered := make(chan int, 1)
	go func() { s, _ := post(url, "/api/jobs/"+jobID+"/payment"); answered <- s }()
	for deadline := time.Now().Add(3 * time.Minute); mp.Preferences() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the service never called Mercado Pago")
		}
	}
	stop()
	release()
	if s := <-answered; s != 0 {
		t.Fatalf("the killed service answered %d", s)
	}
	// What the crash left: the row written before the call, INICIADO.
	if db, err = sql.Open("sqlite", filepath.Join(dir, "data.db")+"?mode=ro"); err != nil {
		t.Fatal(err)
	}
	var left string
	if err := db.QueryRow(`SELECT group_concat(status) FROM payments WHERE job = ?`, jobID).Scan(&left); err != nil || left != "INICIADO" {
		t.Fatalf("payments after the first kill: %q %v", left, err)
	}
	db.Close()
	url, stop = startServe(t, env, dir)
	status, body := post(url, "/api/jobs/"+jobID+"/payment")
	if status != http.StatusOK || !strings.Contains(body, `"status":"PENDIENTE"`) {
		t.Fatalf("retry after the crash: %d %s", status, body)
	}
	if mp.Preferences() != 1 || mp.Calls("POST /checkout/preferences") != 2 {
		t.Fatalf("preferences %d, calls %d", mp.Preferences(), mp.Calls("POST /checkout/preferences"))
	}
	paymentID := between(body, `"id":"`, `"`)
	pref := mp.PreferenceByRef(paymentID)
	if pref == nil {
		t.Fatalf("no checkout for payment %s", paymentID)
	}

	// (2) The approval's webhook commits; SIGKILL right after; Mercado Pago delivers it again.
	gid := mp.Pay(t, pref.ID, "approved", "accredited")
	mp.Webhook = url + payments.WebhookPath
	d := mp.Notification(gid)
	if s := mptest.Deliver(http.DefaultClient, d); s != http.StatusOK {
		t.Fatalf("webhook: %d", s)
	}
	stop()
	url, stop = startServe(t, env, dir)
	d.URL = url + strings.TrimPrefix(d.URL, mp.Webhook)
	if s := mptest.Deliver(http.DefaultClient, d); s != http.StatusOK {
		t.Fatalf("webhook again: %d", s)
	}
	if status, body := post(url, "/api/jobs/"+jobID+"/payment/check"); status != http.StatusOK || !strings.Contains(body, `"status":"RETENIDO"`) {
		t.Fatalf("check: %d %s", status, body)
	}

	// (3) The client cancels (no visit booked: everything back). Mercado
	// Pago makes the refund; its answer is held; SIGKILL before our commit.
	// The CLI's sweep asks again with the same idempotency key: one refund.
	release = mp.Hold()
	if status, body := post(url, "/api/jobs/"+jobID+"/cancel"); status != http.StatusOK {
		t.Fatalf("cancel: %d %s", status, body)
	}
	for deadline := time.Now().Add(3 * time.Minute); mp.Calls("POST /v1/payments/{id}/refunds") == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the service never asked Mercado Pago for the refund")
		}
	}
	stop()
	release()
	if mp.Refunded(gid) != 150000 {
		t.Fatalf("Mercado Pago refunded %v before the crash", mp.Refunded(gid))
	}
	if r := cli(t, env, "payments", "release-due", "--dir", dir); r.code != 0 {
		t.Fatalf("payments release-due: %d %s", r.code, r.stderr)
	}
	if r := cli(t, env, "payments", "release-due", "--dir", dir); r.code != 0 {
		t.Fatalf("payments release-due again: %d %s", r.code, r.stderr)
	}
	if mp.Refunded(gid) != 150000 || mp.Calls("POST /v1/payments/{id}/refunds") != 2 {
		t.Fatalf("refunded %v in %d calls", mp.Refunded(gid), mp.Calls("POST /v1/payments/{id}/refunds"))
	}

	db, err = sql.Open("sqlite", filepath.Join(dir, "data.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, charges, holds, refunds, held, owed int
	var status3, refundedAt string
	_ = db.QueryRow(`SELECT COUNT(*) FROM payments WHERE job = ?`, jobID).Scan(&rows)
	_ = db.QueryRow(`SELECT COUNT(*) FROM ledger_transactions WHERE ref = ? AND kind = 'charge'`, paymentID).Scan(&charges)
	_ = db.QueryRow(`SELECT COUNT(*) FROM ledger_transactions WHERE ref = ? AND kind = 'hold'`, paymentID).Scan(&holds)
	_ = db.QueryRow(`SELECT COUNT(*) FROM ledger_transactions WHERE ref = ? AND kind = 'refund'`, paymentID).Scan(&refunds)
	_ = db.QueryRow(`SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account = ?`, "held:"+paymentID).Scan(&held)
	_ = db.QueryRow(`SELECT COALESCE(SUM(e.amount), 0) FROM ledger_entries e JOIN payments p ON e.account = 'client:' || p.client WHERE p.id = ?`, paymentID).Scan(&owed)
	_ = db.QueryRow(`SELECT status, refundedAt FROM payments WHERE id = ?`, paymentID).Scan(&status3, &refundedAt)
	if rows != 1 || charges != 1 || holds != 1 || refunds != 2 || held != 0 || owed != 0 || status3 != "REEMBOLSADO" || refundedAt == "" {
		t.Fatalf("payments %d, charges %d, holds %d, refunds %d, held %d, owed %d, %s %q", rows, charges, holds, refunds, held, owed, status3, refundedAt)
	}
	if r := cli(t, env, "ledger", "verify", "--dir", dir); r.code != 0 {
		t.Fatalf("ledger verify: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// between is the text of s after the first start, up to end.
func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	if j := strings.Index(s, end); j >= 0 {
		return s[:j]
	}
	return s
}
