package main

import (
	"bytes"
	"database/sql"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
	dir := filepath.Join(t.TempDir(), "pb_data")
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
