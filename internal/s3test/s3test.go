// Package s3test starts a real S3-compatible server for tests: versitygw
// (github.com/versity/versitygw, posix backend) on 127.0.0.1, never an
// in-memory fake. The binary comes from CAMELLOS_VERSITYGW, the tool cache
// `.ci/run` builds it into (CAMELLOS_BIN_CACHE, default
// ~/.cache/camellos-bin) or PATH; without it the test is skipped with a
// loud message, or fails when CI is set.
package s3test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"camellos/internal/config"
)

// Credentials of the test server.
const (
	AccessKey = "camellos-test-access"
	Secret    = "camellos-test-secret-0123456789"
	Region    = "us-east-1"
)

// Server is a running versitygw.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Dir      string // the posix backend's root (one directory per bucket)
	cmd      *exec.Cmd
	exited   chan struct{} // closed once the process has been waited for
}

// Find looks for a tool: the file named by the environment variable env,
// else name in the tool cache `.ci/run` fills (config.BinCache), else name
// on PATH. A set variable naming a missing file is an error.
func Find(env, name string) (string, error) {
	if p := config.Switch(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s does not exist", env, p)
		}
		return p, nil
	}
	if dir := config.BinCache(); dir != "" {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", nil
}

// Binary finds a tool (Find); without it the test is skipped loudly, or
// fails when CI is set.
func Binary(t testing.TB, env, name, install string) string {
	t.Helper()
	p, err := Find(env, name)
	if err != nil {
		t.Fatal(err)
	}
	if p != "" {
		return p
	}
	msg := fmt.Sprintf("\n\n"+strings.Repeat("!", 78)+"\n!! %s NOT FOUND: this test is SKIPPED. Build it with\n!!   %s\n!! (or set %s, or put it on PATH); .ci/run does this.\n"+strings.Repeat("!", 78)+"\n", name, install, env)
	if config.Switch("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// FreePort returns a free 127.0.0.1 TCP address.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Start runs versitygw on a free loopback port with a temporary posix
// root and creates the buckets; it is stopped when the test ends.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	bin := Binary(t, "CAMELLOS_VERSITYGW", "versitygw",
		"GOBIN=$HOME/.cache/camellos-bin go install github.com/versity/versitygw/cmd/versitygw@v1.8.0")
	dir := t.TempDir()
	addr := FreePort(t)
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", Secret, "--region", Region, "--port", addr, "posix", dir)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s := &Server{Endpoint: "http://" + addr, Dir: dir, cmd: cmd, exited: exited}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("versitygw output:\n%s", logs.String())
		}
	})
	// Until it listens, or exits; the bound only stops one that hangs (a
	// start took seconds at load 40: the wait is for the port, not a time).
	deadline := time.Now().Add(5 * time.Minute)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("versitygw exited before it listened: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not start: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, b := range buckets {
		res := s.Do(t, http.MethodPut, "/"+b, nil)
		if res.StatusCode != 200 {
			t.Fatalf("create bucket %s: %d", b, res.StatusCode)
		}
	}
	return s
}

// Stop kills the server (to test an unreachable S3).
func (s *Server) Stop() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Env returns the service's S3_* environment for bucket.
func (s *Server) Env(bucket string) map[string]string {
	return map[string]string{
		"S3_ENDPOINT":         s.Endpoint,
		"S3_BUCKET":           bucket,
		"S3_REGION":           Region,
		"S3_ACCESS_KEY":       AccessKey,
		"S3_SECRET":           Secret,
		"S3_FORCE_PATH_STYLE": "1",
	}
}

// Do sends a SigV4-signed request (path style: /bucket/key) and returns
// the answer with its body read.
func (s *Server) Do(t testing.TB, method, path string, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.Endpoint+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	Sign(req, body, AccessKey, Secret, Region, time.Now())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(raw))
	return res
}

// Sign adds AWS Signature V4 headers for the s3 service.
func Sign(req *http.Request, body []byte, access, secret, region string, now time.Time) {
	now = now.UTC()
	amzDate := now.Format("20060102T150405Z")
	day := now.Format("20060102")
	sum := sha256.Sum256(body)
	payload := hex.EncodeToString(sum[:])
	req.Header.Set("x-amz-date", amzDate)
	req.Header.Set("x-amz-content-sha256", payload)
	host := req.URL.Host
	canonical := strings.Join([]string{
		req.Method,
		req.URL.EscapedPath(),
		req.URL.RawQuery,
		"host:" + host + "\nx-amz-content-sha256:" + payload + "\nx-amz-date:" + amzDate + "\n",
		"host;x-amz-content-sha256;x-amz-date",
		payload,
	}, "\n")
	scope := day + "/" + region + "/s3/aws4_request"
	ch := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(ch[:])
	mac := func(key []byte, data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	k := mac([]byte("AWS4"+secret), day)
	k = mac(k, region)
	k = mac(k, "s3")
	k = mac(k, "aws4_request")
	sig := hex.EncodeToString(mac(k, toSign))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+access+"/"+scope+
		", SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature="+sig)
}
