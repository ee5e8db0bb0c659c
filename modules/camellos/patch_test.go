package camellos_test

import (
	"math/rand"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

// A patched listing index is the index a full build reads, entry for entry
// and byte for byte, after every kind of write of one camello: status,
// premium, rating (a review), city, services, its user's verified flag,
// deletion; and the patch, not a rebuild, is what served them.
func TestPatchedIndexEqualsAFullBuild(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	svc := twoServices(k)
	cities := []string{"Bogotá", "Medellín", "Cali"}
	var cams []*core.Record
	var camUsers []*core.Record
	for i := 0; i < 24; i++ {
		u, c, _ := k.CreateCamello(testkit.CamelloOpts{City: cities[i%3], Services: []string{svc[i%2]}, Premium: i%5 == 0})
		cams, camUsers = append(cams, c), append(camUsers, u)
	}
	if r := k.Get("/api/camellos", ""); r.Status != 200 { // built
		t.Fatalf("listing: %d", r.Status)
	}
	rng := rand.New(rand.NewSource(3))
	save := func(r *core.Record, field string, v any) {
		t.Helper()
		fresh, err := k.App.FindRecordById(r.Collection(), r.Id)
		if err != nil {
			return // deleted
		}
		fresh.Set(field, v)
		_ = k.App.Save(fresh) // a transition the hooks refuse changes nothing
	}
	for step := 0; step < 60; step++ {
		i := rng.Intn(len(cams))
		what := ""
		switch rng.Intn(7) {
		case 0:
			what = "status"
			save(cams[i], "status", []string{"ACTIVO", "SUSPENDIDO"}[rng.Intn(2)])
		case 1:
			what = "premium"
			save(cams[i], "premium", rng.Intn(2) == 0)
		case 2:
			what = "rating"
			save(cams[i], "ratingAvg", float64(rng.Intn(51))/10)
		case 3:
			what = "city"
			save(cams[i], "city", cities[rng.Intn(3)])
		case 4:
			what = "services"
			save(cams[i], "services", []string{svc[rng.Intn(2)]})
		case 5:
			what = "verified"
			save(camUsers[i], "verified", rng.Intn(2) == 0)
		case 6:
			if step%10 != 6 {
				continue
			}
			what = "deleted"
			if fresh, err := k.App.FindRecordById("camellos", cams[i].Id); err == nil {
				if err := k.App.Delete(fresh); err != nil {
					t.Fatal(err)
				}
			}
		}
		built, err := camellos.VerifyIndex(k.App)
		if !built {
			t.Fatalf("step %d (%s): the write dropped the index instead of patching it", step, what)
		}
		if err != nil {
			t.Fatalf("step %d (%s of camello %d): %v", step, what, i, err)
		}
	}
}

// A camello profile moved (as a superuser can, in the dashboard) to a user
// whose role is not CAMELLOS still shows that user's verified badge, in the
// listing and on the profile, after the user's flag flips (issue 22, leak
// 2: the index's user patch filtered on the role and kept the old badge).
func TestBadgeFollowsAProfileMovedToAnotherRole(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	_, cam, _ := k.CreateCamello()
	if r := k.Get("/api/camellos", ""); r.Status != 200 {
		t.Fatalf("listing: %d", r.Status)
	}
	for _, role := range []string{"CLIENTE", "ADMIN"} {
		to := k.CreateUser(role)
		fresh, err := k.App.FindRecordById("camellos", cam.Id)
		if err != nil {
			t.Fatal(err)
		}
		fresh.Set("user", to.Id)
		if err := k.App.Save(fresh); err != nil {
			t.Fatalf("move to %s: %v", role, err)
		}
		for _, flag := range []bool{!to.GetBool("verified"), to.GetBool("verified")} {
			u, err := k.App.FindRecordById("users", to.Id)
			if err != nil {
				t.Fatal(err)
			}
			u.Set("verified", flag)
			if err := k.App.Save(u); err != nil {
				t.Fatal(err)
			}
			if _, err := camellos.VerifyIndex(k.App); err != nil {
				t.Fatalf("%s user verified=%v: %v", role, flag, err)
			}
			r := k.Get("/api/camellos/"+cam.Id, "")
			if r.Status != 200 || r.Get("camello.verified") != flag {
				t.Fatalf("%s user verified=%v: profile %d %s", role, flag, r.Status, r.Raw)
			}
		}
	}
}

// twoServices creates the category "hogar" and two of its services
// (slugs plomeria-general and pintura-casas) and returns their ids.
func twoServices(k *testkit.Kit) []string {
	k.CreateRecord("categories", map[string]any{"id": "hogar", "name": "Hogar"})
	return []string{
		k.CreateRecord("services", map[string]any{"name": "Plomería general", "slug": "plomeria-general", "category": "hogar"}).Id,
		k.CreateRecord("services", map[string]any{"name": "Pintura de casas", "slug": "pintura-casas", "category": "hogar"}).Id,
	}
}
