package apitest_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/tests"
)

// Push deliveries are counted by outcome against a real HTTPS push
// receiver on 127.0.0.1, and the fan-out rate of one broadcast is measured
// (SCALING.md quotes it).
func TestPushDeliveriesCountedAndFanOutRate(t *testing.T) {
	t.Setenv("METRICS_TOKEN", "tok")
	t.Setenv("WEBPUSH_ALLOW_PRIVATE", "1")
	t.Setenv("AUTH_IP_LIMIT", "0")
	var got atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		if strings.HasPrefix(r.URL.Path, "/gone/") {
			w.WriteHeader(http.StatusGone)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	k := testkit.New(t, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: srv.Client()})
	})
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p256dh := base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes())
	auth := base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef"))
	const n = 300
	// A few users with many devices each: the pushes are what is measured,
	// not the password hashing of many users.
	var us []string
	for i := 0; i < 5; i++ {
		us = append(us, k.CreateUser(users.RoleClient).Id)
	}
	for i := 0; i < n; i++ {
		path := "/push/"
		if i == 0 {
			path = "/gone/"
		}
		k.CreateRecord("push_subscriptions", map[string]any{
			"user": us[i%len(us)], "endpoint": fmt.Sprintf("%s%s%d", srv.URL, path, i), "p256dh": p256dh, "auth": auth, "userAgent": "test",
		})
	}
	_, admin := k.UserWithSession(users.RoleAdmin)
	start := time.Now()
	r := k.Post("/api/admin/notifications", admin, map[string]any{"title": "Aviso", "body": "Prueba de reparto", "role": users.RoleClient})
	if r.Status != 202 {
		t.Fatalf("broadcast: %d %s", r.Status, r.Raw)
	}
	if !notifications.WaitIdle(k.App, 60*time.Second) {
		t.Fatal("deliveries did not finish")
	}
	elapsed := time.Since(start)
	if got.Load() != n {
		t.Fatalf("receiver got %d pushes, want %d", got.Load(), n)
	}
	t.Logf("push fan-out: %d subscriptions in %v = %.0f pushes/s (4 workers, loopback HTTPS receiver)", n, elapsed.Round(time.Millisecond), n/elapsed.Seconds())
	body := string(k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer tok"}}).Raw)
	for _, want := range []string{
		fmt.Sprintf(`camellos_push_deliveries_total{outcome="delivered"} %d`, n-1),
		`camellos_push_deliveries_total{outcome="gone"} 1`,
		`camellos_push_queue_depth 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s", want)
		}
	}
}
