package apitest_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"camellos/internal/testkit"
)

func TestMetricsHiddenWithoutToken(t *testing.T) {
	t.Setenv("METRICS_TOKEN", "")
	k := testkit.New(t)
	unknown := k.Get("/no-such-page-at-all", "")
	for _, h := range []string{"", "Bearer ", "Bearer x"} {
		r := k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": h}})
		if r.Status != 404 || string(r.Raw) != string(unknown.Raw) {
			t.Fatalf("no token configured, %q: %d %s (unknown page: %d %s)", h, r.Status, r.Raw, unknown.Status, unknown.Raw)
		}
	}
}

func TestMetricsBehindToken(t *testing.T) {
	t.Setenv("METRICS_TOKEN", "s3cret-token")
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	unknown := k.Get("/no-such-page-at-all", "")
	for _, h := range []string{"", "Bearer", "Bearer ", "Bearer s3cret-toke", "Bearer s3cret-token2", "Basic s3cret-token", "s3cret-token"} {
		r := k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": h}})
		if r.Status != 404 || string(r.Raw) != string(unknown.Raw) {
			t.Fatalf("wrong token %q: %d %s", h, r.Status, r.Raw)
		}
	}
	_, c, _ := k.CreateCamello()
	for i := 0; i < 3; i++ {
		k.Get("/api/camellos/"+c.Id, "")
	}
	k.Get("/api/camellos/nope12345678901", "")
	k.Get("/api/me", "")
	for _, m := range []string{"FOO", "BAR", "PROPFIND"} { // made-up methods share one label
		k.Do(testkit.Req{Method: m, Path: "/api/me"})
	}
	r := k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer s3cret-token"}})
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	body := string(r.Raw)
	for _, want := range []string{
		`camellos_http_requests_total{method="GET",route="/api/camellos/{id}",status="200"} 3`,
		`camellos_http_requests_total{method="GET",route="/api/camellos/{id}",status="404"} 1`,
		`camellos_http_requests_total{method="GET",route="/api/me",status="401"} 1`,
		`camellos_http_requests_total{method="OTHER",route="/",status="405"} 3`,
		`camellos_http_request_duration_seconds_bucket{method="GET",route="/api/camellos/{id}",le="+Inf"} 4`,
		`camellos_push_deliveries_total{outcome="delivered"} 0`,
		`camellos_push_deliveries_total{outcome="gone"} 0`,
		`camellos_push_queue_depth 0`,
		`camellos_reminders_sent_total 0`,
		`camellos_sqlite_connections_open{pool="readers"}`,
		`camellos_sqlite_connections_max_open{pool="writer"} 1`,
		`camellos_external_commits_total`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(body, c.Id) || strings.Contains(body, "nope12345678901") {
		t.Fatal("raw ids in the labels")
	}
}

// The Grafana dashboard under deploy/ is valid JSON and queries only
// series that /metrics exposes.
func TestGrafanaDashboardMatchesTheSeries(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil || len(d.Panels) == 0 {
		t.Fatalf("dashboard: %v", err)
	}
	t.Setenv("METRICS_TOKEN", "tok")
	k := testkit.New(t)
	k.Get("/api/health", "")
	body := string(k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer tok"}}).Raw)
	name := regexp.MustCompile(`\b(camellos|process|go)_[a-z_]+`)
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, m := range name.FindAllString(tg.Expr, -1) {
				if !strings.Contains(body, "\n"+m) && !strings.Contains(body, "# TYPE "+strings.TrimSuffix(m, "_bucket")+" ") {
					t.Errorf("panel %q queries %s, which /metrics does not expose", p.Title, m)
				}
			}
		}
	}
}
