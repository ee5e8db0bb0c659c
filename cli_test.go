package main

import (
	"archive/zip"
	"bytes"
	"database/sql"
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
	"camellos/internal/session"
	"camellos/internal/testkit"

	_ "modernc.org/sqlite"
)

// TestMain removes the binary and migrated data dir built for this package
// alone (when they are not the go test run's shared ones: testkit.Binary).
func TestMain(m *testing.M) {
	code := m.Run()
	testkit.RemoveBinary()
	os.Exit(code)
}

// binary is the service's binary, built once per go test run.
func binary(t *testing.T) string {
	t.Helper()
	return testkit.Binary(t)
}

// migratedDir is a new data dir the binary migrated (testkit.MigratedDir).
func migratedDir(t *testing.T) string {
	t.Helper()
	return testkit.MigratedDir(t)
}

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the binary with args and the extra environment.
func cli(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	return cliBin(t, binary(t), env, args...)
}

// cliBin runs another build of the service (an older release) with args.
func cliBin(t *testing.T, bin string, env map[string]string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return r
}

// Every failure exits non-zero with its message on stderr (nothing on
// stdout); help and version exit 0.
func TestCLIExitCodes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pb_data")
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"no-such-command"}, 1, `orden desconocida "no-such-command"`},
		{[]string{"serve", "--no-such-flag"}, 1, "opción desconocida: --no-such-flag"},
		{[]string{"seed", "--camellos", "abc"}, 1, `valor inválido "abc" para la opción "--camellos"`},
		{[]string{"seed", "--camellos", "-3"}, 1, "--camellos: se esperaba un entero entre 1 y 100000"},
		{[]string{"seed", "--camellos", "100001"}, 1, "--camellos: se esperaba un entero entre 1 y 100000"},
		{[]string{"seed", "--clients", "0"}, 1, "--clients: se esperaba un entero entre 1 y 100000"},
		{[]string{"seed", "extra"}, 1, `orden desconocida "extra"`},
		{[]string{"admin", "create", "x@example.com"}, 1, "uso: admin create"},
		{[]string{"reminders", "send", "now"}, 1, "orden desconocida"},
		{[]string{"migrate", "sideways"}, 1, "orden de migrate no soportada"},
		{[]string{"backup", "restore"}, 1, "se esperaban 1 argumento(s)"},
		{[]string{"backup", "restore", "../x.zip"}, 1, "nombre de copia inválido"},
		{[]string{"backup", "restore", "nope.zip"}, 1, `no existe la copia "nope.zip"`},
		{[]string{"backup", "frobnicate"}, 1, "orden desconocida"},
		{[]string{"backup"}, 1, "necesita una suborden"},
		{[]string{"admin", "delete", "x"}, 1, "orden desconocida"},
		{[]string{"--help"}, 0, ""},
		{[]string{"backup", "--help"}, 0, ""},
		{[]string{"migrate", "--help"}, 0, ""},
	} {
		args := tc.args
		if tc.code != 0 {
			args = append(args, "--dir", dir)
		}
		r := cli(t, nil, args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%v: exit %d (want %d), stderr %q", tc.args, r.code, tc.code, r.stderr)
		}
		if tc.code != 0 && strings.Contains(r.stdout, "Error") {
			t.Errorf("%v: the error went to stdout: %q", tc.args, r.stdout)
		}
	}
	// A malformed environment variable stops every command.
	if r := cli(t, map[string]string{"BACKUP_SCHEDULE": "every tuesday"}, "backup", "list", "--dir", dir); r.code != 1 || !strings.Contains(r.stderr, "BACKUP_SCHEDULE") {
		t.Errorf("bad BACKUP_SCHEDULE: %d %q", r.code, r.stderr)
	}
	if r := cli(t, map[string]string{"S3_FILES": "1"}, "backup", "list", "--dir", dir); r.code != 1 || !strings.Contains(r.stderr, "S3_FILES=1 requiere") {
		t.Errorf("S3_FILES without S3: %d %q", r.code, r.stderr)
	}
	if r := cli(t, map[string]string{"BACKUP_KEEP": "-1"}, "backup", "list", "--dir", dir); r.code != 1 || !strings.Contains(r.stderr, "BACKUP_KEEP") {
		t.Errorf("bad BACKUP_KEEP: %d %q", r.code, r.stderr)
	}
}

// startServe runs `serve` on a free port and waits for its health check.
func startServe(t *testing.T, env map[string]string, dir string) (url string, stop func()) {
	t.Helper()
	return startServeOn(t, s3test.FreePort(t), env, dir)
}

// startServeOn is startServe on a given address.
func startServeOn(t *testing.T, addr string, env map[string]string, dir string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "--http", addr, "--dir", dir)
	cmd.Dir = t.TempDir()
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A failed test shows what the service said (after it stopped: cleanups
	// run last registered first).
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve --dir %s said:\n%s", dir, logs.String())
		}
	})
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	t.Cleanup(stop)
	url = "http://" + addr
	// Until it answers, or exits. On a fresh dir the service migrates first:
	// at load 35 that alone took over a minute, so the bound only stops a
	// service that hangs.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		res, err := http.Get(url + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return url, stop
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve exited before it answered:\n%s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// `serve` on a busy port exits 1 with the reason on stderr.
func TestServeOnBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := cli(t, nil, "serve", "--http", l.Addr().String(), "--dir", filepath.Join(t.TempDir(), "pb_data"))
	if r.code != 1 || !strings.Contains(r.stderr, "la dirección ya está en uso") {
		t.Fatalf("serve on a busy port: exit %d, stderr %q", r.code, r.stderr)
	}
}

// seed prints no progress bars when stdout is not a terminal.
func TestSeedWithoutTerminalHasNoProgressBars(t *testing.T) {
	r := cli(t, nil, "seed", "--camellos", "3", "--clients", "2", "--dir", filepath.Join(t.TempDir(), "pb_data"))
	if r.code != 0 || strings.Contains(r.stdout, "\r") || strings.Contains(r.stdout, "[#") || !strings.Contains(r.stdout, "Accesos de demostración") {
		t.Fatalf("seed to a pipe: exit %d\n%q\n%s", r.code, r.stdout, r.stderr)
	}
}

// emails reads the e-mails in a data dir.
func emails(t *testing.T, dir string) string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "data.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT email FROM users ORDER BY email")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var e string
		_ = rows.Scan(&e)
		out = append(out, e)
	}
	return strings.Join(out, ",")
}

// Backups through PocketBase's machinery to a real S3 server (versitygw):
// create, list, restore; an unknown name or a damaged archive leaves the
// data untouched; a running service blocks restore; wrong credentials and
// an unreachable server fail loudly.
func TestBackupCommandsOnS3(t *testing.T) {
	s3 := s3test.Start(t, "backups")
	env := s3.Env("backups")
	dir := migratedDir(t)
	run := func(env map[string]string, args ...string) result {
		t.Helper()
		return cli(t, env, append(args, "--dir", dir)...)
	}
	if r := run(env, "admin", "create", "antes@example.com", "clave-segura-1"); r.code != 0 {
		t.Fatalf("admin: %+v", r)
	}
	r := run(env, "backup", "create", "primera.zip")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "primera.zip" {
		t.Fatalf("backup create: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(s3.Dir, "backups", "primera.zip")); err != nil {
		t.Fatalf("the backup is not in the bucket: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "backups", "primera.zip")); err == nil {
		t.Fatal("the backup was written locally too")
	}
	r = run(env, "backup", "create")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "camellos_") {
		t.Fatalf("backup create without a name: %+v", r)
	}
	r = run(env, "backup", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "primera.zip") || !strings.Contains(r.stdout, strings.TrimSpace(run(env, "backup", "list").stdout[:9])) {
		t.Fatalf("backup list: %+v", r)
	}

	if r := run(env, "admin", "create", "despues@example.com", "clave-segura-2"); r.code != 0 {
		t.Fatalf("admin: %+v", r)
	}
	before := emails(t, dir)
	if before != "antes@example.com,despues@example.com" {
		t.Fatalf("users before restore: %s", before)
	}

	// Unknown name, damaged archives: clear error, data untouched.
	garbage := []byte("esto no es un zip")
	var badDB bytes.Buffer
	zw := zip.NewWriter(&badDB)
	w, _ := zw.Create("data.db")
	_, _ = w.Write(bytes.Repeat([]byte("basura "), 5000))
	zw.Close()
	var noDB bytes.Buffer
	zw = zip.NewWriter(&noDB)
	w, _ = zw.Create("otra-cosa.txt")
	_, _ = w.Write([]byte("hola"))
	zw.Close()
	for name, body := range map[string][]byte{"basura.zip": garbage, "malo.zip": badDB.Bytes(), "sin-db.zip": noDB.Bytes()} {
		if res := s3.Do(t, http.MethodPut, "/backups/"+name, body); res.StatusCode != 200 {
			t.Fatalf("put %s: %d", name, res.StatusCode)
		}
	}
	for name, want := range map[string]string{
		"no-existe.zip": `no existe la copia "no-existe.zip"`,
		"basura.zip":    "está dañada (no es un zip válido",
		"malo.zip":      "está dañada (data.db no es una base SQLite",
		"sin-db.zip":    "está dañada (no contiene data.db)",
	} {
		r := run(env, "backup", "restore", name)
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("restore %s: exit %d, %q", name, r.code, r.stderr)
		}
		if got := emails(t, dir); got != before {
			t.Fatalf("restore %s changed the data: %s", name, got)
		}
	}

	// A running service holds the data dir: restore refuses.
	_, stop := startServe(t, env, dir)
	r = run(env, "backup", "restore", "primera.zip")
	if r.code != 1 || !strings.Contains(r.stderr, "en uso por un servicio en marcha") {
		t.Fatalf("restore under a running service: %+v", r)
	}
	if r := run(env, "backup", "create", "viva.zip"); r.code != 1 || !strings.Contains(r.stderr, "en uso por un servicio en marcha") {
		t.Fatalf("create under a running service: %+v", r)
	}
	stop()

	r = run(env, "backup", "restore", "primera.zip")
	if r.code != 0 || !strings.Contains(r.stdout, "Restaurada primera.zip") {
		t.Fatalf("restore: %+v", r)
	}
	if got := emails(t, dir); got != "antes@example.com" {
		t.Fatalf("users after restore: %s", got)
	}
	// The restored dir serves.
	url, stop := startServe(t, env, dir)
	if res, err := http.Get(url + "/api/camellos"); err != nil || res.StatusCode != 200 {
		t.Fatalf("serve after restore: %v", err)
	}
	stop()

	// Wrong credentials and an unreachable server fail loudly.
	bad := s3.Env("backups")
	bad["S3_SECRET"] = "no-es-el-secreto"
	if r := run(bad, "backup", "create", "x.zip"); r.code != 1 || !strings.Contains(r.stderr, "la copia de seguridad falló") {
		t.Fatalf("wrong secret: %+v", r)
	}
	if r := run(bad, "backup", "list"); r.code != 1 || !strings.Contains(r.stderr, "no se pudo listar") {
		t.Fatalf("list with a wrong secret: %+v", r)
	}
	s3.Stop()
	if r := run(env, "backup", "create", "y.zip"); r.code != 1 || !strings.Contains(r.stderr, "la copia de seguridad falló") {
		t.Fatalf("unreachable S3: %+v", r)
	}
}

// serveWithAdmin runs `serve` on a migrated data dir holding one admin
// (made by the CLI before the service starts), signed in.
func serveWithAdmin(t *testing.T, email, password string) (dir string, env map[string]string, url string, admin *http.Cookie) {
	t.Helper()
	dir = migratedDir(t)
	env = map[string]string{"AUTH_IP_LIMIT": "0"}
	if r := cli(t, env, "admin", "create", email, password, "--dir", dir); r.code != 0 {
		t.Fatalf("admin create: %+v", r)
	}
	url, _ = startServe(t, env, dir)
	return dir, env, url, signIn(t, url, email, password)
}

// A session revoked by another process (the CLI changes the admin's
// password) is refused on the service's very next request.
func TestSessionRevokedByAnotherProcess(t *testing.T) {
	dir, env, url, cookie := serveWithAdmin(t, "jefa@example.com", "clave-segura-1")
	me := func() int {
		req, _ := http.NewRequest("GET", url+"/api/me", nil)
		req.AddCookie(cookie)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if me() != 200 || me() != 200 { // the second answer comes from the session cache
		t.Fatal("session not valid")
	}
	if r := cli(t, env, "admin", "create", "jefa@example.com", "otra-clave-22", "--dir", dir); r.code != 0 {
		t.Fatalf("admin update: %+v", r)
	}
	if got := me(); got != 401 {
		t.Fatalf("a session revoked by another process answers %d", got)
	}
}

// signIn logs in over HTTP and returns the session cookie.
func signIn(t *testing.T, url, email, password string) *http.Cookie {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	res, err := http.Post(url+"/api/auth/login", "application/json", bytes.NewReader(body))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("login: %v %v", err, res)
	}
	defer res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == session.SessionCookie {
			return c
		}
	}
	t.Fatal("login: no session cookie")
	return nil
}

// `ledger verify` exits 0 on a sound ledger and 1, naming the problem, on
// one that does not balance (corrupted through the file, triggers dropped).
func TestLedgerVerifyCLI(t *testing.T) {
	dir := migratedDir(t)
	if r := cli(t, nil, "ledger", "verify", "--dir", dir); r.code != 0 || !strings.Contains(r.stdout, "el libro contable cuadra") {
		t.Fatalf("sound ledger: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"DROP TRIGGER ledger_transactions_balanced",
		"INSERT INTO ledger_entries (tx, account, amount) VALUES ('t00000000000001', 'platform_revenue', -7)",
		"INSERT INTO ledger_entries (tx, account, amount) VALUES ('t00000000000001', 'client_payments', 6)",
		"INSERT INTO ledger_transactions (id, kind, key, at) VALUES ('t00000000000001', 'adjustment', 'k', 'x')",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()
	r := cli(t, nil, "ledger", "verify", "--dir", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "transacciones descuadradas") || !strings.Contains(r.stdout, "falta el trigger") ||
		!strings.Contains(r.stderr, "no cuadra") {
		t.Fatalf("unbalanced ledger: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
