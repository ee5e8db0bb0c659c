package files_test

import (
	"net/http"
	"sort"
	"testing"

	"camellos/internal/imagecheck/craft"
	"camellos/internal/testkit"
	"camellos/modules/files"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// plantAll stores, past every hook, one file breaking the policy in each
// file field (and a good photo beside a bad one in a message): what a
// database from before the policy may hold.
func plantAll(t *testing.T, p *testkit.Parties) (want []string, good *core.Record, goodName string) {
	k := p.K
	_, _, cam := withPhoto(t, k, "ACTIVO")
	good = cam
	goodName = cam.GetString("photo")
	bad, _ := k.App.FindRecordById("camellos", p.Camello.Id)
	plant(t, k, bad, "photo", "bomb_0123456789.png", craft.BombPNG(1_000_000, 1_000_000))
	job := p.Job("ASIGNADO")
	msg := k.CreateRecord("messages", map[string]any{"job": job.Id, "camello": p.Camello.Id, "author": p.Client.Id, "body": "hola"})
	plant(t, k, msg, "files", "fine_0123456789.png", realPNG(t, 10, 10))
	plant(t, k, msg, "files", "anim_0123456789.gif", craft.GIF(65535, 65535, 100))
	plant(t, k, msg, "files", "jpeg_0123456789.jpg", craft.JPEG(65535, 65535, true))
	user, _ := k.App.FindRecordById("users", p.Client.Id)
	plant(t, k, user, "avatar", "webp_0123456789.webp", craft.WebPExtended(100, 100, 0, 16383, 16383))
	return []string{
		"camellos/" + bad.Id + "/photo/bomb_0123456789.png/dimensions",
		"messages/" + msg.Id + "/files/anim_0123456789.gif/type",
		"messages/" + msg.Id + "/files/jpeg_0123456789.jpg/dimensions",
		"users/" + user.Id + "/avatar/webp_0123456789.webp/dimensions",
	}, good, goodName
}

func keys(q []files.Quarantined) []string {
	var out []string
	for _, x := range q {
		out = append(out, x.Collection+"/"+x.Record+"/"+x.Field+"/"+x.File+"/"+x.Violation)
	}
	sort.Strings(out)
	return out
}

// TestQuarantineMovesStoredBombsAside: the quarantine finds every stored
// file that breaks the policy, in every file field, moves it aside,
// removes it from its record and lists it; good files stay; a second run
// finds nothing.
func TestQuarantineMovesStoredBombsAside(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	want, good, goodName := plantAll(t, p)
	got, err := files.Quarantine(k.App)
	if err != nil {
		t.Fatal(err)
	}
	if g := keys(got); len(g) != len(want) || g[0] != want[0] || g[1] != want[1] || g[2] != want[2] || g[3] != want[3] {
		t.Fatalf("quarantined\n%v\nwant\n%v", g, want)
	}
	checkQuarantined(t, k, got)
	if f, _ := k.App.FindRecordById("camellos", good.Id); f.GetString("photo") != goodName {
		t.Fatalf("good photo dropped: %q", f.GetString("photo"))
	}
	if r := k.Get("/api/files/camellos/"+good.Id+"/"+goodName+"?thumb=100x100", ""); r.Status != http.StatusOK {
		t.Fatalf("good photo: %d", r.Status)
	}
	again, err := files.Quarantine(k.App)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run: %v %v", again, err)
	}
}

// TestQuarantineMigration: the migration 1764100001_quarantine_files runs
// the quarantine on a database holding bombs (its row removed from
// _migrations, as on a database from before it).
func TestQuarantineMigration(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	want, _, _ := plantAll(t, p)
	if _, err := k.App.DB().NewQuery("DELETE FROM _migrations WHERE file = {:f}").
		Bind(dbx.Params{"f": "1764100001_quarantine_files.go"}).Execute(); err != nil {
		t.Fatal(err)
	}
	applied, err := core.NewMigrationsRunner(k.App, core.AppMigrations).Up()
	if err != nil || len(applied) != 1 || applied[0] != "1764100001_quarantine_files.go" {
		t.Fatalf("migrations applied %v: %v", applied, err)
	}
	var rows []struct {
		C string `db:"sourceCollection"`
		R string `db:"sourceRecord"`
		F string `db:"field"`
		N string `db:"file"`
		V string `db:"violation"`
		S string `db:"storedAt"`
	}
	if err := k.App.DB().NewQuery("SELECT sourceCollection, sourceRecord, field, file, violation, storedAt FROM file_quarantine").All(&rows); err != nil {
		t.Fatal(err)
	}
	var got []files.Quarantined
	for _, r := range rows {
		got = append(got, files.Quarantined{Collection: r.C, Record: r.R, Field: r.F, File: r.N, Violation: r.V, StoredAt: r.S})
	}
	if g := keys(got); len(g) != len(want) || g[0] != want[0] || g[3] != want[3] {
		t.Fatalf("file_quarantine\n%v\nwant\n%v", g, want)
	}
	checkQuarantined(t, k, got)
}

// checkQuarantined: each file is out of its record and its folder, kept
// under quarantine/, and answered 404 by the file route.
func checkQuarantined(t *testing.T, k *testkit.Kit, got []files.Quarantined) {
	t.Helper()
	for _, q := range got {
		rec, err := k.App.FindRecordById(q.Collection, q.Record)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range rec.GetStringSlice(q.Field) {
			if n == q.File {
				t.Fatalf("%s still in %s.%s", q.File, q.Collection, q.Field)
			}
		}
		if exists(t, k, rec.BaseFilesPath()+"/"+q.File) {
			t.Fatalf("%s still stored in the record's folder", q.File)
		}
		if q.StoredAt != files.QuarantinePrefix+q.Collection+"/"+q.Record+"/"+q.File || !exists(t, k, q.StoredAt) {
			t.Fatalf("%s not kept at %s", q.File, q.StoredAt)
		}
		if r := k.Get("/api/files/"+q.Collection+"/"+q.Record+"/"+q.File+"?thumb=100x100", ""); r.Status != http.StatusNotFound {
			t.Fatalf("%s served: %d", q.File, r.Status)
		}
	}
	if n := k.Count(files.QuarantineCollection, ""); n != len(got) {
		t.Fatalf("%d file_quarantine rows, want %d", n, len(got))
	}
	// The message keeps its good photo.
	msgs, _ := k.App.FindAllRecords("messages")
	for _, m := range msgs {
		if names := m.GetStringSlice("files"); len(names) == 1 && names[0] != "fine_0123456789.png" {
			t.Fatalf("message files %v", names)
		}
	}
}
