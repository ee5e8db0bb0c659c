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

// sharedTemplate builds the migrated template once per `go test` run
// instead of once per test binary: `go test ./...` runs some forty
// binaries that boot kits, and each spent about 1.5 s of CPU migrating
// the same schema. The first binary of the run builds it, under a lock
// the others wait on, into a directory named after the go command's
// process (its pid and start time) and the migrations this binary
// registers; the others read that directory. A binary whose migrations
// differ (one registered by its own tests at init) gets a directory of
// its own; a binary not started by the go command (run by hand, or under
// a wrapper other than `go test -exec`) builds its own in memory, as
// before. Directories of go commands that have exited are removed.
func sharedTemplate(build func() (map[string][]byte, error)) (map[string][]byte, error) {
	run := goTestRun()
	if run == "" {
		return build()
	}
	base := filepath.Join(os.TempDir(), "camellos-testkit-"+run)
	dir := base + "-" + migrationsKey()
	lock, err := os.OpenFile(base+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return build()
	}
	defer lock.Close()
	// Released by the kernel if this process dies while it holds it.
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return build()
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	if files, err := readTree(dir); err == nil && len(files) > 0 {
		return files, nil
	}
	removeExitedRuns()
	files, err := build()
	if err != nil {
		return nil, err
	}
	// Best effort: when it cannot be stored, the next binary builds its own.
	_ = storeTree(dir, files)
	return files, nil
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

// storeTree writes files under a new directory and renames it to dir, so a
// reader sees all of them or none.
func storeTree(dir string, files map[string][]byte) error {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".part")
	if err != nil {
		return err
	}
	if err := writeFiles(tmp, files); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}
