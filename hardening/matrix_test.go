package hardening_test

import (
	"sort"
	"testing"

	"camellos/hardening"
)

// TestAuthorisationMatrix calls every route the service registers as each
// role and checks the status class against the table; a registered route
// without a row fails, a row whose route is not registered is skipped
// (named) until its branch is merged.
func TestAuthorisationMatrix(t *testing.T) {
	routes := hardening.OwnedRoutes(t)
	w := hardening.NewWorld(t)
	registered := map[string]bool{}
	for _, rt := range routes {
		registered[rt.Key()] = true
		exp, ok := hardening.Table[rt.Key()]
		if !ok {
			t.Errorf("route %s has no row in the authorisation matrix (hardening/table.go)", rt.Key())
			continue
		}
		t.Run(rt.Key(), func(t *testing.T) {
			// Refused callers first, so an allowed write cannot change what they see.
			roles := append([]hardening.Role(nil), hardening.Roles...)
			sort.SliceStable(roles, func(i, j int) bool {
				return exp.Outcome(roles[i]) != hardening.Allowed && exp.Outcome(roles[j]) == hardening.Allowed
			})
			for _, role := range roles {
				want := exp.Outcome(role)
				res := w.Send(t, rt, role, exp.Build(w, role))
				if !want.Match(res.Status) {
					t.Errorf("as %s: %d %s, want %s", role, res.Status, clip(res.Raw), want)
				}
				if bad := hardening.CheckEnvelope(res); bad != "" {
					t.Errorf("as %s: %s", role, bad)
				}
			}
		})
	}
	keys := make([]string, 0, len(hardening.Table))
	for k := range hardening.Table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if registered[key] {
			continue
		}
		t.Run(key, func(t *testing.T) {
			if hardening.Strict() {
				t.Fatalf("%s is in the contract but not registered", key)
			}
			t.Skipf("%s not registered: its branch is not merged on main yet", key)
		})
	}
}

func clip(b []byte) string {
	if len(b) > 240 {
		return string(b[:240]) + "…"
	}
	return string(b)
}
