package files_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"camellos/internal/imagecheck"
	"camellos/internal/imagecheck/craft"
	"camellos/internal/testkit"
	_ "camellos/modules/files"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// realPNG is a decodable w × h PNG.
func realPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	img.Set(w/2, h/2, color.NRGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bomb is the issue's reproduction: a PNG of a few hundred bytes whose
// header claims 1,000,000 × 1,000,000 pixels (4 TB once decoded).
func bomb(t testing.TB) []byte {
	b := craft.BombPNG(1_000_000, 1_000_000)
	if len(b) > 300 {
		t.Fatalf("bomb of %d bytes", len(b))
	}
	return b
}

func camelloFields() map[string]string {
	trades, _ := json.Marshal([]string{"electricidad"})
	return map[string]string{
		"name": "Luis Pérez", "email": "luis" + testkit.Unique() + "@example.com", "phone": "3109876543",
		"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": "true",
		"city": "Medellín", "trades": string(trades), "serviceIds": "[]",
	}
}

// plant stores data as name in rec's field directly in the storage and the
// record, past every hook: a file stored before the policy existed.
func plant(t testing.TB, k *testkit.Kit, rec *core.Record, field, name string, data []byte) {
	t.Helper()
	fsys, err := k.App.NewFilesystem()
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if err := fsys.Upload(data, rec.BaseFilesPath()+"/"+name); err != nil {
		t.Fatal(err)
	}
	names := append(rec.GetStringSlice(field), name)
	rec.Set(field, names)
	if err := k.App.UnsafeWithoutHooks().SaveNoValidate(rec); err != nil {
		t.Fatal(err)
	}
	fresh, err := k.App.FindRecordById(rec.Collection(), rec.Id)
	if err != nil || !strings.Contains(strings.Join(fresh.GetStringSlice(field), ","), name) {
		t.Fatalf("planted %s not in %s.%s: %v", name, rec.Collection().Name, field, err)
	}
}

func exists(t testing.TB, k *testkit.Kit, key string) bool {
	t.Helper()
	fsys, err := k.App.NewFilesystem()
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	ok, _ := fsys.Exists(key)
	return ok
}

func hasPrefix(t testing.TB, k *testkit.Kit, prefix string) bool {
	t.Helper()
	fsys, err := k.App.NewFilesystem()
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	list, _ := fsys.List(prefix)
	return len(list) > 0
}

// TestIssue21BombIsRefusedOnEveryUploadPath is the critical finding of issue
// 21: the 1,000,000² PNG is refused with 400 before anything decodes it, by
// every way a file reaches a file field: the registration, the camello's
// profile, a message, PocketBase's generic record API (what the dashboard
// uses) and a save in code.
func TestIssue21BombIsRefusedOnEveryUploadPath(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	data := bomb(t)

	m := testkit.NewMultipart()
	for f, v := range camelloFields() {
		m.Field(f, v)
	}
	r := k.Post("/api/register/camello", "", m.File("file", "yo.png", data).Close())
	testkit.ExpectField(t, r, "file", "como máximo 8192 píxeles por lado")

	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/me/camello", Cookie: p.CamCookie,
		Body: testkit.NewMultipart().File("file", "yo.png", data).Close()})
	testkit.ExpectField(t, r, "file", "megapíxeles")

	job := p.Job("ASIGNADO")
	r = k.Post("/api/jobs/"+job.Id+"/messages", p.ClientCookie,
		testkit.NewMultipart().Field("body", "mira").File("files", "a.png", data).Close())
	testkit.ExpectField(t, r, "files", "megapíxeles")
	if n := k.Count("messages", ""); n != 0 {
		t.Fatalf("%d messages written", n)
	}

	// The generic API, as the dashboard sends it (a superuser).
	auth, _ := k.Superuser()
	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/collections/camellos/records/" + p.Camello.Id,
		Headers: map[string]string{"Authorization": auth},
		Body:    testkit.NewMultipart().File("photo", "yo.png", data).Close()})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Raw), "megapíxeles") {
		t.Fatalf("generic API upload: %d %s", r.Status, r.Raw)
	}
	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/collections/users/records/" + p.Client.Id,
		Headers: map[string]string{"Authorization": auth},
		Body:    testkit.NewMultipart().File("avatar", "yo.png", data).Close()})
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Raw), "megapíxeles") {
		t.Fatalf("generic API avatar upload: %d %s", r.Status, r.Raw)
	}

	// A save in code (a CLI, a migration): the record hook refuses it too.
	for _, c := range []struct {
		rec   *core.Record
		field string
	}{{p.Camello, "photo"}, {p.Client, "avatar"}} {
		rec, _ := k.App.FindRecordById(c.rec.Collection(), c.rec.Id)
		f, _ := filesystem.NewFileFromBytes(data, "yo.png")
		rec.Set(c.field, f)
		err := k.App.Save(rec)
		if err == nil || !strings.Contains(err.Error(), "megapíxeles") {
			t.Fatalf("save of %s.%s: %v", c.rec.Collection().Name, c.field, err)
		}
	}
	fresh, _ := k.App.FindRecordById("camellos", p.Camello.Id)
	if fresh.GetString("photo") != "" {
		t.Fatalf("photo stored: %q", fresh.GetString("photo"))
	}

	// Just inside the policy: a real photo goes through every path.
	ok := realPNG(t, 64, 48)
	r = k.Post("/api/jobs/"+job.Id+"/messages", p.ClientCookie,
		testkit.NewMultipart().Field("body", "mira").File("files", "a.png", ok).Close())
	testkit.Expect(t, r, http.StatusCreated, "")
	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/collections/users/records/" + p.Client.Id,
		Headers: map[string]string{"Authorization": auth},
		Body:    testkit.NewMultipart().File("avatar", "yo.png", ok).Close()})
	testkit.Expect(t, r, http.StatusOK, "")
}

// TestEveryFileFieldHasAPolicy: every file field of the schema (our
// migrations and PocketBase's own collections) has a row in the upload
// policy table; a new file field without one fails here (and its uploads
// are refused).
func TestEveryFileFieldHasAPolicy(t *testing.T) {
	k := testkit.New(t)
	cols, err := k.App.FindAllCollections()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, col := range cols {
		for _, f := range col.Fields {
			if f.Type() != core.FieldTypeFile {
				continue
			}
			seen++
			if _, ok := imagecheck.For(col.Name, f.GetName()); !ok {
				t.Errorf("file field %s.%s has no upload policy: add a row to imagecheck.Policies", col.Name, f.GetName())
			}
		}
	}
	if seen != len(imagecheck.Policies) {
		t.Errorf("%d file fields in the schema, %d rows in imagecheck.Policies (a row without a field?)", seen, len(imagecheck.Policies))
	}
}
