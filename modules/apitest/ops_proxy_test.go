package apitest_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
)

// clientFrom is an HTTP client whose connections leave from a given
// loopback address (127.0.0.0/8 is all local on Linux): a distinct
// "machine" on the test host.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// A real reverse proxy (httputil.ReverseProxy, connecting to the service
// from 127.0.0.9 and appending the client's address to X-Forwarded-For as
// Caddy and nginx do) in front of the service, TRUSTED_PROXIES=127.0.0.9:
// two clients behind it (127.0.0.2 and 127.0.0.3) get separate login
// quotas, even when the first forges X-Forwarded-For; a client talking to
// the service directly (not through the proxy) with a forged header every
// time is counted under its own address.
func TestTrustedProxyGivesEachClientItsQuota(t *testing.T) {
	const limit = 4
	t.Setenv("AUTH_IP_LIMIT", fmt.Sprint(limit))
	t.Setenv("TRUSTED_PROXIES", "127.0.0.9, 10.0.0.0/8")
	k := testkit.New(t)

	target, _ := url.Parse(k.URL)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header["X-Forwarded-For"] = r.In.Header["X-Forwarded-For"] // keep what the client sent
			r.SetXForwarded()                                                // and append its address
		},
		Transport: clientFrom("127.0.0.9").Transport,
	}
	front := &http.Server{Handler: proxy}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go front.Serve(l)
	t.Cleanup(func() { _ = front.Shutdown(context.Background()) })
	proxyURL := "http://" + l.Addr().String()

	n := 0
	login := func(c *http.Client, base, forged string) int {
		t.Helper()
		n++
		body := fmt.Sprintf(`{"email":"nadie%d@example.com","password":"clave-incorrecta-1"}`, n)
		req, _ := http.NewRequest(http.MethodPost, base+"/api/auth/login", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if forged != "" {
			req.Header.Set("X-Forwarded-For", forged)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	a, b := clientFrom("127.0.0.2"), clientFrom("127.0.0.3")
	// Client A spends its quota, each time forging another address.
	for i := 0; i < limit; i++ {
		if s := login(a, proxyURL, fmt.Sprintf("203.0.113.%d", i+1)); s != http.StatusUnauthorized {
			t.Fatalf("A's attempt %d: %d, want 401", i+1, s)
		}
	}
	if s := login(a, proxyURL, "198.51.100.7"); s != http.StatusTooManyRequests {
		t.Fatalf("A past its quota (forged header): %d, want 429", s)
	}
	// Client B, behind the same proxy, still has all of its own.
	for i := 0; i < limit; i++ {
		if s := login(b, proxyURL, ""); s != http.StatusUnauthorized {
			t.Fatalf("B's attempt %d: %d, want 401 (its own quota)", i+1, s)
		}
	}
	if s := login(b, proxyURL, ""); s != http.StatusTooManyRequests {
		t.Fatalf("B past its quota: %d, want 429", s)
	}
	// From outside the proxy a forged header is ignored: every attempt of
	// 127.0.0.4 counts against 127.0.0.4 whatever it claims to be.
	c := clientFrom("127.0.0.4")
	for i := 0; i < limit; i++ {
		if s := login(c, k.URL, fmt.Sprintf("192.0.2.%d", i+1)); s != http.StatusUnauthorized {
			t.Fatalf("direct attempt %d: %d, want 401", i+1, s)
		}
	}
	if s := login(c, k.URL, "192.0.2.200"); s != http.StatusTooManyRequests {
		t.Fatalf("direct client forging X-Forwarded-For past its quota: %d, want 429", s)
	}
	// PocketBase's settings name the header, from the configuration.
	if h := k.App.Settings().TrustedProxy.Headers; len(h) != 1 || h[0] != "X-Forwarded-For" || k.App.Settings().TrustedProxy.UseLeftmostIP {
		t.Fatalf("trusted proxy settings: %+v", k.App.Settings().TrustedProxy)
	}
}

// Without TRUSTED_PROXIES no header is trusted (PocketBase's settings from
// the dashboard included): the environment wins at every start.
func TestNoTrustedProxyIgnoresTheHeader(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "2")
	t.Setenv("TRUSTED_PROXIES", "")
	var out bytes.Buffer
	k := testkit.New(t, testkit.LogTo(&out))
	if h := k.App.Settings().TrustedProxy.Headers; len(h) != 0 {
		t.Fatalf("headers trusted without TRUSTED_PROXIES: %v", h)
	}
	for i := 0; i < 3; i++ {
		res := k.Do(testkit.Req{Method: "POST", Path: "/api/auth/login",
			Body:    map[string]string{"email": fmt.Sprintf("x%d@example.com", i), "password": "clave-incorrecta-1"},
			Headers: map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i+1)}})
		want := http.StatusUnauthorized
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if res.Status != want {
			t.Fatalf("attempt %d: %d, want %d", i+1, res.Status, want)
		}
	}
}
