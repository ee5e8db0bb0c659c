package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Another process opens the data dir's database while the service runs
// (the CLI, `camellos push work`, Litestream, sqlite3 in a shell): the
// service goes on reading and writing. SQLite's locks on data.db-shm are
// POSIX locks, which a process loses when it closes ANY descriptor of that
// file: a service that opened and closed data.db-shm behind SQLite's back
// (the change watcher's mapping of the wal-index header) held no lock any
// more, the other process took itself for the first user and truncated
// the file, and the service died of SIGBUS on its next write (found as a
// flaky `backup create` under a running service in TestBackupCommandsOnS3).
func TestAnotherProcessOnTheDatabaseLeavesTheServiceRunning(t *testing.T) {
	dir, _, url, admin := serveWithAdmin(t, "ops@example.com", "clave-segura-1")
	// Requests that write and check for foreign commits: the service has
	// its wal-index mapped as it has after any while in service.
	for _, name := range []string{"Antes uno", "Antes dos"} {
		createCategory(t, url, admin, name)
		categoryNames(t, url)
	}
	// The service still holds SQLite's "dead man switch" lock (a read lock
	// on byte 128 of data.db-shm): without it the next process to open
	// the database truncates the file under the service's mapping.
	if runtime.GOOS == "linux" && !shmLockHeld(t, filepath.Join(dir, "data.db-shm")) {
		t.Error("after serving requests the service holds no lock on data.db-shm: " +
			"a descriptor of the file was closed behind SQLite's back")
	}
	// This test's process is the other one: it opens the database, reads
	// and writes, and closes it.
	db, err := sql.Open("sqlite", filepath.Join(dir, "data.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM users").Scan(&n); err != nil || n != 1 {
		t.Fatalf("users from another process: %d %v", n, err)
	}
	if _, err := db.Exec("UPDATE users SET name = name WHERE email = 'ops@example.com'"); err != nil {
		t.Fatalf("write from another process: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// The service still reads and writes.
	createCategory(t, url, admin, "Después")
	if got := categoryNames(t, url); !strings.Contains(got, "Antes uno") || !strings.Contains(got, "Después") {
		t.Fatalf("categories after another process used the database: %s", got)
	}
}

// shmLockHeld reports whether some process holds a POSIX read lock on byte
// 128 of the -shm file at path, as /proc/locks lists it.
func shmLockHeld(t *testing.T, path string) bool {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := st.Sys().(*syscall.Stat_t).Ino
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(locks), "\n") {
		// "1: POSIX  ADVISORY  READ 5975 fe:00:10420467 128 128"
		f := strings.Fields(l)
		if len(f) >= 8 && f[1] == "POSIX" && f[3] == "READ" &&
			strings.HasSuffix(f[5], fmt.Sprintf(":%d", ino)) && f[6] == "128" && f[7] == "128" {
			return true
		}
	}
	return false
}
