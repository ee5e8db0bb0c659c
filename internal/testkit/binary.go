package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BinaryVersion is the version Binary stamps (its commit is the checkout's
// HEAD, as deploy/release.sh stamps a release).
const BinaryVersion = "v0.0.0-test"

var binary, migrated struct {
	once sync.Once
	path string
	own  string // a directory this test binary made (outside `go test`)
	err  error
}

// commitFile holds, beside the binary, the commit Binary stamped into it.
const commitFile = "commit"

// Binary returns the service's binary built from this checkout, for tests
// that run it as a child process (the CLI, crash and upgrade drills).
// Linking it costs seconds of CPU, so it is built once per `go test` run
// and shared by every test binary of the run (runDir), or once per test
// binary when that cannot be shared (RemoveBinary removes it then). It is
// built as deploy/release.sh builds a release, stripped (-s -w) with the
// version (BinaryVersion) and commit stamped, but with the tests' own
// compiled packages (no -trimpath, cgo as configured): only the link is new.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds the service's binary")
	}
	binary.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			binary.err = err
			return
		}
		dir, err := runDir("binary", func(dir string) error { return buildBinary(root, dir) })
		if err != nil {
			binary.err = err
			return
		}
		if dir == "" {
			if dir, err = os.MkdirTemp("", "camellos-bin-"); err != nil {
				binary.err = err
				return
			}
			binary.own = dir
			if err := buildBinary(root, dir); err != nil {
				binary.err = err
				return
			}
		}
		binary.path = filepath.Join(dir, "camellos")
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// MigratedDir returns a new data dir (under t.TempDir()) holding a copy of
// one the binary migrated (`camellos migrate up`), made once per `go test`
// run like Binary. Most tests that run the binary need the service's
// schema, not the first migration of an empty dir, which costs over a
// second of CPU each time; tests about an empty dir (the first start,
// `healthcheck --wait` while it migrates, `seed` or `admin create` on
// nothing) keep one. It is the binary's own: passwords hash at
// PocketBase's default cost, unlike New's template.
func MigratedDir(t testing.TB) string {
	t.Helper()
	bin := Binary(t)
	migrated.once.Do(func() {
		migrate := func(dir string) error {
			cmd := exec.Command(bin, "migrate", "up", "--dir", filepath.Join(dir, "pb_data"))
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("migrate up: %v\n%s", err, out)
			}
			return nil
		}
		dir, err := runDir("migrated", migrate)
		if err == nil && dir == "" {
			if dir, err = os.MkdirTemp("", "camellos-migrated-"); err == nil {
				migrated.own = dir
				err = migrate(dir)
			}
		}
		migrated.path, migrated.err = filepath.Join(dir, "pb_data"), err
	})
	if migrated.err != nil {
		t.Fatal(migrated.err)
	}
	dir := filepath.Join(t.TempDir(), "pb_data")
	if err := os.CopyFS(dir, os.DirFS(migrated.path)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// BinaryCommit is the commit Binary stamped into the binary (the
// checkout's HEAD when it was linked; "" outside a git checkout). A test
// compares `--version` with it, not with HEAD now: a commit made while
// the suite runs moves HEAD, not the binary.
func BinaryCommit(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(Binary(t)), commitFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// RemoveBinary removes what Binary and MigratedDir made for this test
// binary alone (nothing when they are the run's shared ones): call it from
// TestMain.
func RemoveBinary() {
	for _, own := range []string{binary.own, migrated.own} {
		if own != "" {
			os.RemoveAll(own)
		}
	}
}

func buildBinary(root, dir string) error {
	ldflags := "-s -w -X camellos/modules/ops.version=" + BinaryVersion
	commit := ""
	if rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(rev))
		ldflags += " -X camellos/modules/ops.commit=" + commit
	}
	if err := os.WriteFile(filepath.Join(dir, commitFile), []byte(commit+"\n"), 0o644); err != nil {
		return err
	}
	build := exec.Command("go", "build", "-ldflags", ldflags, "-o", filepath.Join(dir, "camellos"), ".")
	build.Dir = root
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// moduleRoot is the directory of this checkout's go.mod, found upwards
// from the test's working directory (its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's directory")
		}
		dir = parent
	}
}
