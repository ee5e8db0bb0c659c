package hardening_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// TestMain removes the binary built once for the crash tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binary builds the service once per test run (linking it costs seconds
// of CPU; every crash test runs the same build).
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "camellos-hardening-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "camellos")
		build := exec.Command("go", "build", "-o", built.bin, "camellos")
		build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}
