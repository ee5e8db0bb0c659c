package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Snapshot writes a consistent copy of k's data into dir: the database
// (VACUUM INTO) and the uploaded files. Many services then boot from it
// with NewFrom, each on its own copy: a seeded world made once per package
// instead of once per test (the browser suite).
func Snapshot(k *Kit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := k.App.DB().NewQuery("VACUUM INTO {:p}").
		Bind(map[string]any{"p": filepath.Join(dir, "data.db")}).Execute(); err != nil {
		return fmt.Errorf("snapshot of the database: %w", err)
	}
	storage := filepath.Join(k.App.DataDir(), "storage")
	if _, err := os.Stat(storage); err == nil {
		if err := os.CopyFS(filepath.Join(dir, "storage"), os.DirFS(storage)); err != nil {
			return fmt.Errorf("snapshot of the files: %w", err)
		}
	}
	return nil
}

// NewFrom boots the service on a fresh copy of a snapshot written by
// Snapshot; what the test writes never reaches the snapshot.
func NewFrom(t testing.TB, snapshot string, opts ...Option) *Kit {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(snapshot)); err != nil {
		t.Fatalf("copy of the snapshot: %v", err)
	}
	return newOn(t, dir, opts...)
}
