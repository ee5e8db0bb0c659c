package hardening_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/hardening"
	"camellos/internal/privacy"
	"camellos/internal/pushtest"
	"camellos/internal/testkit"
	"camellos/modules/mail"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/tests"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// expectAddress is the job address rule written out (SECURITY.md, "Private
// fields"): the client and admins always; the job's camello while the job
// is ASIGNADO, EN_PROGRESO or COMPLETADO; nobody else, ever.
func expectAddress(v hardening.Viewer, j hardening.PrivacyJob) bool {
	switch v {
	case hardening.VClient, hardening.VAdmin:
		return true
	case hardening.VAccepted:
		return j.Provider && (j.Status == "ASIGNADO" || j.Status == "EN_PROGRESO" || j.Status == "COMPLETADO")
	}
	return false
}

// relation is how a viewer stands to a job, for privacy.Visible.
func relation(v hardening.Viewer, j hardening.PrivacyJob) privacy.Relation {
	return privacy.Relation{Admin: v == hardening.VAdmin, Client: v == hardening.VClient,
		Provider: v == hardening.VAccepted && j.Provider, JobStatus: j.Status}
}

// answer is one answer a viewer got: which carrier, and its body.
type answer struct{ carrier, body string }

// TestPrivacyMatrix (issue 21) reads every answer that carries a sensitive
// field as every viewer (the client, the job's camello, a quoting camello,
// a rejected one, a stranger camello, a stranger client, an admin,
// anonymous), with one job of the client in every state, and checks:
//   - a job's address appears only where privacy.JobAddress allows it (the
//     table agrees with the rule written out in expectAddress), and does
//     appear where it should (the job, the export, the camello's calendar);
//   - another person's phone, document and e-mail reach only admins;
//   - a calendar feed URL reaches only its owner;
//   - mail and push carry none of them to anyone who may not see them.
func TestPrivacyMatrix(t *testing.T) {
	mb := testkit.NewMailbox(t)
	mb.Env(t, "off")
	t.Setenv("AUTH_IP_LIMIT", "0")
	t.Setenv("APP_URL", "http://camellos.test")
	// Every signed-in viewer subscribes to Web Push at a real HTTPS push
	// service on loopback; what reaches it is opened as a browser would.
	t.Setenv("WEBPUSH_ALLOW_PRIVATE", "1")
	var pushMu sync.Mutex
	pushes := map[string][][]byte{}
	push := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		pushMu.Lock()
		pushes[req.URL.Path] = append(pushes[req.URL.Path], body)
		pushMu.Unlock()
		rw.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(push.Close)
	type pushKey struct {
		priv *ecdh.PrivateKey
		auth []byte
	}
	pushKeys := map[hardening.Viewer]pushKey{}
	subscribe := func(w *hardening.PrivacyWorld) {
		for i, v := range hardening.Viewers[1:] {
			priv, err := ecdh.P256().GenerateKey(rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			auth := make([]byte, 16)
			_, _ = rand.Read(auth)
			pushKeys[v] = pushKey{priv, auth}
			r := w.K.Post("/api/notifications/push/subscribe", w.Cookies[v], map[string]any{
				"endpoint": push.URL + "/push/" + strconv.Itoa(i),
				"keys": map[string]any{"p256dh": base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes()),
					"auth": base64.RawURLEncoding.EncodeToString(auth)}})
			if r.Status != 201 {
				t.Fatalf("push subscription of %s: %d %s", v, r.Status, r.Raw)
			}
		}
	}
	w := hardening.NewPrivacyWorld(t, mb, subscribe, func(app *tests.TestApp) {
		notifications.SetOptions(app, notifications.Options{HTTPClient: push.Client()})
	})
	k := w.K

	for _, j := range w.Jobs {
		for _, v := range hardening.Viewers {
			if got, want := privacy.Visible(privacy.JobAddress, relation(v, j)), expectAddress(v, j); got != want {
				t.Errorf("privacy table: address of the %s job to %s = %v, want %v", j.Name, v, got, want)
			}
		}
	}

	// Every field of the table is read by this matrix, and the person-level
	// rules it checks below (phone, document, e-mail: the person and admins;
	// the feed URL: its owner only) are the table's.
	matrix := map[privacy.Field]bool{privacy.JobAddress: true, privacy.Phone: true, privacy.DocumentID: true,
		privacy.Email: true, privacy.CamelloPhoto: true, privacy.FeedURL: true, privacy.ReviewContent: true,
		privacy.BasePoint: true, privacy.CamelloDocuments: true}
	for f := range privacy.Table {
		if !matrix[f] {
			t.Errorf("privacy.Table has %s, which this matrix does not read", f)
		}
	}
	// A sealed review: its author and admins; published: both parties
	// (the routes are walked in modules/payments' TestDoubleBlindReviews).
	if !privacy.Visible(privacy.ReviewContent, privacy.Relation{Self: true, Sealed: true}) ||
		!privacy.Visible(privacy.ReviewContent, privacy.Relation{Admin: true, Sealed: true}) ||
		privacy.Visible(privacy.ReviewContent, privacy.Relation{Client: true, Provider: true, Sealed: true}) ||
		!privacy.Visible(privacy.ReviewContent, privacy.Relation{Client: true}) || !privacy.Visible(privacy.ReviewContent, privacy.Relation{Provider: true}) ||
		privacy.Visible(privacy.ReviewContent, privacy.Relation{}) {
		t.Error("privacy table: a review's content is not its author's and admins' while sealed, the parties' once published")
	}
	for _, f := range []privacy.Field{privacy.Phone, privacy.DocumentID, privacy.Email, privacy.BasePoint, privacy.CamelloDocuments} {
		if !privacy.Visible(f, privacy.Relation{Self: true}) || !privacy.Visible(f, privacy.Relation{Admin: true}) ||
			privacy.Visible(f, privacy.Relation{Client: true, Provider: true, JobStatus: "ASIGNADO", Public: true}) {
			t.Errorf("privacy table: %s is not the person's and admins' only", f)
		}
	}
	if !privacy.Visible(privacy.FeedURL, privacy.Relation{Self: true}) || privacy.Visible(privacy.FeedURL, privacy.Relation{Admin: true}) {
		t.Error("privacy table: a feed URL is not its owner's only")
	}

	// Every viewer's feed URL, asked for once by its owner.
	feeds := map[hardening.Viewer]string{}
	for _, v := range hardening.Viewers[1:] {
		r := k.Get("/api/agenda/calendar", w.Cookies[v])
		if r.Status != 200 {
			t.Fatalf("calendar as %s: %d %s", v, r.Status, r.Raw)
		}
		feeds[v] = r.Str("url")
	}
	if !mail.WaitIdle(k.App, 2*time.Minute) {
		t.Fatal("outbox did not drain")
	}
	if !notifications.WaitIdle(k.App, 2*time.Minute) {
		t.Fatal("push queue did not drain")
	}

	paths := []string{"/api/jobs?perPage=100", "/api/admin/jobs?perPage=100", "/api/me", "/api/me/export",
		"/api/jobs/open?perPage=100", "/api/notifications?perPage=100", "/api/events?once=true",
		"/api/agenda/appointments?from=" + url.QueryEscape(time.Now().Add(-24*time.Hour).UTC().Format(time.RFC3339)) +
			"&to=" + url.QueryEscape(time.Now().Add(20*24*time.Hour).UTC().Format(time.RFC3339)),
		"/api/camellos?perPage=100", "/api/admin/users?perPage=100", "/api/admin/camellos?perPage=100"}
	for _, j := range w.Jobs {
		paths = append(paths, "/api/jobs/"+j.ID, "/api/jobs/"+j.ID+"/quotes", "/api/jobs/"+j.ID+"/messages")
	}
	for _, cam := range w.Camello {
		paths = append(paths, "/api/camellos/"+cam.Id, "/api/camellos/"+cam.Id+"/reviews", "/api/admin/camellos/"+cam.Id)
	}

	seen := map[hardening.Viewer][]answer{}
	pushed := 0
	for _, v := range hardening.Viewers {
		for _, p := range paths {
			r := k.Get(p, w.Cookies[v])
			if r.Status >= 500 {
				t.Errorf("GET %s as %s: %d", p, v, r.Status)
			}
			seen[v] = append(seen[v], answer{"GET " + p, string(r.Raw)})
		}
		if feed := feeds[v]; feed != "" {
			seen[v] = append(seen[v], answer{"GET /api/agenda/calendar", feed})
			r := k.Get(strings.TrimPrefix(feed, "http://camellos.test"), "")
			if r.Status != 200 {
				t.Fatalf("feed of %s: %d", v, r.Status)
			}
			// Unfolded (RFC 5545 3.1), so a marker split over two lines is seen.
			seen[v] = append(seen[v], answer{"the calendar feed", strings.ReplaceAll(string(r.Raw), "\r\n ", "")})
		}
		if key, ok := pushKeys[v]; ok {
			pushMu.Lock()
			for i, vv := range hardening.Viewers[1:] {
				if vv != v {
					continue
				}
				for _, body := range pushes["/push/"+strconv.Itoa(i)] {
					plain, err := pushtest.Decrypt(key.priv, key.auth, body)
					if err != nil {
						t.Errorf("push to %s: %v", v, err)
					}
					seen[v] = append(seen[v], answer{"push", string(plain)})
					pushed++
				}
			}
			pushMu.Unlock()
		}
		if e := w.Emails[v]; e != "" {
			for _, m := range mb.To(e) {
				seen[v] = append(seen[v], answer{"mail " + m.Subject, m.Subject + "\n" + m.Text + "\n" + m.HTML})
			}
		}
	}

	has := func(v hardening.Viewer, carrier, s string) bool {
		for _, a := range seen[v] {
			if a.carrier == carrier && strings.Contains(a.body, s) {
				return true
			}
		}
		return false
	}
	for _, v := range hardening.Viewers {
		for _, a := range seen[v] {
			for _, j := range w.Jobs {
				if strings.Contains(a.body, j.Marker) && !expectAddress(v, j) {
					t.Errorf("%s reads the address of the %s job (%s) in %s", v, j.Name, j.Status, a.carrier)
				}
			}
			for o := range w.Phones {
				if o == v || v == hardening.VAdmin {
					continue
				}
				for field, m := range map[string]string{"phone": w.Phones[o], "document": w.Documents[o], "e-mail": w.Emails[o], "base point": w.BasePoints[o]} {
					if m != "" && strings.Contains(a.body, m) {
						t.Errorf("%s reads the %s of %s in %s", v, field, o, a.carrier)
					}
				}
				if f := feeds[o]; f != "" && strings.Contains(a.body, f[strings.LastIndex(f, "/")+1:]) {
					t.Errorf("%s reads the calendar feed URL of %s in %s", v, o, a.carrier)
				}
			}
			if v == hardening.VAdmin {
				for o, f := range feeds {
					if o != v && strings.Contains(a.body, f[strings.LastIndex(f, "/")+1:]) {
						t.Errorf("the admin reads the calendar feed URL of %s in %s", o, a.carrier)
					}
				}
			}
		}
	}

	// The rule is not "hide everything": those who may see a field get it.
	for _, j := range w.Jobs {
		for _, v := range []hardening.Viewer{hardening.VClient, hardening.VAccepted, hardening.VAdmin} {
			if expectAddress(v, j) && !has(v, "GET /api/jobs/"+j.ID, j.Marker) {
				t.Errorf("%s does not read the address of the %s job in GET /api/jobs/{id}", v, j.Name)
			}
			if v != hardening.VAdmin && expectAddress(v, j) && !has(v, "GET /api/me/export", j.Marker) {
				t.Errorf("%s does not read the address of the %s job in its export", v, j.Name)
			}
		}
		if j.Name == "asignado" || j.Name == "enprogreso" || j.Name == "completado" {
			if !has(hardening.VAccepted, "the calendar feed", j.Marker) {
				t.Errorf("the job's camello does not read the address of the %s job in its calendar", j.Name)
			}
		}
	}
	for _, v := range hardening.Viewers[1:] {
		if !has(v, "GET /api/me", w.Phones[v]) || !has(v, "GET /api/me", w.Emails[v]) || !has(v, "GET /api/me/export", w.Phones[v]) {
			t.Errorf("%s does not read its own phone and e-mail in GET /api/me and its export", v)
		}
		if b := w.BasePoints[v]; b != "" && (!has(v, "GET /api/me", b) || !has(v, "GET /api/me/export", b)) {
			t.Errorf("%s does not read its own base point in GET /api/me and its export", v)
		}
		if d := w.Documents[v]; d != "" && !has(v, "GET /api/me", d) {
			t.Errorf("%s does not read its own document in GET /api/me", v)
		}
		if !has(hardening.VAdmin, "GET /api/admin/users?perPage=100", w.Emails[v]) {
			t.Errorf("the admin does not read the e-mail of %s", v)
		}
	}
	if len(mb.Mails()) == 0 {
		t.Error("no mail was sent: the mail carrier went unchecked")
	}
	if pushed == 0 {
		t.Error("nothing was pushed: the push carrier went unchecked")
	}

	// A camello's photo: anyone's while the camello is ACTIVO; once it is
	// not, only the camello's and admins' (privacy.CamelloPhoto).
	cam := w.Camello[hardening.VStrangerC]
	f, err := filesystem.NewFileFromBytes(testkit.PNG(t), "foto.png")
	if err != nil {
		t.Fatal(err)
	}
	cam.Set("photo", f)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	photo := "/uploads/camellos/" + cam.GetString("photo")
	for _, status := range []string{"ACTIVO", "SUSPENDIDO"} {
		cam.Set("status", status)
		if err := k.App.Save(cam); err != nil {
			t.Fatal(err)
		}
		for _, v := range hardening.Viewers {
			rel := privacy.Relation{Public: status == "ACTIVO", Self: v == hardening.VStrangerC, Admin: v == hardening.VAdmin}
			want := 404
			if privacy.Visible(privacy.CamelloPhoto, rel) {
				want = 200
			}
			if (status == "ACTIVO" || v == hardening.VStrangerC || v == hardening.VAdmin) != (want == 200) {
				t.Errorf("privacy table: photo of a %s camello to %s", status, v)
			}
			if r := k.Get(photo, w.Cookies[v]); r.Status != want {
				t.Errorf("photo of a %s camello as %s: %d, want %d", status, v, r.Status, want)
			}
		}
	}
}
