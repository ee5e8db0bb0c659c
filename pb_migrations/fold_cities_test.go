package pb_migrations_test

import (
	"net/url"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Cities are written in one spelling by every path (issue 24): the
// camellos', jobs' and users' record hooks fold them, the answers carry
// the folded spelling, and the migration folds the rows stored before.
func TestCitiesFoldedOnWrite(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	_, cookie := k.UserWithSession(users.RoleClient)
	svc := k.CreateService()
	cases := []struct{ typed, want string }{
		{"bogota", "Bogotá"}, {"Bogotá D.C.", "Bogotá"}, {"BOGOTA", "Bogotá"}, {"  bogotá,  d.c. ", "Bogotá"},
		{"medellin", "Medellín"}, {"la  dorada", "La Dorada"},
	}
	for _, c := range cases {
		t.Run(c.typed, func(t *testing.T) {
			// A job through the route.
			r := k.Post("/api/jobs", cookie, map[string]any{"title": "Arreglar la ducha", "description": "Gotea", "serviceId": svc.Id, "city": c.typed})
			if r.Status != 201 || r.Str("job.city") != c.want {
				t.Fatalf("job: %d %s", r.Status, r.Raw)
			}
			// A user's own profile.
			if r := k.Patch("/api/me", cookie, map[string]any{"city": c.typed}); r.Status != 200 || r.Str("user.city") != c.want {
				t.Fatalf("me: %d %.300s", r.Status, r.Raw)
			}
			// A camello saved directly (the dashboard's path), found by any spelling.
			_, cam, _ := k.CreateCamello(testkit.CamelloOpts{City: c.typed})
			if got := k.Get("/api/camellos/"+cam.Id, ""); got.Str("camello.city") != c.want {
				t.Fatalf("camello: %.300s", got.Raw)
			}
			found := false
			for _, q := range []string{c.typed, c.want} {
				list := k.Get("/api/camellos?perPage=100&city="+url.QueryEscape(q), "")
				for _, x := range list.Get("camellos").([]any) {
					found = found || x.(map[string]any)["id"] == cam.Id
				}
				if !found {
					t.Errorf("city=%q does not find it: %.300s", q, list.Raw)
				}
			}
		})
	}
}

func TestFoldCitiesMigration(t *testing.T) {
	k := testkit.New(t)
	client, _ := k.UserWithSession(users.RoleClient)
	_, cam, _ := k.CreateCamello(testkit.CamelloOpts{City: "Bogotá"})
	job := k.CreateJob(testkit.JobOpts{Client: client})
	// Rows stored as typed before the hooks folded them.
	for _, u := range []struct{ table, id, city string }{
		{"camellos", cam.Id, "bogota d.c."}, {"jobs", job.Id, "BOGOTA"}, {"users", client.Id, "medellin"},
	} {
		if _, err := k.App.DB().NewQuery("UPDATE " + u.table + " SET city = {:c} WHERE id = {:id}").
			Bind(dbx.Params{"c": u.city, "id": u.id}).Execute(); err != nil {
			t.Fatal(err)
		}
	}
	var found bool
	for _, mig := range core.AppMigrations.Items() {
		if mig.File == "1764240002_fold_cities.go" {
			found = true
			if err := mig.Up(k.App); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !found {
		t.Fatal("migration 1764240002_fold_cities.go not registered")
	}
	for _, c := range []struct{ table, id, city, key string }{
		{"camellos", cam.Id, "Bogotá", "bogota"}, {"jobs", job.Id, "Bogotá", "bogota"}, {"users", client.Id, "Medellín", ""},
	} {
		rec, err := k.App.FindRecordById(c.table, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.GetString("city") != c.city || (c.key != "" && rec.GetString("cityKey") != c.key) {
			t.Errorf("%s: city %q key %q", c.table, rec.GetString("city"), rec.GetString("cityKey"))
		}
	}
}
