package hardening_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"camellos/internal/testkit"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// TestCrashDuringWrites builds the real binary, runs it under sign-up load,
// kills it with SIGKILL, and restarts it on the same data dir: every sign-up
// it acknowledged (201) is there and the database passes integrity_check.
func TestCrashDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := binary(t)
	data := testkit.MigratedDir(t) // the schema, as the binary migrates it

	srv, base := startServer(t, bin, data)
	var (
		mu    sync.Mutex
		acked []string
		seq   int
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(context.Background())
	client := &http.Client{Timeout: 10 * time.Second}
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				seq++
				email := fmt.Sprintf("crash%d-%d@example.com", g, seq)
				mu.Unlock()
				body, _ := json.Marshal(map[string]any{"name": "Cliente Crash", "email": email, "password": "secreto-123",
					"confirmPassword": "secreto-123", "acceptTerms": true})
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/auth/register", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					continue // killed mid-flight: not acknowledged
				}
				res.Body.Close()
				if res.StatusCode == http.StatusCreated {
					mu.Lock()
					acked = append(acked, email)
					mu.Unlock()
				}
			}
		}(g)
	}
	// Kill once a fair number of writes were acknowledged.
	killWhen(t, srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}, 20)
	cancel()
	wg.Wait()
	mu.Lock()
	got := append([]string(nil), acked...)
	mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no sign-up was acknowledged before the kill")
	}

	db := restartAndCheck(t, bin, data)
	defer db.Close()
	for _, email := range got {
		var n int
		if err := db.Select("COUNT(*)").From("users").Where(dbx.HashExp{"email": email}).Row(&n); err != nil || n != 1 {
			t.Errorf("acknowledged sign-up %s lost after the crash (%d, %v)", email, n, err)
		}
	}
	t.Logf("%d acknowledged sign-ups survived SIGKILL", len(got))
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startServer runs `serve` on a free loopback port and waits until it answers.
func startServer(t *testing.T, bin, data string) (*exec.Cmd, string) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "serve", "--http", addr, "--dir", data)
	cmd.Env = append(os.Environ(), "REMINDERS_SCHEDULE=off")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	base := "http://" + addr
	// Only stops a binary that never starts: at load 40 the first boot
	// (every migration, on a fresh data dir) took over 30 s.
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		res, err := http.Get(base + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return cmd, base
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("service did not start on %s:\n%s", addr, logs.String())
	return nil, ""
}

// killWhen kills the service with SIGKILL once count() reaches want and
// reaps it: the "machine" is lost mid-write. It waits for the count, not
// for a time (a busy machine acknowledges fewer writes per second); the
// bound only keeps a broken service from hanging the test, which then
// fails on what was acknowledged.
func killWhen(t *testing.T, srv *exec.Cmd, count func() int, want int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) && count() < want {
		time.Sleep(50 * time.Millisecond)
	}
	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	_ = srv.Wait()
}

// restartAndCheck restarts the service on the data dir of a killed one
// (it must boot and answer), stops it, and returns the database after
// PRAGMA integrity_check answered "ok".
func restartAndCheck(t *testing.T, bin, data string) *dbx.DB {
	t.Helper()
	srv, base := startServer(t, bin, data)
	res, err := http.Get(base + "/api/health")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("restarted service unhealthy: %v", err)
	}
	res.Body.Close()
	_ = srv.Process.Signal(syscall.SIGTERM)
	_ = srv.Wait()
	db, err := core.DefaultDBConnect(filepath.Join(data, "data.db"))
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := db.NewQuery("PRAGMA integrity_check").Row(&check); err != nil || check != "ok" {
		db.Close()
		t.Fatalf("integrity_check = %q (%v)", check, err)
	}
	return db
}
