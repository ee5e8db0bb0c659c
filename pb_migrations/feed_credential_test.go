package pb_migrations_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// TestFeedCredentialMigration: a feed issued before migration 1764120000
// (down, then up again: the column is gone, then filled from the owner's
// token key) keeps answering after it, and still dies with the owner's
// next password change.
func TestFeedCredentialMigration(t *testing.T) {
	t.Setenv("APP_URL", "http://camellos.test")
	k := testkit.New(t)
	u, cookie := k.UserWithSession(users.RoleClient)
	feed := strings.TrimPrefix(k.Get("/api/agenda/calendar", cookie).Str("url"), "http://camellos.test")
	if r := k.Get(feed, ""); r.Status != 200 {
		t.Fatalf("feed before: %d", r.Status)
	}
	var found bool
	for _, mig := range core.AppMigrations.Items() {
		if mig.File != "1764120000_feed_credential.go" {
			continue
		}
		found = true
		if err := mig.Down(k.App); err != nil {
			t.Fatalf("down: %v", err)
		}
		if err := mig.Up(k.App); err != nil {
			t.Fatalf("up: %v", err)
		}
	}
	if !found {
		t.Fatal("migration 1764120000_feed_credential.go not registered")
	}
	if n := k.Count("calendar_feeds", "credential != ''"); n != 1 {
		t.Fatalf("%d feeds with a credential after the migration, want 1", n)
	}
	if r := k.Get(feed, ""); r.Status != 200 {
		t.Fatalf("feed after the migration: %d %s", r.Status, r.Raw)
	}
	rec, err := k.App.FindRecordById(users.Collection, u.Id)
	if err != nil {
		t.Fatal(err)
	}
	users.SetPassword(rec, "otra-clave-segura")
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	if r := k.Get(feed, ""); r.Status != 404 {
		t.Fatalf("feed after a password change: %d", r.Status)
	}
}
