package apitest_test

import (
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/auth"
	"camellos/modules/mail"
	"camellos/modules/users"
)

// TestNoLinkForAUserErasedMeanwhile: the account links are issued by work
// that read the user earlier (the sign-up's verification mail after its
// commit, the reset link in the background). A link issued after the
// account was erased would leave an account_tokens row (and a mail) behind
// the erasure, as the mail outbox did in TestErasure: issueToken checks
// the user in the insert's own transaction, so nothing is written.
func TestNoLinkForAUserErasedMeanwhile(t *testing.T) {
	k, _ := mailKit(t)
	cases := []struct {
		name   string
		erase  bool
		tokens int
	}{
		{"user enabled", false, 2}, // the sign-up's link (voided) and this one
		{"user erased after it was read", true, 0},
	}
	for _, tc := range cases {
		email := "enlace" + testkit.Unique() + "@example.com"
		if res := k.Post("/api/auth/register", "", clientBody(email)); res.Status != 201 {
			t.Fatalf("%s: register: %d %s", tc.name, res.Status, res.Raw)
		}
		_, cookie := login(k, email, "secreto-123")
		read, err := k.App.FindAuthRecordByEmail(users.Collection, email) // what the late worker read
		if err != nil {
			t.Fatal(err)
		}
		if tc.erase {
			if res := k.Delete("/api/me", cookie, map[string]any{"password": "secreto-123"}); res.Status != 200 {
				t.Fatalf("%s: erase: %d %s", tc.name, res.Status, res.Raw)
			}
		}
		auth.SendVerification(k.App, read)
		if n := k.Count(auth.Tokens, "user = {:u}", map[string]any{"u": read.Id}); n != tc.tokens {
			t.Errorf("%s: %d account_tokens rows, want %d", tc.name, n, tc.tokens)
		}
		if tc.erase {
			if n := k.Count(mail.Collection, "user = {:u}", map[string]any{"u": read.Id}); n != 0 {
				t.Errorf("%s: %d mails queued", tc.name, n)
			}
		}
	}
}
