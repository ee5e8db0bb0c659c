package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/internal/timefmt"

	"golang.org/x/crypto/bcrypt"
)

type config struct {
	Duration   time.Duration
	Conns      int
	ProfileDir string
	Keep       bool
	Skip       string
	Size       sizes
	Growth     []int
	PushLat    []int // subscriptions of the push-latency rows
	// PushModes are the configurations of the push-latency rows: "web"
	// (the web process delivers) and "worker" (PUSH_DELIVERY=worker with a
	// `camellos push work` process at nice 10).
	PushModes []string
	Label     string
	Previous  map[string]float64 // read ratios to the floor of the report this run replaces (heldGoals)
}

func (c config) skipped(name string) bool {
	for _, s := range strings.Split(c.Skip, ",") {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}

// report is the whole run.
type report struct {
	Cfg     config
	DS      *dataset
	Results map[string]*result
	Order   []string
	Bcrypt  float64 // raw hashes/s at the users' cost, all cores
	// PoolBcrypt is raw hashes/s with as many goroutines as the service's
	// hashing pool has slots (httpapi.HashWorkers): the ceiling of register.
	PoolBcrypt float64
	// RegisterSmall is registration on a data dir of the small set's
	// users, measured when the main set is the large one.
	RegisterSmall *result
	Cost          int
	PeakRSS       int64        // kB, child VmHWM after the listing load
	MixedRSS      int64        // kB, child VmHWM after the mixed load (peak of the mixed load when PeakReset)
	PeakReset     bool         // VmHWM could be reset before the mixed load and the sweep
	RunHWM        int64        // kB, the highest VmHWM seen over the run
	External      []phaseCount // commits the service took for another process's (each drops its caches)
	Sweep         *sweepResult
	Writes        *writesResult
	Push          *pushResult
	Payments      *paymentsResult
	PushLat       []*pushLatencyResult // receivers answering after pushDelay, 10,000 and 100,000 subscribers
	Events        *eventsResult
	Flood         *floodResult
	Growth        []*growthPoint
	Total         time.Duration
	Machine       string
	Findings      []string
	FinalHWM      int64
	LoadAvg       string
	LoadEnd       string
	PlotFile      string
}

// phaseCount is a counter's growth over one phase of the run.
type phaseCount struct {
	Phase string
	N     float64
}

type sweepResult struct {
	Available bool
	Note      string
	Sent      int
	Took      time.Duration
	GrowthKB  int64
}

type service struct {
	cmd   *exec.Cmd
	base  string
	pprof string
	logs  *bytes.Buffer
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// serviceEnv is the environment of the service child: reminders not
// scheduled (the sweep is called), the per-IP password limit off (every
// request of the bench comes from 127.0.0.1; the flood measures the
// hashing pool, not the limiter), private push targets allowed (the push
// receiver is on 127.0.0.1).
func serviceEnv(extra ...string) []string {
	return append(append(os.Environ(), "CRON_SECRET=bench-secret", "REMINDERS_SCHEDULE=off", "AUTH_IP_LIMIT=0",
		"WEBPUSH_ALLOW_PRIVATE=1", "METRICS_TOKEN="+metricsToken,
		"LOG_FORMAT=off"), extra...) // no stdout log: its lines would pile up in the parent's buffer
}

// startService runs this binary as the service (child mode) on the data dir.
func startService(dir string, env []string) (*service, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr, pp := freeAddr(), freeAddr()
	cmd := exec.Command(exe, "serve", "--http", addr, "--dir", dir)
	cmd.Env = append(env, childEnv+"=1", "BENCH_PPROF_ADDR="+pp)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &service{cmd: cmd, base: "http://" + addr, pprof: "http://" + pp, logs: logs}
	if err := s.wait("/api/health", 120*time.Second); err != nil {
		s.stop()
		return nil, fmt.Errorf("service did not start: %v: %s", err, clip(logs.String()))
	}
	return s, nil
}

// startFloor runs this binary as the bare floor.
func startFloor() (*service, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr := freeAddr()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=floor", "BENCH_FLOOR_ADDR="+addr)
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &service{cmd: cmd, base: "http://" + addr, logs: logs}
	if err := s.wait("/", 20*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *service) wait(path string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		res, err := http.Get(s.base + path)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("timeout")
}

func (s *service) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// status reads a field (kB) of the child's /proc/PID/status.
func (s *service) status(field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	return -1
}

const metricsToken = "bench-metrics"

// metric reads one unlabelled sample of the service's /metrics (-1 when
// the route or the sample is not there).
func (s *service) metric(name string) float64 {
	req, _ := http.NewRequest(http.MethodGet, s.base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, name+" ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, name)), 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// resetPeak resets the child's VmHWM to its current RSS (Linux
// clear_refs 5), so that a later VmHWM is the peak of what ran in between.
func (s *service) resetPeak() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0o200) == nil
}

// heap is the child's live heap after a full GC (bytes).
func (s *service) heap() int64 {
	res, err := http.Get(s.pprof + "/bench/heap")
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	var out struct {
		HeapAlloc int64 `json:"heapAlloc"`
	}
	if json.NewDecoder(res.Body).Decode(&out) != nil {
		return -1
	}
	return out.HeapAlloc
}

func loadAvg() string {
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		return strings.Join(strings.Fields(string(raw))[:3], " ")
	}
	return "?"
}

func newClient(conns int) *http.Client {
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		MaxIdleConns: conns * 4, MaxIdleConnsPerHost: conns * 2, MaxConnsPerHost: conns,
	}}
}

// cookieGet is a GET with the session cookie (when given).
func cookieGet(base, path, cookie string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie})
	}
	return req
}

func cookieJSON(method, base, path, cookie string, body any) *http.Request {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie})
	}
	return req
}

// scenario is a read (or single-kind) load.
type scenario struct {
	name  string
	want  int // the probe's expected status (default 200)
	next  func() *http.Request
	after func()
}

// slotsPath is the 31-day slots query of a camello.
func slotsPath(cam string) string {
	from := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	return "/api/camellos/" + cam + "/slots?from=" + url.QueryEscape(timefmt.ISO(from)) + "&to=" + url.QueryEscape(timefmt.ISO(from.Add(31*24*time.Hour)))
}

func (r *report) add(res *result) {
	if r.Results[res.Name] == nil {
		r.Order = append(r.Order, res.Name)
	}
	r.Results[res.Name] = res
}

// runScenario probes a route and, when it exists, loads it.
func (r *report) runScenario(client *http.Client, svc *service, sc scenario) *result {
	res := &result{Name: sc.name, Statuses: map[int]int{}}
	if r.Cfg.skipped(sc.name) {
		res.Note = "skipped (-skip)"
		r.add(res)
		return res
	}
	want := sc.want
	if want == 0 {
		want = http.StatusOK
	}
	st, body := once(client, sc.next())
	if st != want {
		res.Note = fmt.Sprintf("not available (probe answered %d %s)", st, clip(body))
		fmt.Printf("%-20s %s\n", sc.name, res.Note)
		r.add(res)
		return res
	}
	var prof chan []byte
	if r.Cfg.ProfileDir != "" && svc != nil && svc.pprof != "" {
		prof = profileAsync(svc.pprof, r.Cfg.Duration-time.Second)
	}
	res = load(client, r.Cfg.Conns, r.Cfg.Duration, sc.next)
	res.Name = sc.name
	if prof != nil {
		saveProfile(r.Cfg.ProfileDir, sc.name, <-prof)
	}
	if sc.after != nil {
		sc.after()
	}
	r.add(res)
	fmt.Printf("%-20s %8.0f req/s  p50 %-10s p99 %-10s errors %d %v\n", sc.name, res.RPS, res.P50, res.P99, res.Errors, res.Statuses)
	return res
}

func saveProfile(dir, name string, data []byte) {
	if len(data) == 0 {
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".pprof"), data, 0o644)
}

// requests describes each scenario's request for the report.
var requests = map[string]string{
	"floor":              "bare `net/http`, fixed 2 KB JSON (floor, separate process)",
	"health":             "`GET /api/health` (reference)",
	"listing":            "`GET /api/camellos?city=&service=`",
	"listing-pocketbase": "`GET /api/collections/camellos/records?filter=…` (reference)",
	"categories":         "`GET /api/categories`",
	"profile":            "`GET /api/camellos/{id}`",
	"slots":              "`GET /api/camellos/{id}/slots` (31 days, 300 booked, rules on)",
	"open-board":         "`GET /api/jobs/open` (an ACTIVO camello)",
	"quotes-list":        "`GET /api/jobs/{id}/quotes` (the client)",
	"messages-list":      "`GET /api/jobs/{id}/messages` (the client)",
	"register":           "`POST /api/register/camello`",
}

func run(cfg config) (*report, error) {
	r := &report{Cfg: cfg, Results: map[string]*result{}, Machine: machine(), LoadAvg: loadAvg()}
	floor, err := startFloor()
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	defer floor.stop()

	if cfg.skipped("main") {
		r.DS = &dataset{Size: cfg.Size, Tables: map[string]bool{}}
	} else if err := r.runMain(floor); err != nil {
		return nil, err
	}

	// Push fan-out and cost growth run on their own data dirs.
	if !cfg.skipped("push") {
		r.Push = runPush(r)
	}
	if !cfg.skipped("pushlatency") {
		for _, n := range cfg.PushLat {
			for _, mode := range cfg.PushModes {
				r.PushLat = append(r.PushLat, runPushLatency(r, n, strings.TrimSpace(mode) == "worker"))
			}
		}
	}
	if !cfg.skipped("growth") {
		r.Growth = runGrowth(r, floor)
	}
	if !cfg.skipped("register") {
		r.RegisterSmall = runRegisterSmall(r)
	}
	if !cfg.skipped("payments") {
		r.Payments = runPayments(r)
	}
	r.LoadEnd = loadAvg()
	return r, nil
}

// runMain seeds the main data set and runs every scenario on it.
func (r *report) runMain(floor *service) error {
	cfg := r.Cfg
	dir, err := os.MkdirTemp("", "camellos-bench-")
	if err != nil {
		return err
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	} else {
		fmt.Println("data dir:", dir)
	}
	fmt.Printf("seeding the %s set…\n", cfg.Size.Name)
	ds, err := seed(dir, cfg.Size)
	if err != nil {
		return err
	}
	r.DS = ds
	fmt.Printf("seeded in %s (missing tables: %v)\n", ds.SeedTime.Round(time.Millisecond), ds.Missing)

	svc, err := startService(dir, serviceEnv())
	if err != nil {
		return err
	}
	stopped := false
	stopSvc := func() {
		if !stopped {
			stopped = true
			svc.stop()
		}
	}
	defer stopSvc()
	client := newClient(cfg.Conns)
	token, err := superuserToken(client, svc.base, ds.SuperEmail)
	if err != nil {
		return err
	}
	r.Cost = passwordCost(client, svc.base, token)

	var comboIdx, profIdx atomic.Int64
	combo := func() (string, string) {
		c := ds.Combos[int(comboIdx.Add(1))%len(ds.Combos)]
		return c[0], c[1]
	}
	listingReq := func() *http.Request {
		city, svcID := combo()
		return cookieGet(svc.base, "/api/camellos?city="+url.QueryEscape(city)+"&service="+svcID, "")
	}
	profileReq := func() *http.Request {
		return cookieGet(svc.base, "/api/camellos/"+ds.CamelloIDs[int(profIdx.Add(1))%len(ds.CamelloIDs)], "")
	}
	slots := slotsPath(ds.SlotCamello)

	reads := []scenario{
		{name: "floor", next: func() *http.Request { return cookieGet(floor.base, "/", "") }},
		{name: "health", next: func() *http.Request { return cookieGet(svc.base, "/api/health", "") }},
		{name: "listing", next: listingReq, after: func() { r.PeakRSS = svc.status("VmHWM"); r.RunHWM = max(r.RunHWM, r.PeakRSS) }},
		{name: "listing-pocketbase", next: func() *http.Request {
			city, svcID := combo()
			filter := fmt.Sprintf("status='ACTIVO' && cityKey='%s' && services ?= '%s'", text.Fold(city), svcID)
			req := cookieGet(svc.base, "/api/collections/camellos/records?perPage=20&sort=-premium,-ratingAvg,-created&filter="+url.QueryEscape(filter), "")
			req.Header.Set("Authorization", token)
			return req
		}},
		{name: "categories", next: func() *http.Request { return cookieGet(svc.base, "/api/categories", "") }},
		{name: "profile", next: profileReq},
		{name: "slots", next: func() *http.Request { return cookieGet(svc.base, slots, ds.ClientCookie) }},
		{name: "open-board", next: func() *http.Request { return cookieGet(svc.base, "/api/jobs/open", ds.BoardCookie) }},
	}
	reads = append(reads, quoteReads(ds, svc)...)
	reads = append(reads, registerScenario(svc.base, "bench"))
	ext := func() float64 { return svc.metric("camellos_external_commits_total") }
	phase := func(name string, run func()) {
		before := ext()
		run()
		if after := ext(); before >= 0 && after >= 0 {
			r.External = append(r.External, phaseCount{name, after - before})
		}
	}
	phase("reads", func() {
		for _, sc := range reads {
			r.runScenario(client, svc, sc)
		}
	})
	if !cfg.skipped("register") {
		r.Bcrypt = bcryptRate(r.Cost, 3*time.Second, runtime.NumCPU())
		r.PoolBcrypt = bcryptRate(r.Cost, 3*time.Second, httpapi.HashWorkers())
	}
	fmt.Printf("%-20s %8.1f hashes/s (cost %d, %d goroutines)\n", "bcrypt", r.Bcrypt, r.Cost, runtime.NumCPU())

	// Writes: the raw SQLite floor, write-only, mixed (peak RSS after it).
	if !cfg.skipped("writes") {
		phase("writes (write-only and mixed)", func() {
			r.Writes = runWrites(r, client, svc, ds, listingReq, profileReq, slots, func() { r.RunHWM = max(r.RunHWM, svc.status("VmHWM")); r.PeakReset = svc.resetPeak() })
		})
		r.MixedRSS = svc.status("VmHWM")
		r.RunHWM = max(r.RunHWM, r.MixedRSS)
	}
	// Live events while the listing load runs.
	if !cfg.skipped("events") {
		phase("live events", func() { r.Events = runEvents(r, svc, ds, listingReq) })
	}
	// Password flood.
	if !cfg.skipped("flood") {
		phase("password flood", func() { r.Flood = runFlood(r, svc, ds, listingReq) })
	}
	// Reminder sweep.
	if cfg.skipped("sweep") {
		r.Sweep = &sweepResult{Note: "skipped (-skip)"}
	} else {
		var sweepProf chan []byte
		if cfg.ProfileDir != "" {
			sweepProf = profileAsync(svc.pprof, 10*time.Second)
		}
		r.RunHWM = max(r.RunHWM, svc.status("VmHWM"))
		phase("reminder sweep", func() { r.Sweep = sweep(svc) })
		if sweepProf != nil {
			saveProfile(cfg.ProfileDir, "sweep", <-sweepProf)
		}
		if r.Sweep.Available {
			fmt.Printf("%-20s sent %d in %s, memory growth %d MB\n", "reminder sweep", r.Sweep.Sent, r.Sweep.Took.Round(time.Millisecond), r.Sweep.GrowthKB/1024)
		} else {
			fmt.Printf("%-20s %s\n", "reminder sweep", r.Sweep.Note)
		}
	}
	r.FinalHWM = svc.status("VmHWM")
	r.RunHWM = max(r.RunHWM, r.FinalHWM)
	stopSvc()
	if !cfg.Keep {
		_ = os.RemoveAll(dir)
	}

	return nil
}

func once(client *http.Client, req *http.Request) (int, string) {
	res, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusNotFound && (!bytes.Contains(raw, []byte(`"issues"`)) || bytes.Contains(raw, []byte(httpapi.MsgRouteNotFound))) {
		return res.StatusCode, string(raw) // no such route: PocketBase's, the static or our catch-all 404
	}
	if res.StatusCode == http.StatusNotFound {
		return 299, string(raw) // our envelope: the route exists
	}
	return res.StatusCode, string(raw)
}

func profileAsync(base string, d time.Duration) chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		secs := int(d.Seconds())
		if secs < 1 {
			secs = 1
		}
		res, err := http.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, secs))
		if err != nil {
			ch <- nil
			return
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		ch <- raw
	}()
	return ch
}

func superuserToken(client *http.Client, base, email string) (string, error) {
	body, _ := json.Marshal(map[string]string{"identity": email, "password": benchSuperPwd})
	res, err := client.Post(base+"/api/collections/_superusers/auth-with-password", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || out.Token == "" {
		return "", errors.New("superuser sign-in failed")
	}
	return out.Token, nil
}

// passwordCost reads the bcrypt cost of the users collection's password
// field (0 there means bcrypt.DefaultCost).
func passwordCost(client *http.Client, base, token string) int {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/collections/users", nil)
	req.Header.Set("Authorization", token)
	res, err := client.Do(req)
	if err == nil {
		defer res.Body.Close()
		var col struct {
			Fields []struct {
				Name string `json:"name"`
				Cost int    `json:"cost"`
			} `json:"fields"`
		}
		if json.NewDecoder(res.Body).Decode(&col) == nil {
			for _, f := range col.Fields {
				if f.Name == "password" && f.Cost > 0 {
					return f.Cost
				}
			}
		}
	}
	return bcrypt.DefaultCost
}

// bcryptRate is raw bcrypt hashes per second at cost, on every core.
func bcryptRate(cost int, d time.Duration, goroutines int) float64 {
	var n atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				_, _ = bcrypt.GenerateFromPassword([]byte("x5Qpm0J4bVkqYz0mVZl3o8wqzq1dD3o2N9k4tZ2Yc8U="), cost)
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds()
}

// sweep calls the reminder endpoint once over the due appointments.
func sweep(svc *service) *sweepResult {
	out := &sweepResult{}
	svc.resetPeak() // VmHWM after the sweep is then the sweep's own peak
	rssBefore := svc.status("VmRSS")
	req, _ := http.NewRequest(http.MethodPost, svc.base+"/api/cron/appointment-reminders", nil)
	req.Header.Set("Authorization", "Bearer bench-secret")
	t0 := time.Now()
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		out.Note = "error: " + err.Error()
		return out
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out.Took = time.Since(t0)
	if res.StatusCode != http.StatusOK {
		out.Note = fmt.Sprintf("not available (answered %d %s)", res.StatusCode, clip(string(raw)))
		return out
	}
	var body struct {
		Sent int `json:"sent"`
	}
	_ = json.Unmarshal(raw, &body)
	out.Available = true
	out.Sent = body.Sent
	out.GrowthKB = svc.status("VmHWM") - rssBefore
	return out
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

func machine() string {
	cpu := "unknown CPU"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "model name") {
				if i := strings.Index(line, ":"); i >= 0 {
					cpu = strings.TrimSpace(line[i+1:])
				}
				break
			}
		}
	}
	mem := ""
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(strings.SplitN(string(raw), "\n", 2)[0]); len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			mem = fmt.Sprintf(", %d GiB RAM", kb/1024/1024)
		}
	}
	return fmt.Sprintf("nproc %d, %s%s, %s %s/%s", runtime.NumCPU(), cpu, mem, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
