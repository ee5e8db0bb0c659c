package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pocketbase/pocketbase/core"
)

// runDir returns the directory named name that the test binaries of this
// `go test` run share, filled by fill the first time one of them asks:
// work every binary would repeat (migrating the template, linking the
// service's binary) is done once per run. The first binary fills it under
// a lock the others wait on (released by the kernel if it dies), into a
// new directory renamed into place, so a reader sees it whole or not at
// all. The directory is named after the go command's process (its pid
// and start time); those of go commands that have exited are removed.
// It returns "" when this binary was not started by the go command (run
// by hand, or under a wrapper other than `go test -exec`): the caller then
// does the work itself.
func runDir(name string, fill func(dir string) error) (string, error) {
	run := goTestRun()
	if run == "" {
		return "", nil
	}
	dir := filepath.Join(os.TempDir(), "camellos-testkit-"+run+"-"+name)
	// One lock per name: a binary waiting for the template does not wait
	// for another's link.
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", nil
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", nil
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	removeExitedRuns()
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".part")
	if err != nil {
		return "", nil
	}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return dir, nil
}

// sharedTemplate is the migrated template, built once per `go test` run
// (runDir) instead of once per test binary: `go test ./...` runs some
// forty binaries that boot kits, and each spent about 1.5 s of CPU
// migrating the same schema. The directory is named after the migrations
// this binary registers: a binary whose own tests register one at init
// gets a template of its own.
func sharedTemplate(build func() (map[string][]byte, error)) (map[string][]byte, error) {
	var built map[string][]byte
	dir, err := runDir("template-"+migrationsKey(), func(dir string) error {
		files, err := build()
		if err != nil {
			return err
		}
		built = files
		return writeFiles(dir, files)
	})
	switch {
	case built != nil: // built here (even if it could not be stored)
		return built, nil
	case err != nil:
		return nil, err
	case dir == "":
		return build()
	}
	return readTree(dir)
}

// goTestRun names the go command that started this test binary, as
// "PID-STARTTIME", or "" when there is none: the binary's parent, or its
// grandparent under `go test -exec wrapper` (bench/suitetime).
func goTestRun() string {
	pid := os.Getppid()
	for range 2 {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil {
			return ""
		}
		ppid, start, ok := procStat(pid)
		if !ok {
			return ""
		}
		if strings.TrimSpace(string(comm)) == "go" {
			return strconv.Itoa(pid) + "-" + start
		}
		pid = ppid
	}
	return ""
}

// procStat reads a process's parent and start time (in clock ticks since
// boot: with the pid, it names one process for the machine's uptime).
func procStat(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[19], err == nil
}

// migrationsKey names the migrations this binary registers (PocketBase's
// and the service's, with any a test package adds at init).
func migrationsKey() string {
	h := sha256.New()
	for _, l := range []core.MigrationsList{core.SystemMigrations, core.AppMigrations} {
		for _, m := range l.Items() {
			fmt.Fprintln(h, m.File)
		}
		fmt.Fprintln(h, "--")
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// removeExitedRuns deletes the templates and locks of go commands that
// are no longer running.
func removeExitedRuns() {
	paths, _ := filepath.Glob(filepath.Join(os.TempDir(), "camellos-testkit-*-*"))
	for _, p := range paths {
		parts := strings.SplitN(strings.TrimPrefix(filepath.Base(p), "camellos-testkit-"), "-", 3)
		if len(parts) < 2 {
			continue
		}
		pid, err := strconv.Atoi(parts[0])
		if err != nil {
			continue
		}
		start := strings.TrimSuffix(parts[1], ".lock")
		if _, s, ok := procStat(pid); ok && s == start {
			continue // still running
		}
		os.RemoveAll(p)
	}
}
