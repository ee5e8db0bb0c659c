package main

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"camellos/internal/pushtest"

	"camellos/modules/users"

	webpush "github.com/SherClockHolmes/webpush-go"
	"github.com/pocketbase/pocketbase/core"
)

const (
	nPushUsers     = 10_000
	rawPushWorkers = 4 // webpush-go senders of the floor: CPU-bound, so about the cores
	// pushDelay is how long the latency rows' receiver waits before it
	// answers, as a real push service across the internet does.
	pushDelay = 100 * time.Millisecond
	// pushStreams is the latency receiver's SETTINGS_MAX_CONCURRENT_STREAMS.
	pushStreams = 100
)

// pushResult is the fan-out scenario.
type pushResult struct {
	Available bool
	Note      string
	Users     int
	Queued    int
	Delivered int64 // requests the receiver got from the service
	Decrypted int64 // of which decrypted to the broadcast's payload
	Took      time.Duration
	RPS       float64 // pushes/s, service
	Raw       int64   // raw webpush-go sends decrypted
	RawTook   time.Duration
	RawRPS    float64
	RawErrors int64
	Failures  []string
}

// browserKey is a subscriber's push identity (PushManager.subscribe()).
type browserKey struct {
	priv *ecdh.PrivateKey
	auth []byte
}

func (b *browserKey) p256dh() string {
	return base64.RawURLEncoding.EncodeToString(b.priv.PublicKey().Bytes())
}
func (b *browserKey) authB64() string { return base64.RawURLEncoding.EncodeToString(b.auth) }

// decrypt opens a Web Push message with this subscriber's keys, as a
// browser does (pushtest.Decrypt).
func (b *browserKey) decrypt(body []byte) ([]byte, error) {
	return pushtest.Decrypt(b.priv, b.auth, body)
}

// pushReceiver is an HTTPS push service on 127.0.0.1 that decrypts every
// payload with the subscriber's keys and counts those carrying want.
type pushReceiver struct {
	srv       *http.Server
	base      string
	certFile  string
	pool      *x509.CertPool
	keys      []*browserKey
	want      atomic.Value // string the plaintext must contain
	got       atomic.Int64
	decrypted atomic.Int64
	mu        sync.Mutex
	failures  []string
	last      atomic.Int64  // unix nanos of the last decrypted push
	delay     time.Duration // before each answer (0: at once)
	conns     atomic.Int64  // connections accepted
	// decrypts is the pool that opens the payloads: the receiver stands
	// for push services and browsers on other machines, so its CPU runs
	// on threads below the service's priority (decryptNice).
	decrypts chan func()
}

// decryptNice is how many nice steps below the bench's own priority the
// receiver's decryption threads run.
const decryptNice = 5

// startDecrypters runs n decryption goroutines, each locked to its own OS
// thread at decryptNice below the process (the threads end with the
// goroutines: they never unlock).
func (r *pushReceiver) startDecrypters(n int) {
	r.decrypts = make(chan func())
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread()
			tid := syscall.Gettid()
			if cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid); err == nil {
				_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(20-cur+decryptNice, 19))
			}
			for f := range r.decrypts {
				f()
			}
		}()
	}
}

// newPushReceiver starts a receiver for n subscribers; streams > 0 sets
// its HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS (0: Go's default, 250).
func newPushReceiver(dir string, n, streams int) (*pushReceiver, error) {
	keys := make([]*browserKey, 0, n)
	for i := 0; i < n; i++ {
		priv, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		auth := make([]byte, 16)
		_, _ = rand.Read(auth)
		keys = append(keys, &browserKey{priv: priv, auth: auth})
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return servePushReceiver(dir, l, keys, streams)
}

// servePushReceiver serves a receiver for keys on l.
func servePushReceiver(dir string, l net.Listener, keys []*browserKey, streams int) (*pushReceiver, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyDER, _ := x509.MarshalECPrivateKey(key)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	r := &pushReceiver{certFile: filepath.Join(dir, "receiver.pem"), pool: x509.NewCertPool()}
	if err := os.WriteFile(r.certFile, certPEM, 0o644); err != nil {
		return nil, err
	}
	r.pool.AppendCertsFromPEM(certPEM)
	r.want.Store("")
	r.keys = keys
	r.base = "https://" + l.Addr().String()
	r.startDecrypters(max(1, runtime.GOMAXPROCS(0)-1)) // a P left for the bench's own clients
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, NextProtos: []string{"h2", "http/1.1"}},
		ErrorLog: nil,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				r.conns.Add(1)
			}
		}}
	if streams > 0 {
		r.srv.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: streams}
	}
	go func() { _ = r.srv.ServeTLS(l, "", "") }()
	return r, nil
}

func (r *pushReceiver) fail(s string) {
	r.mu.Lock()
	if len(r.failures) < 5 {
		r.failures = append(r.failures, s)
	}
	r.mu.Unlock()
}

func (r *pushReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	r.got.Add(1)
	i, err := strconv.Atoi(strings.TrimPrefix(req.URL.Path, "/push/"))
	if err != nil || i < 0 || i >= len(r.keys) {
		r.fail("unknown endpoint " + req.URL.Path)
		w.WriteHeader(http.StatusNotFound)
		return
	}
	var plain []byte
	done := make(chan struct{})
	r.decrypts <- func() { plain, err = r.keys[i].decrypt(body); close(done) }
	<-done
	if err != nil {
		r.fail(fmt.Sprintf("push %d: %v", i, err))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !bytes.Contains(plain, []byte(r.want.Load().(string))) {
		r.fail(fmt.Sprintf("push %d: unexpected payload %s", i, clip(string(plain))))
	} else {
		r.decrypted.Add(1)
		r.last.Store(time.Now().UnixNano())
	}
	w.WriteHeader(http.StatusCreated)
}

func (r *pushReceiver) reset(want string) {
	r.want.Store(want)
	r.got.Store(0)
	r.decrypted.Store(0)
}

// waitFor waits until n payloads were decrypted (or nothing arrives for
// 30 s), returning when the last one arrived.
func (r *pushReceiver) waitFor(n int64, since time.Time) time.Time {
	lastCount, lastChange := int64(-1), time.Now()
	for r.decrypted.Load() < n {
		c := r.got.Load()
		if c != lastCount {
			lastCount, lastChange = c, time.Now()
		}
		if time.Since(lastChange) > 30*time.Second {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if l := r.last.Load(); l > 0 {
		return time.Unix(0, l)
	}
	return since
}

// runPush seeds a data dir with nPushUsers CLIENTE users, each with one
// push subscription on the receiver, broadcasts one ADMIN_MESSAGE to the
// role and waits until every payload was decrypted; then sends the same
// number of pushes with webpush-go directly (rawPushWorkers at once) to
// the same receiver.
func runPush(r *report) *pushResult {
	out := &pushResult{Users: nPushUsers}
	dir, err := os.MkdirTemp("", "camellos-push-")
	if err != nil {
		out.Note = err.Error()
		return out
	}
	defer os.RemoveAll(dir)
	fmt.Printf("push: %d subscribers…\n", nPushUsers)
	recv, err := newPushReceiver(dir, nPushUsers, 0)
	if err != nil {
		out.Note = err.Error()
		return out
	}
	defer recv.srv.Close()
	data := filepath.Join(dir, "pb_data")
	admin, err := seedPush(data, recv.base, recv.keys)
	if err != nil {
		out.Note = "seed: " + err.Error()
		return out
	}
	svc, err := startService(data, serviceEnv("SSL_CERT_FILE="+recv.certFile))
	if err != nil {
		out.Note = err.Error()
		return out
	}
	client := newClient(4)
	title := "Aviso bench " + strconv.FormatInt(time.Now().UnixNano(), 36)
	recv.reset(title)
	var prof chan []byte
	if r.Cfg.ProfileDir != "" {
		prof = profileAsync(svc.pprof, 8*time.Second)
	}
	t0 := time.Now()
	res, err := client.Do(cookieJSON(http.MethodPost, svc.base, "/api/admin/notifications", admin,
		map[string]any{"title": title, "body": "Mañana hay mantenimiento de 2 a 3 a. m.", "url": "/notificaciones.html", "role": users.RoleClient}))
	if err != nil {
		svc.stop()
		out.Note = err.Error()
		return out
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var q struct {
		Queued int `json:"queued"`
	}
	_ = json.Unmarshal(raw, &q)
	out.Queued = q.Queued
	if res.StatusCode != http.StatusAccepted {
		svc.stop()
		out.Note = fmt.Sprintf("broadcast answered %d %s", res.StatusCode, clip(string(raw)))
		return out
	}
	end := recv.waitFor(int64(nPushUsers), t0)
	if prof != nil {
		saveProfile(r.Cfg.ProfileDir, "push", <-prof)
	}
	out.Available = true
	out.Took = end.Sub(t0)
	out.Delivered, out.Decrypted = recv.got.Load(), recv.decrypted.Load()
	if out.Took > 0 {
		out.RPS = float64(out.Decrypted) / out.Took.Seconds()
	}
	svc.stop()
	fmt.Printf("%-20s %d queued, %d received, %d decrypted in %s: %.0f pushes/s\n", "push (service)", out.Queued, out.Delivered, out.Decrypted, out.Took.Round(time.Millisecond), out.RPS)

	// Raw webpush-go sends of the same kind of payload.
	vPriv, vPub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		out.Note = err.Error()
		return out
	}
	rawTitle := "Aviso crudo " + strconv.FormatInt(time.Now().UnixNano(), 36)
	recv.reset(rawTitle)
	payload, _ := json.Marshal(map[string]string{"title": rawTitle, "body": "Mañana hay mantenimiento de 2 a 3 a. m.", "url": "/notificaciones.html", "kind": "ADMIN_MESSAGE", "id": "n00000000000001"})
	hc := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: recv.pool}, ForceAttemptHTTP2: true}}
	var next atomic.Int64
	var errs atomic.Int64
	var wg sync.WaitGroup
	t1 := time.Now()
	for w := 0; w < rawPushWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= nPushUsers {
					return
				}
				k := recv.keys[i]
				res, err := webpush.SendNotificationWithContext(context.Background(), payload, &webpush.Subscription{
					Endpoint: fmt.Sprintf("%s/push/%d", recv.base, i), Keys: webpush.Keys{P256dh: k.p256dh(), Auth: k.authB64()},
				}, &webpush.Options{HTTPClient: hc, Subscriber: "mailto:bench@example.com", TTL: 3600, Urgency: webpush.UrgencyNormal,
					VAPIDPublicKey: vPub, VAPIDPrivateKey: vPriv})
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusCreated {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	out.RawTook = time.Since(t1)
	out.Raw = recv.decrypted.Load()
	out.RawErrors = errs.Load()
	if out.RawTook > 0 {
		out.RawRPS = float64(out.Raw) / out.RawTook.Seconds()
	}
	recv.mu.Lock()
	out.Failures = append(out.Failures, recv.failures...)
	recv.mu.Unlock()
	fmt.Printf("%-20s %d decrypted in %s: %.0f pushes/s (errors %d)\n", "push (raw webpush)", out.Raw, out.RawTook.Round(time.Millisecond), out.RawRPS, out.RawErrors)
	return out
}

// seedPush prepares the push data dir: migrations, an admin with a
// session (returned), nPushUsers clients each with one subscription on the
// receiver (raw SQL, one transaction).
func seedPush(dir, base string, keys []*browserKey) (string, error) {
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		return "", err
	}
	defer app.ResetBootstrapState()
	if err := app.RunAllMigrations(); err != nil {
		return "", err
	}
	db := app.NonconcurrentDB().(interface{ DB() *sql.DB }).DB()
	tx, err := db.Begin()
	if err != nil {
		return "", err
	}
	s := &seeder{db: db, tx: tx, stmts: map[string]*sql.Stmt{}}
	created := dbTime(time.Now().Add(-time.Hour))
	const userSQL = `INSERT INTO users (id, email, password, tokenKey, verified, emailVisibility, name, role, phone, city, disabled, created, updated)
		VALUES (?,?,?,?,0,0,?,?,?,?,0,?,?)`
	s.exec(userSQL, "uadm00000000001", "admin@example.com", "x", "tkadmin", "Admin Bench", users.RoleAdmin, "", "Bogotá", created, created)
	token, h := newToken()
	s.exec(`INSERT INTO sessions (id, user, tokenHash, userTokenKey, expiresAt, ip, userAgent, created) VALUES (?,?,?,?,?,?,?,?)`,
		"ses"+h[:12], "uadm00000000001", h, "tkadmin", dbTime(time.Now().Add(24*time.Hour)), "127.0.0.1", "bench", created)
	for i, k := range keys {
		s.exec(userSQL, cliUserID(i), fmt.Sprintf("suscrito%d@example.com", i), "x", cliTokenKey(i), fmt.Sprintf("Suscrito %d", i), users.RoleClient, "", "Bogotá", created, created)
		s.exec(`INSERT INTO push_subscriptions (id, user, endpoint, p256dh, auth, userAgent, created, updated) VALUES (?,?,?,?,?,?,?,?)`,
			fmt.Sprintf("psub%011d", i), cliUserID(i), fmt.Sprintf("%s/push/%d", base, i), k.p256dh(), k.authB64(), "bench", created, created)
	}
	if s.err != nil {
		tx.Rollback()
		return "", s.err
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	return token, nil
}

// pushLatencyResult is a broadcast to n subscribers on a receiver that
// answers after pushDelay over HTTP/2, with the listing's p99 measured
// quietly first and then while the broadcast runs.
type pushLatencyResult struct {
	Available           bool
	Note                string
	Users               int
	Delay               time.Duration
	Decrypted           int64
	Took                time.Duration
	RPS                 float64
	HTTP2               bool
	QuietP99, DuringP99 time.Duration
	During              int // listing requests answered during the broadcast
	// CPU is the service's CPU time (user + system) from the POST to the
	// last decrypted payload: divided by Decrypted, the cost of one push.
	CPU time.Duration
	// Conns is how many connections the service opened to the receiver.
	Conns    int64
	Failures []string // the receiver's first failures
	// Worker is the `camellos push work` process (nil: the web process
	// delivers); its CPU is added to CPU.
	Worker *service
	WebCPU time.Duration // the web process's part of CPU
	// WorkerMode: PUSH_DELIVERY=worker, pushes sent by `camellos push
	// work` at nice 10 (else by the web process).
	WorkerMode bool
}

// Mode names the configuration measured.
func (p *pushLatencyResult) Mode() string {
	if p.WorkerMode {
		return "`push work` (nice 10)"
	}
	return "web process"
}

// CPUPerPush is the service's CPU per decrypted push.
func (p *pushLatencyResult) CPUPerPush() time.Duration {
	if p.Decrypted == 0 || p.CPU < 0 {
		return 0
	}
	return p.CPU / time.Duration(p.Decrypted)
}

// runPushLatency broadcasts to n subscribers of a receiver answering after
// pushDelay (HTTP/2), timing the last decrypted payload, while one client
// keeps asking for the listing.
func runPushLatency(r *report, n int, worker bool) *pushLatencyResult {
	out := &pushLatencyResult{Users: n, Delay: pushDelay, WorkerMode: worker}
	dir, err := os.MkdirTemp("", "camellos-pushlat-")
	if err != nil {
		out.Note = err.Error()
		return out
	}
	defer os.RemoveAll(dir)
	fmt.Printf("push latency: %d subscribers, receiver answering after %s, worker process %v…\n", n, pushDelay, worker)
	// Google's front ends (FCM) announce 100 streams per connection: the
	// service must open more connections to keep its requests in flight.
	recv, err := startRemoteReceiver(dir, n, pushStreams, pushDelay)
	if err != nil {
		out.Note = err.Error()
		return out
	}
	defer recv.stop()
	data := filepath.Join(dir, "pb_data")
	admin, err := seedPush(data, recv.base, recv.keys)
	if err != nil {
		out.Note = "seed: " + err.Error()
		return out
	}
	env := serviceEnv("SSL_CERT_FILE=" + recv.certFile)
	if worker {
		env = append(env, "PUSH_DELIVERY=worker")
	}
	svc, err := startService(data, env)
	if err != nil {
		out.Note = err.Error()
		return out
	}
	defer svc.stop()
	if worker {
		w, err := startPushWorker(data, env)
		if err != nil {
			out.Note = err.Error()
			return out
		}
		defer w.stop()
		out.Worker = w
	}
	listing := func() *http.Request { return cookieGet(svc.base, "/api/camellos?city=Bogot%C3%A1", "") }
	lc := newClient(1)
	sample := func(stop func() bool, max int) []time.Duration {
		var lat []time.Duration
		for len(lat) < max && !stop() {
			t := time.Now()
			res, err := lc.Do(listing())
			if err != nil {
				continue
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			lat = append(lat, time.Since(t))
			time.Sleep(5 * time.Millisecond)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		return lat
	}
	quiet := sample(func() bool { return false }, 400)
	out.QuietP99 = percentile(quiet, 0.99)

	title := "Aviso lento " + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := recv.reset(title); err != nil {
		out.Note = err.Error()
		return out
	}
	client := newClient(4)
	var prof chan []byte
	var wprof chan []byte
	if r.Cfg.ProfileDir != "" {
		prof = profileAsync(svc.pprof, 10*time.Second)
		if out.Worker != nil {
			wprof = profileAsync(out.Worker.pprof, 10*time.Second)
		}
	}
	cpu0, web0 := svc.cpuTime(), svc.cpuTime()
	if out.Worker != nil {
		cpu0 += out.Worker.cpuTime()
	}
	t0 := time.Now()
	res, err := client.Do(cookieJSON(http.MethodPost, svc.base, "/api/admin/notifications", admin,
		map[string]any{"title": title, "body": "Mañana hay mantenimiento de 2 a 3 a. m.", "url": "/notificaciones.html", "role": users.RoleClient}))
	if err != nil {
		out.Note = err.Error()
		return out
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		out.Note = fmt.Sprintf("broadcast answered %d", res.StatusCode)
		return out
	}
	var done atomic.Bool
	during := make(chan []time.Duration, 1)
	go func() { during <- sample(done.Load, 1<<30) }()
	st, end := recv.waitFor(int64(n), t0)
	cpu1 := svc.cpuTime()
	out.WebCPU = cpu1 - web0
	if out.Worker != nil {
		cpu1 += out.Worker.cpuTime()
	}
	if cpu0 >= 0 && cpu1 >= 0 {
		out.CPU = cpu1 - cpu0
	} else {
		out.CPU = -1
	}
	done.Store(true)
	lat := <-during
	if prof != nil {
		saveProfile(r.Cfg.ProfileDir, fmt.Sprintf("pushlatency-%d-%s", n, map[bool]string{false: "web", true: "workermode"}[worker]), <-prof)
	}
	if wprof != nil {
		saveProfile(r.Cfg.ProfileDir, fmt.Sprintf("pushlatency-%d-workermode-worker", n), <-wprof)
	}
	out.Available = true
	out.Took = end.Sub(t0)
	out.Decrypted = st.Decrypted
	out.HTTP2 = st.H2 > 0 && st.H2 == st.Got
	out.Failures = st.Failures
	if out.Took > 0 {
		out.RPS = float64(out.Decrypted) / out.Took.Seconds()
	}
	out.During = len(lat)
	out.Conns = st.Conns
	if len(out.Failures) > 0 {
		fmt.Printf("push latency: receiver failures: %v\n", out.Failures)
	}
	out.DuringP99 = percentile(lat, 0.99)
	fmt.Printf("%-20s [%s] %d of %d decrypted in %s (%.0f/s, HTTP/2 %v on %d connections, service CPU %s (web process %s), %s per push); listing p99 %s quiet, %s during (%d requests)\n", "push latency", out.Mode(),
		out.Decrypted, n, out.Took.Round(time.Millisecond), out.RPS, out.HTTP2, out.Conns, out.CPU, out.WebCPU, out.CPUPerPush(), out.QuietP99, out.DuringP99, out.During)
	return out
}

// startPushWorker runs `camellos push work` on the data dir (this binary
// in service mode) at nice 10, below the web process.
func startPushWorker(dir string, env []string) (*service, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	pp := freeAddr()
	cmd := exec.Command("nice", "-n", "10", exe, "push", "work", "--dir", dir)
	cmd.Env = append(env, childEnv+"=1", "BENCH_PPROF_ADDR="+pp)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &service{cmd: cmd, logs: logs, pprof: "http://" + pp}, nil
}
