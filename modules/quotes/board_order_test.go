package quotes_test

import (
	"fmt"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
)

// TestBoardPagesMatchTheSQLOrder: the board of a camello with several
// services (merged from each service's newest jobs) pages exactly like one
// ORDER BY created DESC, id DESC over all its open jobs, with and without a
// city, ties on created included, for several page sizes.
func TestBoardPagesMatchTheSQLOrder(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	svcs := []string{k.CreateService().Id, k.CreateService().Id, k.CreateService().Id}
	other := k.CreateService().Id
	_, _, camCk := k.CreateCamello(testkit.CamelloOpts{Services: svcs})
	_, clientCk := k.UserWithSession(users.RoleClient)
	cities := []string{"Bogotá", "Medellín"}
	for i := 0; i < 23; i++ {
		svc := svcs[i%3]
		if i%7 == 6 {
			svc = other // not on this camello's board
		}
		r := k.Post("/api/jobs", clientCk, map[string]any{"title": fmt.Sprintf("Trabajo %d", i), "serviceId": svc, "city": cities[i%2]})
		if r.Status != 201 {
			t.Fatalf("post job: %d %s", r.Status, r.Raw)
		}
	}
	// Ties: give a few jobs of different services the same created.
	if _, err := k.App.DB().NewQuery("UPDATE jobs SET created = '2026-01-01 10:00:00.000Z' WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT 6)").Execute(); err != nil {
		t.Fatal(err)
	}
	for _, city := range []string{"", "bogota"} {
		want := []string{}
		q := k.App.DB().Select("id").From("jobs").Where(dbx.In("service", svcs[0], svcs[1], svcs[2])).
			AndWhere(dbx.HashExp{"status": "PENDIENTE", "provider": ""}).OrderBy("created DESC", "id DESC")
		if city != "" {
			q = q.AndWhere(dbx.HashExp{"cityKey": city})
		}
		if err := q.Column(&want); err != nil {
			t.Fatal(err)
		}
		for _, per := range []int{1, 2, 5, 20} {
			var got []string
			for page := 1; page <= len(want)/per+2; page++ {
				r := k.Get(fmt.Sprintf("/api/jobs/open?perPage=%d&page=%d&city=%s", per, page, city), camCk)
				if r.Status != 200 {
					t.Fatalf("board: %d %s", r.Status, r.Raw)
				}
				if total := r.Get("total"); fmt.Sprint(total) != fmt.Sprint(len(want)) {
					t.Fatalf("city %q perPage %d: total %v, want %d", city, per, total, len(want))
				}
				items, _ := r.Get("jobs").([]any)
				for _, it := range items {
					got = append(got, it.(map[string]any)["id"].(string))
				}
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("city %q perPage %d:\n got %v\nwant %v", city, per, got, want)
			}
		}
	}
}
