package users_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
)

// A user is found by e-mail through the unique e-mail index, never by
// scanning the users table: the index is partial (WHERE email != ''), and
// PocketBase's FindAuthRecordByEmail (email = ?) cannot use it, which made
// every sign-up and sign-in a full scan (3 registrations/s at 1,100,000
// users, issue 27). The plan is SQLite's own answer for the query as built.
func TestFindByEmailUsesTheEmailIndex(t *testing.T) {
	k := testkit.New(t)
	u := k.CreateUser(users.RoleClient)
	cases := []struct {
		name, email string
		found       bool
	}{
		{"stored address", u.Email(), true},
		{"unknown address", "nadie@example.com", false},
		{"empty address (erased accounts keep one)", "", false},
		{"another case than stored", strings.ToUpper(u.Email()), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, err := users.FindByEmail(k.App, c.email)
			if c.found != (err == nil) {
				t.Fatalf("FindByEmail(%q): %v", c.email, err)
			}
			if c.found && rec.Id != u.Id {
				t.Fatalf("found %s, want %s", rec.Id, u.Id)
			}
			if c.email == "" {
				return
			}
			built := users.ByEmailQuery(k.App, c.email).Build()
			var plan []struct {
				Detail string `db:"detail"`
			}
			if err := k.App.DB().NewQuery("EXPLAIN QUERY PLAN " + built.SQL()).Bind(dbx.Params(built.Params())).All(&plan); err != nil {
				t.Fatal(err)
			}
			var details []string
			for _, p := range plan {
				details = append(details, p.Detail)
			}
			got := strings.Join(details, "; ")
			if !strings.Contains(got, "USING INDEX idx_email_") || strings.Contains(got, "SCAN") {
				t.Fatalf("plan of the e-mail lookup: %s", got)
			}
		})
	}
}

// No code looks users up with PocketBase's FindAuthRecordByEmail (a full
// scan of the users table, see above): users.FindByEmail is the one way.
func TestNoLookupByEmailScansTheUsers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && (info.Name() == "node_modules" || strings.HasPrefix(info.Name(), ".")) {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seen++
		for i, line := range strings.Split(string(raw), "\n") {
			if code, _, _ := strings.Cut(line, "//"); strings.Contains(code, "FindAuthRecordByEmail(") {
				t.Errorf("%s:%d calls FindAuthRecordByEmail: use users.FindByEmail", path, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("only %d Go files seen from %s: the scanner is broken", seen, root)
	}
}
