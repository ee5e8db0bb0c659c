package apitest_test

import (
	"fmt"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/users"
)

// A name needs one visible letter or digit: names made only of fillers
// that draw nothing (U+3164 Hangul filler, U+2800 braille blank, U+FFA0,
// U+115F) are refused on every path that sets a name (sign-up, PATCH
// /api/me, the admin's edit, the camello's profile, a record save), while
// one visible letter among them, or a name in any script, passes.
func TestNamesNeedAVisibleLetter(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	outside := []string{"\u3164\u3164", "\u2800\u2800\u2800", "\uFFA0\uFFA0", "\u115F\u1160", "\u3164 \u2800", "-- ..", "\u3164\u3164\u3164\u3164\u3164"}
	inside := []string{"A\u3164", "\u3164B\u2800", "Jo", "김민", "Ωμέγα", "R2"}
	for i, name := range outside {
		body := clientBody(fmt.Sprintf("filler%d@example.com", i))
		body["name"] = name
		testkit.ExpectField(t, k.Post("/api/auth/register", "", body), "name", httpapi.MsgNoVisibleLetter)
		testkit.ExpectField(t, k.Patch("/api/me", p.ClientCookie, map[string]any{"name": name}), "name", httpapi.MsgNoVisibleLetter)
		testkit.ExpectField(t, k.Patch("/api/admin/users/"+p.Stranger.Id, p.AdminCookie, map[string]any{"name": name}), "name", httpapi.MsgNoVisibleLetter)
		testkit.ExpectField(t, k.Patch("/api/me/camello", p.CamCookie, map[string]any{"name": name}), "name", httpapi.MsgNoVisibleLetter)
		// A record save (the dashboard) obeys it too.
		u, _ := k.App.FindRecordById(users.Collection, p.Stranger.Id)
		u.Set("name", name)
		if err := k.App.Save(u); err == nil {
			t.Fatalf("record save of name %q passed", name)
		}
	}
	for i, name := range inside {
		body := clientBody(fmt.Sprintf("visible%d@example.com", i))
		body["name"] = name
		testkit.Expect(t, k.Post("/api/auth/register", "", body), 201, "")
		testkit.Expect(t, k.Patch("/api/me", p.ClientCookie, map[string]any{"name": name}), 200, "")
		testkit.Expect(t, k.Patch("/api/me/camello", p.CamCookie, map[string]any{"name": name}), 200, "")
	}
}
