package session_test

import (
	"errors"
	"testing"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// TestNoSessionForAUserChangedMeanwhile: sign-in reads the user, checks
// the password (bcrypt, the slow part) and then opens the session. An
// erasure, a disabling or a new password committed in between must leave
// no session row behind (an erasure deletes them all; one written after it
// would keep the erased user's address and browser). CreateSession checks
// the user as it was read in the insert's own transaction.
func TestNoSessionForAUserChangedMeanwhile(t *testing.T) {
	k := testkit.New(t)
	cases := []struct {
		name   string
		change func(u *core.Record) error // committed after the read
		want   error
	}{
		{"unchanged", func(*core.Record) error { return nil }, nil},
		{"renamed (not a reason)", func(u *core.Record) error {
			return users.Update(k.App, users.Wrap(u), users.Change{Name: ptr("Otro Nombre")})
		}, nil},
		{"erased", func(u *core.Record) error { return users.Erase(k.App, users.Wrap(u)) }, session.ErrUserChanged},
		{"disabled by an admin", func(u *core.Record) error {
			return users.Update(k.App, users.Wrap(u), users.Change{Disabled: ptr(true)})
		}, session.ErrUserChanged},
		{"new password", func(u *core.Record) error {
			users.SetPassword(u, "otra-clave-segura-1")
			return k.App.Save(u)
		}, session.ErrUserChanged},
	}
	for _, tc := range cases {
		u := k.CreateUser(users.RoleClient)
		read := u.Clone() // what the sign-in read
		if err := tc.change(u); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		token, err := session.CreateSession(k.App, read, "127.0.0.1", "prueba")
		if !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		rows := k.Count(session.Collection, "user = {:u}", map[string]any{"u": u.Id})
		switch {
		case tc.want != nil && (rows != 0 || token != ""):
			t.Errorf("%s: %d session rows, token %q", tc.name, rows, token)
		case tc.want == nil && (rows != 1 || !session.Valid(k.App, token)):
			t.Errorf("%s: %d session rows, valid %v", tc.name, rows, session.Valid(k.App, token))
		}
	}
}

func ptr[T any](v T) *T { return &v }
