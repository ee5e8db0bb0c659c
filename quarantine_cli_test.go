package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"camellos/internal/imagecheck/craft"
)

// TestMigrateQuarantinesStoredBombs: on a data dir from before the upload
// policy (the quarantine migration not applied yet) whose storage holds a
// decompression bomb in a user's avatar, `migrate up` moves it to
// quarantine/, empties the field and records it in file_quarantine
// (issue 21).
func TestMigrateQuarantinesStoredBombs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pb_data")
	if r := cli(t, nil, "migrate", "up", "--dir", dir); r.code != 0 {
		t.Fatalf("migrate up: %d %s", r.code, r.stderr)
	}
	if r := cli(t, nil, "admin", "create", "ana@example.com", "secreto-123", "--dir", dir); r.code != 0 {
		t.Fatalf("admin create: %d %s", r.code, r.stderr)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var userID, usersCol string
	if err := db.QueryRow(`SELECT id, (SELECT id FROM _collections WHERE name = 'users') FROM users WHERE email = 'ana@example.com'`).Scan(&userID, &usersCol); err != nil {
		t.Fatal(err)
	}
	const name = "bomb_0123456789.png"
	folder := filepath.Join(dir, "storage", usersCol, userID)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, name), craft.BombPNG(1_000_000, 1_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE users SET avatar = '` + name + `' WHERE id = '` + userID + `'`,
		`DELETE FROM _migrations WHERE file = '1764100001_quarantine_files.go'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	r := cli(t, nil, "migrate", "up", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "1764100001_quarantine_files.go") {
		t.Fatalf("migrate up: %d %q %q", r.code, r.stdout, r.stderr)
	}
	var avatar, violation, storedAt string
	if err := db.QueryRow(`SELECT avatar FROM users WHERE id = ?`, userID).Scan(&avatar); err != nil || avatar != "" {
		t.Fatalf("avatar %q: %v", avatar, err)
	}
	if err := db.QueryRow(`SELECT violation, storedAt FROM file_quarantine WHERE sourceCollection = 'users' AND sourceRecord = ? AND field = 'avatar' AND file = ?`,
		userID, name).Scan(&violation, &storedAt); err != nil || violation != "dimensions" {
		t.Fatalf("file_quarantine: %q %v", violation, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "storage", filepath.FromSlash(storedAt))); err != nil {
		t.Fatalf("quarantined copy: %v", err)
	}
	if _, err := os.Stat(filepath.Join(folder, name)); !os.IsNotExist(err) {
		t.Fatalf("original still in the record's folder: %v", err)
	}
}
