package hardening_test

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"camellos/hardening"
	"camellos/internal/testkit"

	"github.com/pocketbase/pocketbase/tests"
)

// TestPasswordRoutesAreLimitedPerIP runs a service with AUTH_IP_LIMIT=3
// behind a trusted proxy header (each route its own client IP) and calls
// every route that checks or sets a password: three calls are answered on
// their merits, the fourth is 429 with Retry-After in our envelope.
func TestPasswordRoutesAreLimitedPerIP(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "3")
	// The test client (127.0.0.1) is the trusted proxy; the configuration
	// wins over PocketBase's saved settings at every start and reload.
	t.Setenv("TRUSTED_PROXIES", "127.0.0.1")
	t.Setenv("TRUSTED_PROXY_HEADER", "X-Real-IP")
	w := hardening.NewWorld(t, func(app *tests.TestApp) {
		// Saved, not just set: a settings reload must keep it.
		if err := app.Save(app.Settings()); err != nil {
			t.Fatal(err)
		}
	})
	registered := map[string]bool{}
	for _, rt := range hardening.OwnedRoutes(t) {
		registered[rt.Key()] = true
	}
	keys := make([]string, 0, len(hardening.PasswordRoutes))
	for k := range hardening.PasswordRoutes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, key := range keys {
		row := hardening.PasswordRoutes[key]
		t.Run(key, func(t *testing.T) {
			if !registered[key] {
				if hardening.Strict() {
					t.Fatalf("%s is in the contract but not registered", key)
				}
				t.Skipf("%s not registered: its branch is not merged on main yet", key)
			}
			method, path, _ := strings.Cut(key, " ")
			ip := "198.51.100." + strconv.Itoa(i+1)
			send := func() *testkit.Response {
				c := row.Build(w)
				return w.K.Do(testkit.Req{Method: method, Path: w.ExpandID(path, ""), Body: c.Body, Cookie: w.Cookies[row.Role],
					Headers: map[string]string{"X-Real-IP": ip}})
			}
			for n := 1; n <= 3; n++ {
				if res := send(); res.Status == http.StatusTooManyRequests || res.Status >= 500 {
					t.Fatalf("call %d within the limit: %d %s", n, res.Status, clip(res.Raw))
				}
			}
			res := send()
			if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
				t.Fatalf("4th call: %d %s", res.Status, clip(res.Raw))
			}
			if bad := hardening.CheckEnvelope(res); bad != "" {
				t.Fatal(bad)
			}
			// Another client IP is not affected.
			c := row.Build(w)
			other := w.K.Do(testkit.Req{Method: method, Path: w.ExpandID(path, ""), Body: c.Body, Cookie: w.Cookies[row.Role],
				Headers: map[string]string{"X-Real-IP": "203.0.113." + strconv.Itoa(i+1)}})
			if other.Status == http.StatusTooManyRequests {
				t.Fatalf("another IP throttled: %d", other.Status)
			}
		})
	}
}
