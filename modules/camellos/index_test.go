package camellos_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

// listedRaw returns the raw JSON of each camello of GET /api/camellos?perPage=100.
func listedRaw(t *testing.T, f *fixture) map[string][]byte {
	t.Helper()
	res := f.k.Get("/api/camellos?perPage=100", "")
	if res.Status != 200 {
		t.Fatalf("listing: %d %s", res.Status, res.Raw)
	}
	var body struct {
		Camellos []json.RawMessage `json:"camellos"`
	}
	if err := json.Unmarshal(res.Raw, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, raw := range body.Camellos {
		var id struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &id)
		out[id.ID] = raw
	}
	return out
}

// The listing index renders each camello byte for byte as camellos.One does.
func TestIndexRendersLikeOne(t *testing.T) {
	f := newFixture(t)
	listed := listedRaw(t, f)
	for _, rec := range []*core.Record{f.ana, f.beto, f.caro, f.dani, f.eva} {
		fresh, err := f.k.App.FindRecordById("camellos", rec.Id)
		if err != nil {
			t.Fatal(err)
		}
		one, err := camellos.One(f.k.App, fresh, false)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(one)
		if !bytes.Equal(listed[rec.Id], want) {
			t.Errorf("listing of %s:\n got %s\nwant %s", rec.Id, listed[rec.Id], want)
		}
		view := f.k.Get("/api/camellos/"+rec.Id, "")
		if got := append([]byte(`{"camello":`), append(want, '}', '\n')...); !bytes.Equal(view.Raw, got) {
			t.Errorf("view of %s:\n got %s\nwant %s", rec.Id, view.Raw, got)
		}
	}
}

// Every write that changes a public answer is seen by the next request.
func TestIndexFollowsWrites(t *testing.T) {
	f := newFixture(t)
	save := func(rec *core.Record, fields map[string]any) {
		t.Helper()
		fresh, err := f.k.App.FindRecordById(rec.Collection(), rec.Id)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range fields {
			fresh.Set(k, v)
		}
		if err := f.k.App.Save(fresh); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		write func()
		check func(map[string][]byte) bool
	}{
		{"camello suspended", func() { save(f.dani, map[string]any{"status": "SUSPENDIDO"}) },
			func(l map[string][]byte) bool { return l[f.dani.Id] == nil }},
		{"camello activated", func() { save(f.pending, map[string]any{"status": "ACTIVO"}) },
			func(l map[string][]byte) bool { return l[f.pending.Id] != nil }},
		{"camello edited", func() { save(f.ana, map[string]any{"description": "Nueva descripción"}) },
			func(l map[string][]byte) bool { return bytes.Contains(l[f.ana.Id], []byte("Nueva descripción")) }},
		{"camello edited in a transaction", func() {
			err := f.k.App.RunInTransaction(func(tx core.App) error {
				rec, err := tx.FindRecordById("camellos", f.eva.Id)
				if err != nil {
					return err
				}
				rec.Set("neighborhood", "Usaquén")
				return tx.Save(rec)
			})
			if err != nil {
				t.Fatal(err)
			}
		}, func(l map[string][]byte) bool { return bytes.Contains(l[f.eva.Id], []byte("Usaquén")) }},
		{"service renamed", func() {
			rec, _ := f.k.App.FindRecordById("services", f.electricidad)
			save(rec, map[string]any{"name": "Electricidad general"})
		}, func(l map[string][]byte) bool { return bytes.Contains(l[f.beto.Id], []byte("Electricidad general")) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			listedRaw(t, f) // the index is built before the write
			c.write()
			if !c.check(listedRaw(t, f)) {
				t.Errorf("the listing does not show the write")
			}
		})
	}
	// the service filter follows a camello's new services
	save(f.dani, map[string]any{"status": "ACTIVO", "services": []string{f.electricidad}})
	res := f.k.Get("/api/camellos?service=instalacion-electrica&perPage=100", "")
	if !bytes.Contains(res.Raw, []byte(f.dani.Id)) {
		t.Errorf("service filter after a change: %s", res.Raw)
	}
}

// TestIndexKeptOnUnlistedCamelloUsers: a camello user that is not listed
// (a sign-up, a pending camello) does not drop the listing index (at city
// scale its readers would wait seconds for the rebuild), while a write of
// a listed camello's user does. The raw SQL rename below bypasses the hooks:
// the listing shows it only once the index is rebuilt.
func TestIndexKeptOnUnlistedCamelloUsers(t *testing.T) {
	f := newFixture(t)
	nameOf := func() string {
		var body struct {
			Name string `json:"name"`
		}
		raw := listedRaw(t, f)[f.ana.Id]
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("ana not listed: %s", raw)
		}
		return body.Name
	}
	before := nameOf()
	if _, err := f.k.App.DB().NewQuery("UPDATE camellos SET name = 'Renombrada Por SQL' WHERE id = {:id}").Bind(map[string]any{"id": f.ana.Id}).Execute(); err != nil {
		t.Fatal(err)
	}
	f.k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE"}) // a new camello user, not listed
	if got := nameOf(); got != before {
		t.Fatalf("a sign-up dropped the listing index (name %q, want the indexed %q)", got, before)
	}
	user, err := f.k.App.FindRecordById("users", f.ana.GetString("user"))
	if err != nil {
		t.Fatal(err)
	}
	user.Set("verified", true)
	if err := f.k.App.Save(user); err != nil {
		t.Fatal(err)
	}
	if got := nameOf(); got != "Renombrada Por SQL" {
		t.Fatalf("a listed camello's user write kept the index (name %q)", got)
	}
}
