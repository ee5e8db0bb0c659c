package session_test

import (
	"testing"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// TestSessionCacheSeesWrites: a session already read into LoadSession's
// cache follows every write of its user and every revocation on the very
// next request, also when the revocation commits with a transaction.
func TestSessionCacheSeesWrites(t *testing.T) {
	k := testkit.New(t)
	me := func(token string) *testkit.Response { return k.Get("/api/me", token) }
	u, token := k.UserWithSession(users.RoleClient)
	if r := me(token); r.Status != 200 {
		t.Fatalf("me: %d %s", r.Status, r.Raw)
	}

	// A user write shows at once (and each request has its own copy).
	u.Set("name", "Nombre Nuevo")
	if err := k.App.Save(u); err != nil {
		t.Fatal(err)
	}
	if r := me(token); r.Str("user.name") != "Nombre Nuevo" {
		t.Fatalf("renamed user: %s", r.Raw)
	}

	// Revoked inside a transaction, with a request in between that reads
	// the session as it was before the commit: refused after the commit.
	err := k.App.RunInTransaction(func(tx core.App) error {
		if err := session.RevokeUserSessions(tx, u.Id); err != nil {
			return err
		}
		if r := me(token); r.Status != 200 {
			t.Errorf("before the commit: %d", r.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := me(token); r.Status != 401 {
		t.Fatalf("revoked session accepted: %d %s", r.Status, r.Raw)
	}

	// RevokeSession (logout) and a disabled user.
	token2 := k.Session(u)
	token3 := k.Session(u)
	for _, tk := range []string{token2, token3} {
		if r := me(tk); r.Status != 200 {
			t.Fatalf("new session: %d", r.Status)
		}
	}
	if err := session.RevokeSession(k.App, token2); err != nil {
		t.Fatal(err)
	}
	if r := me(token2); r.Status != 401 {
		t.Fatalf("logged out session accepted: %d", r.Status)
	}
	if r := me(token3); r.Status != 200 {
		t.Fatalf("other session lost: %d", r.Status)
	}
	fresh, err := k.App.FindRecordById(users.Collection, u.Id)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Set("disabled", true)
	if err := k.App.Save(fresh); err != nil {
		t.Fatal(err)
	}
	if r := me(token3); r.Status != 401 {
		t.Fatalf("disabled user accepted: %d", r.Status)
	}
}
