package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Under `go test`, the template a binary uses is the one stored for its
// run: a second request reads it back and never builds.
func TestTemplateIsSharedByTheBinariesOfOneRun(t *testing.T) {
	run := goTestRun()
	if run == "" {
		t.Skip("not started by the go command: the template is built per binary")
	}
	files, err := migratedTemplate()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), "camellos-testkit-"+run+"-template-"+migrationsKey())
	stored, err := os.ReadFile(filepath.Join(dir, "data.db"))
	if err != nil {
		t.Fatalf("the run's template is not stored: %v", err)
	}
	if !bytes.Equal(stored, files["data.db"]) {
		t.Fatal("the stored data.db is not the one this binary uses")
	}
	again, err := sharedTemplate(func() (map[string][]byte, error) {
		t.Fatal("built again although the run's template is stored")
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(files) || !bytes.Equal(again["data.db"], files["data.db"]) {
		t.Fatalf("read back %d files, want %d with the same data.db", len(again), len(files))
	}
}

// Templates and locks of go commands that exited are removed; a running
// one's stay, and so does anything else in the temp dir.
func TestTemplatesOfExitedRunsAreRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	_, start, ok := procStat(os.Getpid())
	if !ok {
		t.Skip("no /proc here")
	}
	live := "camellos-testkit-" + strconv.Itoa(os.Getpid()) + "-" + start
	exited := "camellos-testkit-" + strconv.Itoa(os.Getpid()) + "-1" // same pid, another start: not this process
	keep := []string{live + "-abc", live + "-abc.lock", "camellos-testkit-template-123", "other"}
	gone := []string{exited + "-abc", exited + "-abc.lock", exited + "-abc.part42"}
	for _, n := range append(append([]string{}, keep...), gone...) {
		if err := os.Mkdir(filepath.Join(tmp, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeExitedRuns()
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(tmp, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
	for _, n := range gone {
		if _, err := os.Stat(filepath.Join(tmp, n)); err == nil {
			t.Errorf("%s kept", n)
		}
	}
}
