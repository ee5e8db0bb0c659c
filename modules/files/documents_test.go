package files_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"camellos/internal/imagecheck/craft"
	"camellos/internal/testkit"
	"camellos/modules/files"
)

// registerWithDocuments signs a camello up over HTTP with a photo and the
// given document photos; returns the answer.
func registerWithDocuments(k *testkit.Kit, email string, docs ...[]byte) *testkit.Response {
	m := testkit.NewMultipart()
	for f, v := range camelloFields() {
		if f == "email" {
			v = email
		}
		m.Field(f, v)
	}
	for i, d := range docs {
		m.File("documents", []string{"cedula.png", "tarjeta.png", "otra.png"}[i%3], d)
	}
	return k.Post("/api/register/camello", "", m.Close())
}

// TestCamelloDocumentsArePrivate (issue 24): the photos of a camello's
// document and professional card, uploaded at registration, are read
// through PocketBase's file route by the camello and admins only, whatever
// the camello's state (a guest, a client, another camello: 404, the same
// answer as a missing file); a bad image is refused at the upload; the
// export lists them (and the camello downloads them); the erasure deletes
// the stored files.
func TestCamelloDocumentsArePrivate(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	auth, fileToken := k.Superuser()

	// Refused uploads: a fake image, a decompression bomb, three documents.
	for _, bad := range []struct {
		name string
		docs [][]byte
		want string
	}{
		{"text as an image", [][]byte{[]byte("<html>no soy una imagen</html>")}, "JPEG, PNG o WebP"},
		{"a bomb", [][]byte{craft.BombPNG(1_000_000, 1_000_000)}, "8192 píxeles"},
		{"three documents", [][]byte{realPNG(t, 20, 20), realPNG(t, 20, 20), realPNG(t, 20, 20)}, "Máximo 2"},
	} {
		email := "doc" + testkit.Unique() + "@example.com"
		r := registerWithDocuments(k, email, bad.docs...)
		testkit.ExpectField(t, r, "documents", bad.want)
		if _, err := k.App.FindAuthRecordByEmail("users", email); err == nil {
			t.Errorf("%s: a refused registration left its user", bad.name)
		}
	}

	email := "doc" + testkit.Unique() + "@example.com"
	front, back := realPNG(t, 64, 40), realPNG(t, 50, 30)
	r := registerWithDocuments(k, email, front, back)
	if r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	camID := r.Str("camello.id")
	user, err := k.App.FindAuthRecordByEmail("users", email)
	if err != nil {
		t.Fatal(err)
	}
	cam, err := k.App.FindRecordById("camellos", camID)
	if err != nil {
		t.Fatal(err)
	}
	names := cam.GetStringSlice("documents")
	if len(names) != 2 {
		t.Fatalf("stored documents: %v", names)
	}
	selfCookie := k.Session(user)
	_, _, otherCamCookie := k.CreateCamello()
	paths := []string{"/api/files/camellos/" + camID + "/" + names[0], "/api/files/camellos/" + camID + "/" + names[1]}

	// Admins see the paths in the console's list; the public profile never.
	list := k.Get("/api/admin/camellos?status=PENDIENTE", p.AdminCookie)
	if !strings.Contains(string(list.Raw), paths[0]) || !strings.Contains(string(list.Raw), paths[1]) {
		t.Errorf("the admin list lacks the document paths: %.400s", list.Raw)
	}

	for _, status := range []string{"PENDIENTE", "ACTIVO", "SUSPENDIDO"} {
		cam.Set("status", status)
		if err := k.App.Save(cam); err != nil {
			t.Fatal(err)
		}
		if status == "ACTIVO" {
			if pub := k.Get("/api/camellos/"+camID, ""); pub.Status != 200 || strings.Contains(string(pub.Raw), names[0]) || pub.Get("camello.documents") != nil {
				t.Errorf("the public profile carries the documents: %d %s", pub.Status, pub.Raw)
			}
		}
		for _, c := range []struct {
			who     string
			cookie  string
			headers map[string]string
			query   string
			want    int
		}{
			{who: "guest", want: 404},
			{who: "client", cookie: p.ClientCookie, want: 404},
			{who: "other camello", cookie: otherCamCookie, want: 404},
			{who: "the camello", cookie: selfCookie, want: 200},
			{who: "admin", cookie: p.AdminCookie, want: 200},
			{who: "superuser", headers: map[string]string{"Authorization": auth}, want: 200},
			{who: "superuser file token", query: "?token=" + fileToken, want: 200},
			{who: "client with a thumbnail", cookie: p.ClientCookie, query: "?thumb=100x100", want: 404},
		} {
			for i, path := range paths {
				got := k.Do(testkit.Req{Method: http.MethodGet, Path: path + c.query, Cookie: c.cookie, Headers: c.headers})
				if got.Status != c.want {
					t.Fatalf("%s, %s, document %d: %d, want %d: %.200s", status, c.who, i, got.Status, c.want, got.Raw)
				}
				if c.want == 404 {
					if got.Error() != files.MsgFileNotFound || got.Header.Get("Cache-Control") != "no-store" {
						t.Fatalf("%s, %s: %q %q", status, c.who, got.Raw, got.Header.Get("Cache-Control"))
					}
					continue
				}
				if want := [][]byte{front, back}[i]; !bytes.Equal(got.Raw, want) {
					t.Fatalf("%s, %s: document %d is not the uploaded file (%d bytes)", status, c.who, i, len(got.Raw))
				}
				if got.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(got.Header.Get("Cache-Control"), "no-store") {
					t.Fatalf("%s, %s: headers %v", status, c.who, got.Header)
				}
			}
		}
	}

	// The export lists the documents; the camello downloads each.
	exp := k.Get("/api/me/export", selfCookie)
	if exp.Status != 200 {
		t.Fatalf("export: %d %s", exp.Status, exp.Raw)
	}
	listed, _ := exp.Get("camello.documents").([]any)
	if len(listed) != 2 || listed[0] != paths[0] || listed[1] != paths[1] {
		t.Fatalf("export documents: %v", exp.Get("camello.documents"))
	}

	// The erasure deletes the stored files.
	if del := k.Delete("/api/me", selfCookie, map[string]any{"password": "secreto-123"}); del.Status >= 300 {
		t.Fatalf("erase: %d %s", del.Status, del.Raw)
	}
	fresh, _ := k.App.FindRecordById("camellos", camID)
	if left := fresh.GetStringSlice("documents"); len(left) != 0 {
		t.Errorf("documents left on the erased profile: %v", left)
	}
	for _, n := range names {
		key := fresh.BaseFilesPath() + "/" + n
		if exists(t, k, key) {
			t.Errorf("the erased document %s is still stored", n)
		}
	}
	if got := k.Do(testkit.Req{Method: http.MethodGet, Path: paths[0], Cookie: p.AdminCookie}); got.Status != 404 {
		t.Errorf("an erased document still served: %d", got.Status)
	}
}
