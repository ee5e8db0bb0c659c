package main

import (
	"bytes"
	"camellos/internal/config"
	"database/sql"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// migrations reads the applied migrations of a data dir.
func migrations(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "data.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT file FROM _migrations ORDER BY applied, file")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var f string
		_ = rows.Scan(&f)
		out = append(out, f)
	}
	return out
}

// migrateDown runs `migrate down 1`, answering its confirmation.
func migrateDown(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(binary(t), "migrate", "down", "1", "--dir", dir)
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader("y\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("migrate down: %v\n%s", err, out.String())
	}
	return out.String()
}

// The upgrade procedure of docs/operations.md, on a data dir of the
// previous schema (this binary with its last migration reverted, which is
// what the previous release left): back up, start the new binary (the
// pending migration runs at start; the data is there and serves), then
// both roll-backs: `migrate down 1` (the schema goes back, the data stays)
// and `backup restore` of the backup taken before the upgrade.
func TestUpgradeAndRollback(t *testing.T) {
	dir := migratedDir(t)
	env := map[string]string{"AUTH_IP_LIMIT": "0"}
	if r := cli(t, env, "admin", "create", "ops@example.com", "clave-segura-1", "--dir", dir); r.code != 0 {
		t.Fatalf("admin: %+v", r)
	}
	all := migrations(t, dir)
	if len(all) < 2 {
		t.Fatalf("migrations: %v", all)
	}
	last := all[len(all)-1]
	out := migrateDown(t, dir)
	if got := migrations(t, dir); len(got) != len(all)-1 || strings.Contains(strings.Join(got, ","), last) {
		t.Fatalf("the previous schema still has %s (%s)", last, out)
	}
	// 1. Back up (the service is stopped).
	if r := cli(t, env, "backup", "create", "antes-de-actualizar.zip", "--dir", dir); r.code != 0 {
		t.Fatalf("backup: %+v", r)
	}
	// 2-4. Replace the binary and start it: the migration is applied.
	url, _, _ := serveWithLogs(t, env, dir)
	signIn(t, url, "ops@example.com", "clave-segura-1")
	if res, err := http.Get(url + "/api/categories"); err != nil || res.StatusCode != 200 {
		t.Fatalf("after the upgrade: %v", err)
	}
	stopAll(t)
	if got := migrations(t, dir); len(got) != len(all) || got[len(got)-1] != last {
		t.Fatalf("the upgrade did not apply %s: %v", last, got)
	}
	// Roll back, one: revert the migration; the data stays.
	migrateDown(t, dir)
	if got := migrations(t, dir); len(got) != len(all)-1 {
		t.Fatalf("migrate down: %v", got)
	}
	if got := emails(t, dir); got != "ops@example.com" {
		t.Fatalf("data after migrate down: %s", got)
	}
	// Roll back, two: restore the backup taken before the upgrade.
	if r := cli(t, env, "admin", "create", "despues@example.com", "clave-segura-2", "--dir", dir); r.code != 0 {
		t.Fatalf("admin: %+v", r)
	}
	if r := cli(t, env, "backup", "restore", "antes-de-actualizar.zip", "--dir", dir); r.code != 0 {
		t.Fatalf("restore: %+v", r)
	}
	if got := emails(t, dir); got != "ops@example.com" {
		t.Fatalf("data after the restore: %s", got)
	}
	if got := migrations(t, dir); len(got) != len(all)-1 {
		t.Fatalf("schema after the restore: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "data.db")); err != nil {
		t.Fatal(err)
	}
}

// previousRelease reads the newest released version and its commit from
// CHANGELOG.md (a heading "## vX.Y.Z — DATE (commit HASH)").
func previousRelease(t *testing.T) (version, commit string) {
	t.Helper()
	b, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## (v\d+\.\d+\.\d+) — [0-9-]+ \(commit ([0-9a-f]{40})\)`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("CHANGELOG.md names no released version with its commit")
	}
	return m[1], m[2]
}

// buildRelease builds the service as it was at commit (from git's objects,
// into a temporary tree), stamped with its version and commit as
// deploy/release.sh stamps a release.
func buildRelease(t *testing.T, version, commit string) string {
	t.Helper()
	if err := exec.Command("git", "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		t.Skipf("the previous release %s (%s) is not in this clone's history: %v", version, commit, err)
	}
	// Built once per commit into the tool cache .ci/run keeps (a release
	// never changes), so later runs start at once.
	cached := ""
	if dir := config.BinCache(); dir != "" && os.MkdirAll(dir, 0o755) == nil {
		cached = filepath.Join(dir, "camellos-"+version+"-"+commit[:12])
		if st, err := os.Stat(cached); err == nil && st.Mode()&0o111 != 0 {
			return cached
		}
	}
	src := t.TempDir()
	archive := exec.Command("git", "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v", commit, err)
	}
	if err := untar.Wait(); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "camellos-"+version)
	// Without -trimpath (unlike deploy/release.sh): the dependencies then
	// come from the build cache the tests' own build filled; only this
	// module's packages compile again.
	build := exec.Command("go", "build", "-ldflags",
		"-X camellos/modules/ops.version="+version+" -X camellos/modules/ops.commit="+commit, "-o", bin, ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", version, err, out)
	}
	if cached != "" {
		tmp := cached + ".part"
		if b, err := os.ReadFile(bin); err == nil && os.WriteFile(tmp, b, 0o755) == nil && os.Rename(tmp, cached) == nil {
			return cached
		}
		os.Remove(tmp)
	}
	return bin
}

// createCategory creates a category as the signed-in admin.
func createCategory(t *testing.T, url string, admin *http.Cookie, name string) {
	t.Helper()
	body := strings.NewReader(`{"name":"` + name + `","description":"Creada en la prueba de actualización"}`)
	req, _ := http.NewRequest(http.MethodPost, url+"/api/admin/categories", body)
	req.Header.Set("Content-Type", "application/json")
	req.AddCookie(admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("create category %s: %d %s", name, res.StatusCode, b)
	}
}

// categoryNames lists the public categories' names.
func categoryNames(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url + "/api/categories")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("categories: %d %s", res.StatusCode, b)
	}
	return string(b)
}

// The upgrade procedure of docs/operations.md from the previous release's
// own binary (built from its commit, named in CHANGELOG.md) to this one,
// and both roll-backs back to that binary: back up with the old binary;
// start the new one on the old data dir (the migrations the release added
// run at start; the old data serves, the old admin signs in); schema
// roll-back with `migrate down N` (N = the migrations this release added)
// and the old binary serves again; full roll-back by `backup restore` with
// the old binary, which drops what was written after the backup.
func TestUpgradeFromThePreviousRelease(t *testing.T) {
	version, commit := previousRelease(t)
	old := buildRelease(t, version, commit)
	if r := cliBin(t, old, nil, "--version"); r.code != 0 || !strings.Contains(r.stdout, version) {
		t.Fatalf("%s --version: %+v", version, r)
	}
	dir := filepath.Join(t.TempDir(), "pb_data")
	env := map[string]string{"AUTH_IP_LIMIT": "0"}
	// The previous release in service: an admin and a category.
	if r := cliBin(t, old, env, "admin", "create", "ops@example.com", "clave-segura-1", "--dir", dir); r.code != 0 {
		t.Fatalf("admin with %s: %+v", version, r)
	}
	url, _, _ := serveBinWithLogs(t, old, env, dir)
	createCategory(t, url, signIn(t, url, "ops@example.com", "clave-segura-1"), "Antes de actualizar")
	stopAll(t)
	before := migrations(t, dir)

	// 1. Back up, with the old binary, the service stopped.
	if r := cliBin(t, old, env, "backup", "create", "antes-de-actualizar.zip", "--dir", dir); r.code != 0 {
		t.Fatalf("backup with %s: %+v", version, r)
	}
	// 2-3. The new binary starts on it: its migrations run, the data serves.
	url, _, _ = serveWithLogs(t, env, dir)
	admin := signIn(t, url, "ops@example.com", "clave-segura-1")
	if got := categoryNames(t, url); !strings.Contains(got, "Antes de actualizar") {
		t.Fatalf("after the upgrade the old category is gone: %s", got)
	}
	createCategory(t, url, admin, "Despues de actualizar")
	stopAll(t)
	after := migrations(t, dir)
	added := len(after) - len(before)
	if added < 0 || strings.Join(after[:len(before)], ",") != strings.Join(before, ",") {
		t.Fatalf("the upgrade rewrote the applied migrations:\nbefore %v\nafter  %v", before, after)
	}
	t.Logf("%s → this build: %d migrations added %v", version, added, after[len(before):])

	// 4a. Roll back the schema with the new binary, then the old one serves.
	if added > 0 {
		cmd := exec.Command(binary(t), "migrate", "down", strconv.Itoa(added), "--dir", dir)
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader("y\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("migrate down %d: %v\n%s", added, err, out)
		}
	}
	if got := migrations(t, dir); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Fatalf("after migrate down %d the schema is not %s's:\n%v\n%v", added, version, got, before)
	}
	url, _, _ = serveBinWithLogs(t, old, env, dir)
	signIn(t, url, "ops@example.com", "clave-segura-1")
	if got := categoryNames(t, url); !strings.Contains(got, "Antes de actualizar") || !strings.Contains(got, "Despues de actualizar") {
		t.Fatalf("%s after the schema roll-back: %s", version, got)
	}
	stopAll(t)

	// 4b. Upgrade again, then roll everything back to the backup.
	url, _, _ = serveWithLogs(t, env, dir)
	signIn(t, url, "ops@example.com", "clave-segura-1")
	stopAll(t)
	if r := cliBin(t, old, env, "backup", "restore", "antes-de-actualizar.zip", "--dir", dir); r.code != 0 {
		t.Fatalf("restore with %s: %+v", version, r)
	}
	if got := migrations(t, dir); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Fatalf("after the restore the schema is not %s's: %v", version, got)
	}
	url, _, _ = serveBinWithLogs(t, old, env, dir)
	got := categoryNames(t, url)
	if !strings.Contains(got, "Antes de actualizar") || strings.Contains(got, "Despues de actualizar") {
		t.Fatalf("%s after the restore: %s", version, got)
	}
	stopAll(t)
}
