package s3test

import (
	"os"
	"path/filepath"
	"testing"
)

// A tool `.ci/run` built into the tool cache is found without
// CAMELLOS_VERSITYGW and without PATH (a plain `go test ./...` after
// `.ci/run` runs the S3 and Litestream tests instead of skipping them).
func TestFindLooksInTheToolCache(t *testing.T) {
	cache := t.TempDir()
	tool := filepath.Join(cache, "versitygw")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAMELLOS_VERSITYGW", "")
	t.Setenv("CAMELLOS_LITESTREAM", "") // .ci/run exports both
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CAMELLOS_BIN_CACHE", cache)
	if p, err := Find("CAMELLOS_VERSITYGW", "versitygw"); err != nil || p != tool {
		t.Fatalf("with CAMELLOS_BIN_CACHE: %q %v", p, err)
	}
	// The default cache is ~/.cache/camellos-bin.
	home := t.TempDir()
	def := filepath.Join(home, ".cache", "camellos-bin")
	if err := os.MkdirAll(def, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(def, "litestream"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAMELLOS_BIN_CACHE", "")
	t.Setenv("HOME", home)
	if p, err := Find("CAMELLOS_LITESTREAM", "litestream"); err != nil || p != filepath.Join(def, "litestream") {
		t.Fatalf("default cache: %q %v", p, err)
	}
	// Nowhere: not found, no error; a variable naming a missing file: error.
	if p, err := Find("CAMELLOS_LITESTREAM", "no-such-tool"); err != nil || p != "" {
		t.Fatalf("missing tool: %q %v", p, err)
	}
	t.Setenv("CAMELLOS_LITESTREAM", filepath.Join(home, "nope"))
	if _, err := Find("CAMELLOS_LITESTREAM", "litestream"); err == nil {
		t.Fatal("a variable naming a missing file must be an error")
	}
}
