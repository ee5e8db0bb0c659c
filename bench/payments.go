package main

import (
	"database/sql"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"camellos/internal/mptest"
	"camellos/modules/payments"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// The payments row (issue 23): payments started and webhooks applied per
// second, each as a ratio to the raw ledger insert floor measured in the
// same run. The child service talks to the Mercado Pago test server
// (internal/mptest) over TLS, trusted through SSL_CERT_FILE, as
// TestPaymentSurvivesSIGKILL does.
//
//   - payment-start: POST /api/jobs/{id}/payment by the job's client, one
//     priced ASIGNADO job per request: the payment row, the checkout created
//     at the test server (a TLS round trip), the commit.
//   - payment-webhook: each started payment approved at the test server and
//     its signed notification delivered: the signature checked, the payment
//     read back from the test server, RETENIDO with charge and hold in the
//     ledger, the inbox rows.
//   - ledger-floor: one goroutine inserting balanced two-line transactions
//     (two ledger_entries rows and one ledger_transactions row, one SQLite
//     transaction each, the ledger's triggers on) into a fresh database with
//     the ledger's schema copied from the seeded one.

const paymentJobs = 4000 // bounds both loads

type paymentsResult struct {
	Available           bool
	Note                string
	Start, Webhook      *result
	Floor               *result
	Held                int    // payments RETENIDO after the run
	Verify              string // camellos ledger verify, first line
	StartRatio, WebRate float64
}

func runPayments(r *report) *paymentsResult {
	out := &paymentsResult{}
	dir, err := os.MkdirTemp("", "camellos-payments-")
	if err != nil {
		out.Note = err.Error()
		return out
	}
	defer os.RemoveAll(dir)
	mp := mptest.Start()
	defer mp.Close()
	certFile := filepath.Join(dir, "mp.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: mp.Certificate().Raw}), 0o600); err != nil {
		out.Note = err.Error()
		return out
	}
	data := filepath.Join(dir, "pb_data")
	fmt.Printf("payments: %d priced jobs…\n", paymentJobs)
	cookie, jobIDs, err := seedPayments(data, paymentJobs)
	if err != nil {
		out.Note = "seed: " + err.Error()
		return out
	}
	out.Floor = ledgerFloor(filepath.Join(data, "data.db"), r.Cfg.Duration)
	if out.Floor != nil {
		fmt.Printf("%-20s %8.0f tx/s    p50 %-10s p99 %s\n", "ledger floor", out.Floor.RPS, out.Floor.P50, out.Floor.P99)
	}
	svc, err := startService(data, serviceEnv("SSL_CERT_FILE="+certFile, "MERCADOPAGO_ACCESS_TOKEN="+mp.Token,
		"MERCADOPAGO_WEBHOOK_SECRET="+mp.Secret, "MERCADOPAGO_API_URL="+mp.URL))
	if err != nil {
		out.Note = err.Error()
		return out
	}
	mp.Webhook = svc.base + payments.WebhookPath
	client := newClient(r.Cfg.Conns)

	// payment-start
	paid := make([]string, len(jobIDs))
	var next atomic.Int64
	out.Start = bounded(r.Cfg.Conns, r.Cfg.Duration, len(jobIDs), &next, func(i int) int {
		res, err := client.Do(cookieJSON(http.MethodPost, svc.base, "/api/jobs/"+jobIDs[i]+"/payment", cookie, nil))
		if err != nil {
			return 0
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var body struct {
			Payment struct {
				ID string `json:"id"`
			} `json:"payment"`
		}
		if res.StatusCode == http.StatusCreated && json.Unmarshal(raw, &body) == nil {
			paid[i] = body.Payment.ID
		}
		return res.StatusCode
	}, http.StatusCreated)
	out.Start.Name = "payment-start"
	started := int(next.Load())
	if started > len(jobIDs) {
		started = len(jobIDs)
	}
	fmt.Printf("%-20s %8.0f req/s  p50 %-10s p99 %-10s errors %d %v\n", "payment-start", out.Start.RPS, out.Start.P50, out.Start.P99, out.Start.Errors, out.Start.Statuses)

	// payment-webhook: approve each started payment, then deliver.
	var deliveries []*mptest.Delivery
	for i := 0; i < started; i++ {
		if paid[i] == "" {
			continue
		}
		pref := mp.PreferenceByRef(paid[i])
		if pref == nil {
			continue
		}
		gid, err := mp.PayNow(pref.ID, "approved", "accredited")
		if err != nil {
			continue
		}
		deliveries = append(deliveries, mp.Notification(gid))
	}
	var nextD atomic.Int64
	out.Webhook = bounded(r.Cfg.Conns, r.Cfg.Duration, len(deliveries), &nextD, func(i int) int {
		return mptest.Deliver(client, deliveries[i])
	}, http.StatusOK)
	out.Webhook.Name = "payment-webhook"
	fmt.Printf("%-20s %8.0f req/s  p50 %-10s p99 %-10s errors %d %v\n", "payment-webhook", out.Webhook.RPS, out.Webhook.P50, out.Webhook.P99, out.Webhook.Errors, out.Webhook.Statuses)
	svc.stop()

	if db, err := sql.Open("sqlite", filepath.Join(data, "data.db")+"?mode=ro"); err == nil {
		_ = db.QueryRow(`SELECT COUNT(*) FROM payments WHERE status = 'RETENIDO'`).Scan(&out.Held)
		db.Close()
	}
	exe, _ := os.Executable()
	verify, _ := execOutput(exe, "ledger", "verify", "--dir", data)
	out.Verify = strings.SplitN(strings.TrimSpace(verify), "\n", 2)[0]
	out.Available = out.Start.Requests > 0 && out.Webhook.Requests > 0
	if out.Floor != nil && out.Floor.RPS > 0 {
		out.StartRatio = out.Start.RPS / out.Floor.RPS
		out.WebRate = out.Webhook.RPS / out.Floor.RPS
	}
	fmt.Printf("%-20s held %d, ledger verify: %s\n", "payments", out.Held, out.Verify)
	return out
}

// bounded runs do(i) for i = 0, 1, … over conns workers until d passed or
// n items were done; a status other than want is an error.
func bounded(conns int, d time.Duration, n int, next *atomic.Int64, do func(i int) int, want int) *result {
	var mu sync.Mutex
	var lat []time.Duration
	statuses := map[int]int{}
	errs := 0
	start := time.Now()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < d {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t0 := time.Now()
				st := do(i)
				el := time.Since(t0)
				mu.Lock()
				statuses[st]++
				if st == want {
					lat = append(lat, el)
				} else {
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return summarize("", lat, time.Since(start), statuses, errs)
}

// execOutput runs the service binary's CLI (the bench child) with args.
func execOutput(exe string, args ...string) (string, error) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "LOG_FORMAT=off")
	raw, err := cmd.CombinedOutput()
	return string(raw), err
}

// seedPayments writes, with the service's migrations, one client with a
// session, one ACTIVO camello, a category and a service, and n jobs of
// that client ASIGNADO to the camello at an agreed price.
func seedPayments(dir string, n int) (string, []string, error) {
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		return "", nil, err
	}
	defer app.ResetBootstrapState()
	if err := app.RunAllMigrations(); err != nil {
		return "", nil, err
	}
	db := app.NonconcurrentDB().(interface{ DB() *sql.DB }).DB()
	hasCityKey := columns(db, "jobs")["cityKey"] // before the transaction: the pool has one connection
	tx, err := db.Begin()
	if err != nil {
		return "", nil, err
	}
	s := &seeder{db: db, tx: tx, stmts: map[string]*sql.Stmt{}}
	now := time.Now()
	created := dbTime(now.Add(-time.Hour))
	const userSQL = `INSERT INTO users (id, email, password, tokenKey, verified, emailVisibility, name, role, phone, city, disabled, created, updated)
		VALUES (?,?,?,?,0,0,?,?,?,?,0,?,?)`
	s.exec(userSQL, "upaycliente0001", "pagador@example.com", "x", "tkpayer", "Cliente Pagador", users.RoleClient, "3001234567", "Bogotá", created, created)
	s.exec(userSQL, "upaycamello0001", "cobrador@example.com", "x", "tkcam", "Camello Cobrador", users.RoleCamello, "3007654321", "Bogotá", created, created)
	token, h := newToken()
	s.exec(`INSERT INTO sessions (id, user, tokenHash, userTokenKey, expiresAt, ip, userAgent, created) VALUES (?,?,?,?,?,?,?,?)`,
		"ses"+h[:12], "upaycliente0001", h, "tkpayer", dbTime(now.Add(24*time.Hour)), "127.0.0.1", "bench", created)
	s.exec(`INSERT INTO categories (id, name, nameKey, description, color, icon, sortOrder, created, updated) VALUES (?,?,?,?,?,?,?,?,?)`,
		"cat-pagos00001", "Hogar", "hogar", "Servicios del hogar", "#3366cc", "casa", 0, created, created)
	s.exec(`INSERT INTO services (id, name, slug, category, description, created, updated) VALUES (?,?,?,?,?,?,?)`,
		"svcpagos000001", "Plomería", "plomeria", "cat-pagos00001", "", created, created)
	s.exec(`INSERT INTO camellos (id, user, name, trades, status, premium, services, documentId, phone, city, neighborhood,
		professionalCard, photo, notes, description, timezone, ratingAvg, ratingCount, searchText, cityKey, created, updated)
		VALUES (?,?,?,?,'ACTIVO',0,?,?,?,?,?,?,'','',?,'America/Bogota',0,0,?,?,?,?)`,
		"campagos000001", "upaycamello0001", "Camello Cobrador", `["plomeria"]`, `["svcpagos000001"]`, "", "3007654321", "Bogotá", "Centro",
		"", "Plomero", "camello cobrador plomeria bogota", "bogota", created, created)
	ids := make([]string, n)
	for j := 0; j < n; j++ {
		ids[j] = fmt.Sprintf("jpay%011d", j)
		if hasCityKey {
			s.exec(`INSERT INTO jobs (id, title, description, status, source, city, neighborhood, service, client, provider, priceAmount, cityKey, created, updated)
				VALUES (?,?,?,'ASIGNADO','EXPLORE','Bogotá','Centro',?,?,?,?,'bogota',?,?)`, ids[j], fmt.Sprintf("Arreglo %d", j), "Gotea la llave",
				"svcpagos000001", "upaycliente0001", "campagos000001", 150000+j%50*1000, created, created)
		} else {
			s.exec(`INSERT INTO jobs (id, title, description, status, source, city, neighborhood, service, client, provider, priceAmount, created, updated)
				VALUES (?,?,?,'ASIGNADO','EXPLORE','Bogotá','Centro',?,?,?,?,?,?)`, ids[j], fmt.Sprintf("Arreglo %d", j), "Gotea la llave",
				"svcpagos000001", "upaycliente0001", "campagos000001", 150000+j%50*1000, created, created)
		}
	}
	if s.err != nil {
		tx.Rollback()
		return "", nil, s.err
	}
	if err := tx.Commit(); err != nil {
		return "", nil, err
	}
	return token, ids, nil
}

// ledgerFloor copies the ledger's schema (tables, indexes, triggers) from
// the seeded database into a fresh file and inserts balanced two-line
// transactions from one goroutine for d, one SQLite transaction each.
func ledgerFloor(seeded string, d time.Duration) *result {
	src, err := sql.Open("sqlite", seeded+"?mode=ro")
	if err != nil {
		return nil
	}
	rows, err := src.Query(`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name IN ('ledger_transactions', 'ledger_entries')
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END`)
	if err != nil {
		src.Close()
		return nil
	}
	var schema []string
	for rows.Next() {
		var q string
		if rows.Scan(&q) == nil {
			schema = append(schema, q)
		}
	}
	rows.Close()
	src.Close()
	fdir, err := os.MkdirTemp("", "camellos-ledger-floor-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(fdir)
	pragmas := "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(200000000)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-8000)"
	dst, err := sql.Open("sqlite", filepath.Join(fdir, "floor.db")+pragmas)
	if err != nil {
		return nil
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	for _, q := range schema {
		if _, err := dst.Exec(q); err != nil {
			fmt.Println("ledger floor schema:", err)
			return nil
		}
	}
	var lat []time.Duration
	errs := 0
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		id := fmt.Sprintf("lf%013d", i)
		t0 := time.Now()
		tx, err := dst.Begin()
		if err != nil {
			errs++
			continue
		}
		_, e1 := tx.Exec(`INSERT INTO ledger_entries (tx, account, amount) VALUES (?, 'client_payments', ?)`, id, 150000)
		_, e2 := tx.Exec(`INSERT INTO ledger_entries (tx, account, amount) VALUES (?, ?, ?)`, id, "client:upaycliente0001", -150000)
		_, e3 := tx.Exec(`INSERT INTO ledger_transactions (id, kind, key, ref, reverses, memo, at) VALUES (?, 'charge', ?, ?, '', '', ?)`,
			id, "charge:floor:"+id, id, dbTime(time.Now()))
		if e1 != nil || e2 != nil || e3 != nil {
			tx.Rollback()
			if errs == 0 {
				fmt.Println("ledger floor:", e1, e2, e3)
			}
			errs++
			continue
		}
		if err := tx.Commit(); err != nil {
			errs++
			continue
		}
		lat = append(lat, time.Since(t0))
	}
	return summarize("ledger-floor", lat, time.Since(start), map[int]int{}, errs)
}
