package main

import (
	"bytes"
	"context"
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
	"sort"
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
	Idle, Open int
	Skip       string
}

func (c config) skipped(name string) bool {
	for _, s := range strings.Split(c.Skip, ",") {
		if strings.TrimSpace(s) == name {
			return true
		}
	}
	return false
}

// result is one load scenario's measurement.
type result struct {
	Name      string
	Available bool
	Note      string
	Requests  int
	Errors    int
	Statuses  map[int]int
	RPS       float64
	P50, P99  time.Duration
}

// report is the whole run.
type report struct {
	Cfg      config
	DS       *dataset
	Results  map[string]*result
	Order    []string
	Bcrypt   float64 // raw hashes/s at the users' cost, all cores
	Cost     int
	PeakRSS  int64 // kB, child VmHWM after the listing load
	Sweep    *sweepResult
	Total    time.Duration
	Machine  string
	Findings []string
	FinalHWM int64
	LoadAvg  string
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

// startService runs this binary as the service (child mode) on the data dir.
func startService(dir string, cfg config) (*service, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr, pp := freeAddr(), freeAddr()
	cmd := exec.Command(exe, "serve", "--http", addr, "--dir", dir)
	cmd.Env = append(os.Environ(), childEnv+"=1", "AUTH_IP_LIMIT=0", "BENCH_PPROF_ADDR="+pp, "CRON_SECRET=bench-secret", "REMINDERS_SCHEDULE=off",
		fmt.Sprintf("BENCH_DATA_MAX_IDLE=%d", cfg.Idle), fmt.Sprintf("BENCH_DATA_MAX_OPEN=%d", cfg.Open))
	logs := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &service{cmd: cmd, base: "http://" + addr, pprof: "http://" + pp, logs: logs}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(s.base + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("service did not start: %s", logs.String())
}

func (s *service) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
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

func run(cfg config) (*report, error) {
	r := &report{Cfg: cfg, Results: map[string]*result{}, Machine: machine()}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		r.LoadAvg = strings.Join(strings.Fields(string(raw))[:3], " ")
	}
	dir, err := os.MkdirTemp("", "camellos-bench-")
	if err != nil {
		return nil, err
	}
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	} else {
		fmt.Println("data dir:", dir)
	}
	fmt.Println("seeding…")
	ds, err := seed(dir)
	if err != nil {
		return nil, err
	}
	r.DS = ds
	fmt.Printf("seeded in %s\n", ds.SeedTime.Round(time.Millisecond))

	svc, err := startService(dir, cfg)
	if err != nil {
		return nil, err
	}
	defer svc.stop()
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		MaxIdleConns: cfg.Conns * 2, MaxIdleConnsPerHost: cfg.Conns * 2, MaxConnsPerHost: cfg.Conns,
	}}
	token, err := superuserToken(client, svc.base, ds.SuperEmail)
	if err != nil {
		return nil, err
	}
	r.Cost = passwordCost(client, svc.base, token)

	var comboIdx atomic.Int64
	combo := func() (string, string) {
		c := ds.Combos[int(comboIdx.Add(1))%len(ds.Combos)]
		return c[0], c[1]
	}
	get := func(path string, cookie string) func() *http.Request {
		return func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, svc.base+path, nil)
			if cookie != "" {
				req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie})
			}
			return req
		}
	}
	from := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	slotsPath := "/api/camellos/" + ds.SlotCamello + "/slots?from=" + url.QueryEscape(timefmt.ISO(from)) + "&to=" + url.QueryEscape(timefmt.ISO(from.Add(31*24*time.Hour)))
	var regSeq atomic.Int64

	scenarios := []struct {
		name  string
		probe *http.Request
		next  func() *http.Request
		after func()
	}{
		{name: "health", next: get("/api/health", "")},
		{name: "listing", next: func() *http.Request {
			city, svcID := combo()
			req, _ := http.NewRequest(http.MethodGet, svc.base+"/api/camellos?city="+url.QueryEscape(city)+"&service="+svcID, nil)
			return req
		}, after: func() { r.PeakRSS = svc.status("VmHWM") }},
		{name: "listing-pocketbase", next: func() *http.Request {
			city, svcID := combo()
			filter := fmt.Sprintf("status='ACTIVO' && cityKey='%s' && services ?= '%s'", text.Fold(city), svcID)
			req, _ := http.NewRequest(http.MethodGet, svc.base+"/api/collections/camellos/records?perPage=20&sort=-premium,-ratingAvg,-created&filter="+url.QueryEscape(filter), nil)
			req.Header.Set("Authorization", token)
			return req
		}},
		{name: "categories", next: get("/api/categories", "")},
		{name: "slots", next: get(slotsPath, ds.ClientCookie)},
		{name: "register", next: func() *http.Request {
			n := regSeq.Add(1)
			body, _ := json.Marshal(map[string]any{"name": "Camello Bench", "email": fmt.Sprintf("bench%d@example.com", n), "phone": "3001234567",
				"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true, "city": "Bogotá", "trades": []string{"pintura"}})
			req, _ := http.NewRequest(http.MethodPost, svc.base+"/api/register/camello", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			return req
		}},
	}
	for _, sc := range scenarios {
		res := &result{Name: sc.name, Statuses: map[int]int{}}
		r.Results[sc.name] = res
		r.Order = append(r.Order, sc.name)
		if cfg.skipped(sc.name) {
			res.Note = "skipped (-skip)"
			continue
		}
		// A first call tells whether the route is there.
		st, body := once(client, sc.next())
		if st == http.StatusNotFound || st == http.StatusMethodNotAllowed || st == 0 {
			res.Note = fmt.Sprintf("not available (probe answered %d %s)", st, clip(body))
			fmt.Printf("%-20s %s\n", sc.name, res.Note)
			continue
		}
		res.Available = true
		var prof chan []byte
		if cfg.ProfileDir != "" {
			prof = profileAsync(svc.pprof, cfg.Duration-time.Second)
		}
		load(client, cfg.Conns, cfg.Duration, sc.next, res)
		if prof != nil {
			if data := <-prof; len(data) > 0 {
				_ = os.MkdirAll(cfg.ProfileDir, 0o755)
				_ = os.WriteFile(filepath.Join(cfg.ProfileDir, sc.name+".pprof"), data, 0o644)
			}
		}
		if sc.after != nil {
			sc.after()
		}
		fmt.Printf("%-20s %8.0f req/s  p50 %-10s p99 %-10s errors %d %v\n", sc.name, res.RPS, res.P50, res.P99, res.Errors, res.Statuses)
	}

	if !cfg.skipped("register") {
		r.Bcrypt = bcryptRate(r.Cost, 3*time.Second)
	}
	fmt.Printf("%-20s %8.1f hashes/s (cost %d, %d goroutines)\n", "bcrypt", r.Bcrypt, r.Cost, runtime.NumCPU())

	if cfg.skipped("sweep") {
		r.Sweep = &sweepResult{Note: "skipped (-skip)"}
		r.FinalHWM = svc.status("VmHWM")
		return r, nil
	}
	var sweepProf chan []byte
	if cfg.ProfileDir != "" {
		sweepProf = profileAsync(svc.pprof, 10*time.Second)
	}
	r.Sweep = sweep(svc)
	if sweepProf != nil {
		if data := <-sweepProf; len(data) > 0 {
			_ = os.WriteFile(filepath.Join(cfg.ProfileDir, "sweep.pprof"), data, 0o644)
		}
		if res, err := http.Get(svc.pprof + "/debug/pprof/heap"); err == nil {
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			_ = os.WriteFile(filepath.Join(cfg.ProfileDir, "heap-after-sweep.pprof"), raw, 0o644)
		}
	}
	if r.Sweep.Available {
		fmt.Printf("%-20s sent %d in %s, memory growth %d MB\n", "reminder sweep", r.Sweep.Sent, r.Sweep.Took.Round(time.Millisecond), r.Sweep.GrowthKB/1024)
	} else {
		fmt.Printf("%-20s %s\n", "reminder sweep", r.Sweep.Note)
	}
	r.FinalHWM = svc.status("VmHWM")
	return r, nil
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

// load runs conns workers for d, each sending next() in a loop.
func load(client *http.Client, conns int, d time.Duration, next func() *http.Request, res *result) {
	var mu sync.Mutex
	var lat []time.Duration
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			statuses := map[int]int{}
			errs := 0
			for ctx.Err() == nil {
				req := next()
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					errs++
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				local = append(local, time.Since(t0))
				statuses[resp.StatusCode]++
				if resp.StatusCode >= 400 {
					errs++
				}
			}
			mu.Lock()
			lat = append(lat, local...)
			for k, v := range statuses {
				res.Statuses[k] += v
			}
			res.Errors += errs
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	res.Requests = len(lat)
	res.RPS = float64(len(lat)) / elapsed.Seconds()
	if len(lat) > 0 {
		res.P50 = lat[len(lat)/2]
		res.P99 = lat[len(lat)*99/100]
	}
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
func bcryptRate(cost int, d time.Duration) float64 {
	var n atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < runtime.NumCPU(); i++ {
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

// sweep calls the reminder endpoint once over the 100,000 due appointments.
func sweep(svc *service) *sweepResult {
	out := &sweepResult{}
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
	if len(s) > 120 {
		return s[:120] + "…"
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
