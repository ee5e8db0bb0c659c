package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"camellos/internal/s3test"
	"camellos/internal/testkit"
)

// lockedBuffer is a log read while a process writes it.
type lockedBuffer = testkit.Buffer

// running are the stops of the services serveWithLogs started.
var running []func()

// stopAll stops them (SIGINT: a clean stop, as systemd's).
func stopAll(t *testing.T) {
	t.Helper()
	for _, stop := range running {
		stop()
	}
	running = nil
}

// serveWithLogs runs `serve` with env and returns its URL and its stdout
// and stderr as they grow.
func serveWithLogs(t *testing.T, env map[string]string, dir string) (string, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	return serveBinWithLogs(t, binary(t), env, dir)
}

// serveBinWithLogs is serveWithLogs with another build of the service.
func serveBinWithLogs(t *testing.T, bin string, env map[string]string, dir string) (string, *lockedBuffer, *lockedBuffer) {
	t.Helper()
	addr := s3test.FreePort(t)
	cmd := exec.Command(bin, "serve", "--http", addr, "--dir", dir)
	cmd.Dir = t.TempDir()
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, errb := &lockedBuffer{}, &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); <-exited }
	t.Cleanup(stop)
	running = append(running, stop)
	url := "http://" + addr
	// Until it answers, or exits; the bound only stops a service that hangs
	// (a first start migrates: over a minute at load 35, see startServeOn).
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if res, err := http.Get(url + "/api/health"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return url, out, errb
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve exited before it answered:\n%s\n%s", out.String(), errb.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s\n%s", out.String(), errb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// `serve` logs to stdout (JSON with LOG_FORMAT=json): one warning per
// production setting left unset, and the requests (feed tokens redacted).
func TestServeLogsToStdout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pb_data")
	url, out, _ := serveWithLogs(t, map[string]string{"LOG_FORMAT": "json", "SMTP_HOST": "", "CRON_SECRET": "", "METRICS_TOKEN": ""}, dir)
	for _, p := range []string{"/api/no-existe", "/api/agenda/calendar/secreto-del-feed-0123456789.ics"} {
		res, err := http.Get(url + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	want := []string{`"variable":"SMTP_HOST"`, `"variable":"CRON_SECRET"`, `"variable":"METRICS_TOKEN"`,
		`"url":"/api/no-existe"`, `/api/agenda/calendar/[REDACTED]`}
	deadline := time.Now().Add(2 * time.Minute) // only stops a hung test
	for {
		missing := ""
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				missing = w
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stdout lacks %s:\n%s", missing, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The container's health check: 0 against the service, 1 against nothing.
	if r := cli(t, nil, "healthcheck", "--url", url+"/api/health"); r.code != 0 || strings.TrimSpace(r.stdout) != "ok" {
		t.Fatalf("healthcheck: %+v", r)
	}
	if r := cli(t, nil, "healthcheck", "--url", "http://"+s3test.FreePort(t)+"/api/health"); r.code != 1 || !strings.Contains(r.stderr, "no responde") {
		t.Fatalf("healthcheck without a service: %+v", r)
	}
	if strings.Contains(out.String(), "secreto-del-feed") {
		t.Fatal("the feed token reached stdout")
	}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var v map[string]any
		line := sc.Text()
		if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &v) != nil || strings.Contains(line, "Server started") {
			t.Fatalf("not a JSON line: %q", line)
		}
	}
}

// Two `serve` on one data dir: the second fails at once, clearly, non-zero
// (the lock is exclusive; the limits and caches are per process).
func TestSecondServeOnOneDirFails(t *testing.T) {
	dir := migratedDir(t)
	serveWithLogs(t, nil, dir)
	done := make(chan result, 1)
	go func() { done <- cli(t, nil, "serve", "--http", s3test.FreePort(t), "--dir", dir) }()
	select {
	case r := <-done:
		if r.code != 1 || !strings.Contains(r.stderr, "ya está en uso por otro proceso de camellos") {
			t.Fatalf("second serve: exit %d, stderr %q", r.code, r.stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the second serve is running")
	}
}

// A command that fails creates nothing: `serve` on a busy port, `backup
// list` or `reminders send` on a missing data dir.
func TestNothingCreatedOnFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"serve", "--http", l.Addr().String()}, "la dirección ya está en uso"},
		{[]string{"backup", "list"}, "no existe"},
		{[]string{"backup", "create"}, "no existe"},
		{[]string{"reminders", "send"}, "no existe"},
	} {
		dir := filepath.Join(t.TempDir(), "no-existe")
		r := cli(t, nil, append(tc.args, "--dir", dir)...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, r.code, r.stderr)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%v created %s", tc.args, dir)
		}
	}
}

// `backup create NAME` refuses a name that exists (it overwrote it
// silently); the first backup is kept as it was.
func TestBackupCreateRefusesAnExistingName(t *testing.T) {
	dir := migratedDir(t)
	if r := cli(t, nil, "admin", "create", "ops@example.com", "clave-segura-1", "--dir", dir); r.code != 0 {
		t.Fatalf("admin: %+v", r)
	}
	if r := cli(t, nil, "backup", "create", "mia.zip", "--dir", dir); r.code != 0 {
		t.Fatalf("first backup: %+v", r)
	}
	path := filepath.Join(dir, "backups", "mia.zip")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r := cli(t, nil, "admin", "create", "otra@example.com", "clave-segura-2", "--dir", dir); r.code != 0 {
		t.Fatalf("admin: %+v", r)
	}
	r := cli(t, nil, "backup", "create", "mia.zip", "--dir", dir)
	if r.code != 1 || !strings.Contains(r.stderr, `ya existe una copia llamada "mia.zip"`) {
		t.Fatalf("second backup with the same name: %+v", r)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the first backup was overwritten")
	}
}

// The configuration is checked before anything runs; --version names the
// version and the commit; every CLI message is Spanish.
func TestCLIConfigurationAndVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pb_data")
	for k, v := range map[string]string{"APP_URL": "notaurl", "TRUSTED_PROXIES": "proxy", "LOG_FORMAT": "xml", "MAIL_FROM": "nadie", "VAPID_SUBJECT": "mailto:yo@localhost"} {
		r := cli(t, map[string]string{k: v}, "backup", "list", "--dir", dir)
		if r.code != 1 || !strings.Contains(r.stderr, k+":") || !strings.Contains(r.stderr, "configuración inválida") {
			t.Errorf("%s=%s: exit %d, stderr %q", k, v, r.code, r.stderr)
		}
	}
	r := cli(t, nil, "--version")
	// The commit the binary was stamped with (HEAD when it was linked: a
	// commit made during the run moves HEAD, not the binary).
	rev := testkit.BinaryCommit(t)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "camellos "+testkit.BinaryVersion+" (commit ") ||
		(len(rev) >= 12 && !strings.Contains(r.stdout, "(commit "+rev[:12]+",")) || strings.Contains(r.stdout, "untracked") {
		t.Fatalf("--version: %+v", r)
	}
}

// `healthcheck --wait` right after the service was started (the README's
// `systemctl enable --now camellos && camellos healthcheck --wait 60s`):
// it keeps asking until the service answers, instead of failing while
// migrations run; a bad or negative wait, or nothing listening until the
// wait ends, exits 1.
func TestHealthcheckWaitsForTheService(t *testing.T) {
	addr := s3test.FreePort(t)
	// A wait as long as startServeOn's: the service migrates a fresh dir first.
	hc := exec.Command(binary(t), "healthcheck", "--wait", "300s", "--url", "http://"+addr+"/api/health")
	var out bytes.Buffer
	hc.Stdout, hc.Stderr = &out, &out
	if err := hc.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- hc.Wait() }()
	startServeOn(t, addr, map[string]string{"AUTH_IP_LIMIT": "0"}, filepath.Join(t.TempDir(), "pb_data"))
	if err := <-done; err != nil || strings.TrimSpace(out.String()) != "ok" {
		t.Fatalf("healthcheck --wait: %v\n%s", err, out.String())
	}
	nothing := "http://" + s3test.FreePort(t) + "/api/health"
	for _, tc := range []struct {
		wait, stderr string
	}{
		{"300ms", "no responde"},
		{"-1s", "no puede ser negativo"},
		{"pronto", `valor inválido "pronto" para la opción "--wait"`},
	} {
		r := cli(t, nil, "healthcheck", "--wait", tc.wait, "--url", nothing)
		if r.code != 1 || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("--wait %s: %+v", tc.wait, r)
		}
	}
}
