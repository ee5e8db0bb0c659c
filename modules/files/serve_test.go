package files_test

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"camellos/internal/imagecheck/craft"
	"camellos/internal/testkit"
	"camellos/modules/files"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// withPhoto gives a camello of status a real photo (saved through the hooks)
// and returns the record.
func withPhoto(t testing.TB, k *testkit.Kit, status string) (owner, cookie string, rec *core.Record) {
	t.Helper()
	user, cam, ck := k.CreateCamello(testkit.CamelloOpts{Status: status})
	f, _ := filesystem.NewFileFromBytes(realPNG(t, 40, 30), "yo.png")
	cam.Set("photo", f)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	return user.Id, ck, cam
}

// TestFileRouteAnswersOurRules: PocketBase's /api/files/… serves a file
// only to whom our rules allow (issue 21, finding 4: a pending or
// suspended camello's photo was 200 there and 404 under /uploads), for
// every role, with and without a thumbnail.
func TestFileRouteAnswersOurRules(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	auth, fileToken := k.Superuser()
	type who struct {
		name    string
		cookie  string
		headers map[string]string
		query   string
	}
	for _, status := range []string{"ACTIVO", "PENDIENTE", "SUSPENDIDO", "RECHAZADO"} {
		_, ownerCookie, cam := withPhoto(t, k, status)
		photo := cam.GetString("photo")
		path := "/api/files/camellos/" + cam.Id + "/" + photo
		public := status == "ACTIVO"
		cases := []struct {
			who  who
			want int
		}{
			{who{name: "guest"}, map[bool]int{true: 200, false: 404}[public]},
			{who{name: "stranger", cookie: p.StrangerCookie}, map[bool]int{true: 200, false: 404}[public]},
			{who{name: "owner", cookie: ownerCookie}, 200},
			{who{name: "admin", cookie: p.AdminCookie}, 200},
			{who{name: "superuser", headers: map[string]string{"Authorization": auth}}, 200},
			{who{name: "superuser file token", query: "token=" + fileToken}, 200},
		}
		for _, c := range cases {
			for _, q := range []string{"", "thumb=100x100"} {
				query := strings.Trim(q+"&"+c.who.query, "&")
				url := path
				if query != "" {
					url += "?" + query
				}
				r := k.Do(testkit.Req{Method: http.MethodGet, Path: url, Cookie: c.who.cookie, Headers: c.who.headers})
				if r.Status != c.want {
					t.Fatalf("%s photo, %s, %q: %d, want %d: %s", status, c.who.name, q, r.Status, c.want, r.Raw)
				}
				if c.want == 404 {
					if r.Error() != files.MsgFileNotFound || r.Header.Get("Cache-Control") != "no-store" {
						t.Fatalf("%s, %s: %q %q", status, c.who.name, r.Raw, r.Header.Get("Cache-Control"))
					}
					continue
				}
				if r.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/png") {
					t.Fatalf("%s, %s: headers %v", status, c.who.name, r.Header)
				}
				cache := r.Header.Get("Cache-Control")
				if public != strings.HasPrefix(cache, "public") {
					t.Fatalf("%s, %s: Cache-Control %q", status, c.who.name, cache)
				}
				if q != "" {
					img, err := pngSize(r.Raw)
					if err != nil || img != [2]int{100, 100} {
						t.Fatalf("%s, %s: thumb %v %v", status, c.who.name, img, err)
					}
				}
			}
		}
		// And the same rule under /uploads.
		if r := k.Get("/uploads/camellos/"+photo, ""); r.Status != map[bool]int{true: 200, false: 404}[public] {
			t.Fatalf("/uploads %s: %d", status, r.Status)
		}
	}

	// Message photos: only the thread's readers; PocketBase's file route
	// also wants a superuser's file token (the field is Protected).
	job := p.Job("ASIGNADO")
	r := k.Post("/api/jobs/"+job.Id+"/messages", p.ClientCookie,
		testkit.NewMultipart().Field("body", "mira").File("files", "a.png", realPNG(t, 20, 20)).Close())
	testkit.Expect(t, r, http.StatusCreated, "")
	msgs, err := k.App.FindAllRecords("messages")
	if err != nil || len(msgs) != 1 {
		t.Fatalf("messages: %v %d", err, len(msgs))
	}
	msg := msgs[0]
	name := msg.GetStringSlice("files")[0]
	mpath := "/api/files/messages/" + msg.Id + "/" + name
	for _, c := range []struct {
		name   string
		cookie string
		query  string
		want   int
	}{
		{"guest", "", "", 404},
		{"stranger", p.StrangerCookie, "", 404},
		{"guest with a superuser file token", "", "token=" + fileToken, 200},
		{"stranger with a superuser file token", p.StrangerCookie, "token=" + fileToken, 200},
		{"client without a file token", p.ClientCookie, "", 404},
	} {
		for _, q := range []string{c.query, strings.Trim(c.query+"&thumb=100x100", "&")} {
			url := mpath
			if q != "" {
				url += "?" + q
			}
			if r := k.Get(url, c.cookie); r.Status != c.want {
				t.Fatalf("message photo, %s, %q: %d, want %d: %s", c.name, q, r.Status, c.want, r.Raw)
			}
		}
	}
	if r := k.Get("/api/messages/files/"+msg.Id+"/"+name, p.ClientCookie); r.Status != 200 {
		t.Fatalf("client's own message photo: %d", r.Status)
	}

	// users.avatar (no serving rule): superusers only.
	user, _ := k.App.FindRecordById("users", p.Client.Id)
	f, _ := filesystem.NewFileFromBytes(realPNG(t, 20, 20), "a.png")
	user.Set("avatar", f)
	if err := k.App.Save(user); err != nil {
		t.Fatal(err)
	}
	apath := "/api/files/users/" + user.Id + "/" + user.GetString("avatar")
	for _, c := range []struct {
		name   string
		cookie string
		auth   string
		want   int
	}{{"guest", "", "", 404}, {"the user", p.ClientCookie, "", 404}, {"admin", p.AdminCookie, "", 404}, {"superuser", "", auth, 200}} {
		r := k.Do(testkit.Req{Method: http.MethodGet, Path: apath + "?thumb=100x100", Cookie: c.cookie,
			Headers: map[string]string{"Authorization": c.auth}})
		if r.Status != c.want {
			t.Fatalf("avatar, %s: %d, want %d", c.name, r.Status, c.want)
		}
	}
}

// TestPlantedBombIsNeverDecoded: files stored before the policy (planted
// here straight into the storage and the record) that break it are never
// served nor thumbnailed by any route, to anyone; no thumbnail of them is
// ever made. The bomb is 8193 × 1 (outside by one pixel a side, cheap to
// decode), so that on code without the guard PocketBase decodes it
// harmlessly and this test fails instead of the process.
func TestPlantedBombIsNeverDecoded(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	auth, fileToken := k.Superuser()
	wide := craft.PNG(8193, 1, craft.PNGOptions{ColorType: 6})
	gif := craft.GIF(10, 10, 3)

	cam, _ := k.App.FindRecordById("camellos", p.Camello.Id)
	plant(t, k, cam, "photo", "bomb_0123456789.png", wide)
	job := p.Job("ASIGNADO")
	msg := k.CreateRecord("messages", map[string]any{"job": job.Id, "camello": p.Camello.Id, "author": p.Client.Id, "body": "hola"})
	plant(t, k, msg, "files", "bomb_abcdefghij.png", wide)
	msg2 := k.CreateRecord("messages", map[string]any{"job": job.Id, "camello": p.Camello.Id, "author": p.Client.Id, "body": "hola"})
	plant(t, k, msg2, "files", "anim_abcdefghij.gif", gif)

	type target struct {
		rec   *core.Record
		name  string
		other []string
	}
	targets := []target{
		{cam, "bomb_0123456789.png", []string{"/uploads/camellos/bomb_0123456789.png"}},
		{msg, "bomb_abcdefghij.png", []string{"/api/messages/files/" + msg.Id + "/bomb_abcdefghij.png"}},
		{msg2, "anim_abcdefghij.gif", nil},
	}
	for _, tg := range targets {
		base := "/api/files/" + tg.rec.Collection().Name + "/" + tg.rec.Id + "/" + tg.name
		for _, who := range []struct {
			name    string
			cookie  string
			headers map[string]string
			query   string
		}{
			{"guest", "", nil, ""},
			{"client", p.ClientCookie, nil, ""},
			{"admin", p.AdminCookie, nil, ""},
			{"superuser", "", map[string]string{"Authorization": auth}, ""},
			{"superuser file token", "", nil, "token=" + fileToken},
		} {
			for _, thumb := range []string{"", "thumb=100x100", "thumb=0x50"} {
				q := strings.Trim(who.query+"&"+thumb, "&")
				url := base
				if q != "" {
					url += "?" + q
				}
				r := k.Do(testkit.Req{Method: http.MethodGet, Path: url, Cookie: who.cookie, Headers: who.headers})
				testkit.Expect(t, r, http.StatusNotFound, files.MsgFileNotFound)
			}
			for _, o := range tg.other {
				if r := k.Do(testkit.Req{Method: http.MethodGet, Path: o, Cookie: who.cookie, Headers: who.headers}); r.Status != 404 {
					t.Fatalf("%s, %s: %d", o, who.name, r.Status)
				}
			}
		}
		if hasPrefix(t, k, tg.rec.BaseFilesPath()+"/thumbs_"+tg.name) {
			t.Fatalf("a thumbnail of %s was made", tg.name)
		}
		if !exists(t, k, tg.rec.BaseFilesPath()+"/"+tg.name) {
			t.Fatalf("%s gone before the quarantine", tg.name)
		}
	}
}

// pngSize reads a PNG's dimensions.
func pngSize(data []byte) ([2]int, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	return [2]int{cfg.Width, cfg.Height}, err
}
