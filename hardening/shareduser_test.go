package hardening_test

import (
	"testing"

	"camellos/hardening"
)

// A read (GET) runs with the session's cached user record itself, shared
// with every other read of the session (internal/session: LoadSession),
// so no read handler may change it. Every GET route, as every signed-in
// role: afterwards GET /api/me still answers what it answered before.
func TestReadsDoNotChangeTheSharedUser(t *testing.T) {
	routes := hardening.OwnedRoutes(t)
	w := hardening.NewWorld(t)
	for _, role := range hardening.Roles {
		if role == hardening.Anonymous {
			continue
		}
		me := func() string {
			r := w.K.Get("/api/me", w.Cookies[role])
			if r.Status != 200 {
				t.Fatalf("%s: GET /api/me: %d %s", role, r.Status, r.Raw)
			}
			return string(r.Raw)
		}
		before := me()
		reads := 0
		for _, rt := range routes {
			exp, ok := hardening.Table[rt.Key()]
			if rt.Method != "GET" || !ok || rt.CatchAll() || rt.Path == "/api/events" {
				continue
			}
			w.Send(t, rt, role, exp.Build(w, role))
			reads++
		}
		if after := me(); after != before {
			t.Fatalf("%s: the reads changed the session's user:\nbefore %s\nafter  %s", role, before, after)
		}
		if reads < 20 {
			t.Fatalf("%s: only %d GET routes read", role, reads)
		}
	}
}
