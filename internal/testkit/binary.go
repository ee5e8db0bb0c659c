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

var binary struct {
	once sync.Once
	path string
	own  string // a directory this test binary made (outside `go test`)
	err  error
}

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

// RemoveBinary removes the binary Binary built for this test binary alone
// (nothing when it is the run's shared one): call it from TestMain.
func RemoveBinary() {
	if binary.own != "" {
		os.RemoveAll(binary.own)
	}
}

func buildBinary(root, dir string) error {
	ldflags := "-s -w -X camellos/modules/ops.version=" + BinaryVersion
	if rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		ldflags += " -X camellos/modules/ops.commit=" + strings.TrimSpace(string(rev))
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
