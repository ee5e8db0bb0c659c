package messages_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/internal/text"
	"camellos/modules/jobs"
	"camellos/modules/messages"
)

func TestThreadsAndRoles(t *testing.T) {
	w := newTalk(t)
	k := w.k
	p := w.path()

	r := k.Post(p, w.camCks[0], map[string]any{"body": "Hola, ¿a qué hora le sirve?"})
	expect(t, r, 201, "")
	if r.Str("message.author.id") != w.camUsers[0].Id || r.Str("message.author.role") != "CAMELLOS" ||
		r.Str("message.camelloId") != w.cams[0].Id || r.Str("message.jobId") != w.job || len(r.Get("message.attachments").([]any)) != 0 {
		t.Fatalf("message: %s", r.Raw)
	}
	expect(t, k.Post(p, w.camCks[1], map[string]any{"body": "Yo puedo hoy"}), 201, "")
	// The client must say which camello it answers while the job is open.
	expect(t, k.Post(p, w.clientCk, map[string]any{"body": "Mañana a las 9"}), 400, httpapi.MsgInvalidData)
	r = k.Post(p, w.clientCk, map[string]any{"body": "Mañana a las 9", "toCamelloId": w.cams[0].Id})
	expect(t, r, 201, "")
	if r.Str("message.camelloId") != w.cams[0].Id || r.Str("message.author.role") != "CLIENTE" {
		t.Fatalf("answer: %s", r.Raw)
	}
	for _, bad := range []string{"a.b", "nosuchcamello1"} {
		expect(t, k.Post(p, w.clientCk, map[string]any{"body": "x", "toCamelloId": bad}), 400, httpapi.MsgInvalidData)
	}

	// Thread isolation: each quoting camello reads only its exchange.
	own := k.Get(p, w.camCks[0])
	if own.Get("total") != 2.0 || strings.Contains(string(own.Raw), "Yo puedo hoy") {
		t.Fatalf("camello 0 reads: %s", own.Raw)
	}
	own = k.Get(p, w.camCks[1])
	if own.Get("total") != 1.0 || strings.Contains(string(own.Raw), "Mañana a las 9") || strings.Contains(string(own.Raw), "qué hora") {
		t.Fatalf("camello 1 reads: %s", own.Raw)
	}
	// The camello's camelloId filter cannot widen its view.
	if r := k.Get(p+"?camelloId="+w.cams[1].Id, w.camCks[0]); r.Get("total") != 2.0 || strings.Contains(string(r.Raw), "Yo puedo hoy") {
		t.Fatalf("filter widened the view: %s", r.Raw)
	}
	for _, ck := range []string{w.clientCk, w.adminCk} {
		all := k.Get(p, ck)
		// Oldest first, ties within one millisecond by id (the list's order,
		// list.go): two posts in the same millisecond come in id order.
		if all.Get("total") != 3.0 || !oldestFirst(all) || all.Str("messages.2.body") != "Mañana a las 9" && all.Str("messages.2.createdAt") != all.Str("messages.1.createdAt") {
			t.Fatalf("all threads oldest first: %s", all.Raw)
		}
		if one := k.Get(p+"?camelloId="+w.cams[1].Id, ck); one.Get("total") != 1.0 {
			t.Fatalf("one thread: %s", one.Raw)
		}
	}
	if pg := k.Get(p+"?perPage=1&page=2", w.clientCk); pg.Get("total") != 3.0 || pg.Get("perPage") != 1.0 || pg.Str("messages.0.body") != "Yo puedo hoy" {
		t.Fatalf("paging: %s", pg.Raw)
	}
	for _, q := range []string{"perPage=0", "perPage=101", "page=0", "camelloId=a.b"} {
		expect(t, k.Get(p+"?"+q, w.clientCk), 400, httpapi.MsgInvalidData)
	}

	// Outsiders.
	expect(t, k.Get(p, ""), 401, "No autorizado")
	expect(t, k.Post(p, "", map[string]any{"body": "x"}), 401, "No autorizado")
	expect(t, k.Get(p, w.otherCk), 403, "No autorizado")
	expect(t, k.Post(p, w.otherCk, map[string]any{"body": "x"}), 403, "No autorizado")
	expect(t, k.Get(p, w.outsiderCamCk), 403, "No autorizado")
	expect(t, k.Post(p, w.outsiderCamCk, map[string]any{"body": "x"}), 403, "No autorizado")
	expect(t, k.Post(p, w.adminCk, map[string]any{"body": "x"}), 403, messages.MsgAdminReadOnly)
	expect(t, k.Get("/api/jobs/nosuchjob12345/messages", w.clientCk), 404, jobs.MsgJobNotFound)
	expect(t, k.Get("/api/jobs/a.b/messages", w.clientCk), 400, httpapi.MsgInvalidData)

	// The recipient's inbox gets a MESSAGE item per message.
	if n := k.Count("notifications", "kind = 'MESSAGE' AND user = {:u}", map[string]any{"u": w.client.Id}); n != 2 {
		t.Errorf("client has %d MESSAGE items, want 2", n)
	}
	if n := k.Count("notifications", "kind = 'MESSAGE' AND user = {:u}", map[string]any{"u": w.camUsers[0].Id}); n != 1 {
		t.Errorf("camello 0 has %d MESSAGE items, want 1", n)
	}

	// Once the job goes to camello 0, camello 1 is out; camello 0 keeps its thread
	// and the client writes to it without naming it.
	quote := k.Get("/api/jobs/"+w.job+"/quotes", w.camCks[0]).Str("quotes.0.id")
	expect(t, k.Post("/api/quotes/"+quote+"/accept", w.clientCk, nil), 200, "")
	expect(t, k.Get(p, w.camCks[1]), 403, "No autorizado")
	expect(t, k.Post(p, w.camCks[1], map[string]any{"body": "¿Y yo?"}), 403, "No autorizado")
	if r := k.Post(p, w.clientCk, map[string]any{"body": "Listo"}); r.Status != 201 || r.Str("message.camelloId") != w.cams[0].Id {
		t.Fatalf("client to the assigned camello: %s", r.Raw)
	}
	expect(t, k.Post(p, w.clientCk, map[string]any{"body": "x", "toCamelloId": w.cams[1].Id}), 400, httpapi.MsgInvalidData)
	if r := k.Get(p, w.camCks[0]); r.Get("total") != 3.0 {
		t.Fatalf("assigned camello's thread: %s", r.Raw)
	}
}

func TestMessageBounds(t *testing.T) {
	w := newTalk(t)
	k := w.k
	p := w.path()
	count := func() int { return k.Count("messages", "") }

	bad := []struct {
		name string
		body any
	}{
		{"missing", map[string]any{}},
		{"empty", map[string]any{"body": ""}},
		{"blank", map[string]any{"body": "   "}},
		{"too long", map[string]any{"body": strings.Repeat("ñ", 2001)}},
		{"number", map[string]any{"body": 5}},
	}
	for _, c := range bad {
		r := k.Post(p, w.camCks[0], c.body)
		expect(t, r, 400, httpapi.MsgInvalidData)
		if len(r.FieldErrors("body")) == 0 {
			t.Errorf("%s: %s", c.name, r.Raw)
		}
	}
	expect(t, k.Post(p, w.camCks[0], "{"), 400, httpapi.MsgInvalidJSON)
	expect(t, k.Do(testkit.Req{Method: "POST", Path: p, Cookie: w.camCks[0], Body: "body=x",
		Headers: map[string]string{"Content-Type": "text/plain"}}), 415, "")
	if count() != 0 {
		t.Fatalf("%d messages written by bad requests", count())
	}
	r := k.Post(p, w.camCks[0], map[string]any{"body": strings.Repeat("ñ", 2000)})
	expect(t, r, 201, "")
	if text.Chars(r.Str("message.body")) != 2000 {
		t.Fatal("body cut")
	}
	expect(t, k.Post(p, w.camCks[0], map[string]any{"body": "a"}), 201, "")

	html := []byte("<!DOCTYPE html><html><script>alert(1)</script></html>")
	files := []struct {
		name   string
		form   *testkit.Multipart
		status int
	}{
		{"html posing as png", testkit.NewMultipart().Field("body", "mira").File("files", "foto.png", html).Close(), 400},
		{"png header only", testkit.NewMultipart().File("files", "foto.png", testkit.PNG(t)[:20]).Close(), 400},
		{"four files", testkit.NewMultipart().File("files", "a.png", testkit.PNG(t)).File("files", "b.png", testkit.PNG(t)).
			File("files", "c.png", testkit.PNG(t)).File("files", "d.png", testkit.PNG(t)).Close(), 400},
		{"empty body without file", testkit.NewMultipart().Field("body", "").Close(), 400},
		{"body too long", testkit.NewMultipart().Field("body", strings.Repeat("x", 2001)).File("files", "a.png", testkit.PNG(t)).Close(), 400},
	}
	before := count()
	for _, c := range files {
		r := k.Post(p, w.camCks[0], c.form)
		if r.Status != c.status {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	if count() != before {
		t.Fatalf("bad multipart wrote messages")
	}
	// Three photos, one of each kind, and no text.
	form := testkit.NewMultipart().Field("body", "").File("files", "a.png", testkit.PNG(t)).
		File("files", "b.jpg", jpegBytes(t)).File("files", "c.webp", webpBytes).Close()
	r = k.Post(p, w.camCks[0], form)
	expect(t, r, 201, "")
	urls := r.Get("message.attachments").([]any)
	if len(urls) != 3 {
		t.Fatalf("attachments: %s", r.Raw)
	}
	// One photo just inside and just outside 5 MiB.
	sized := func(n int) []byte {
		b := testkit.PNG(t)
		return append(b, make([]byte, n-len(b))...)
	}
	r = k.Post(p, w.camCks[0], testkit.NewMultipart().File("files", "max.png", sized(5<<20)).Close())
	expect(t, r, 201, "")
	r = k.Post(p, w.camCks[0], testkit.NewMultipart().File("files", "over.png", sized(5<<20+1)).Close())
	expect(t, r, 400, httpapi.MsgInvalidData)
	if got := r.FieldErrors("files"); len(got) == 0 || got[0] != messages.MsgImageTooLarge {
		t.Fatalf("over 5 MiB: %s", r.Raw)
	}
	// Too large as a whole request.
	big := testkit.NewMultipart().Field("body", "x").File("files", "big.png", append(testkit.PNG(t), make([]byte, 7<<20)...)).Close()
	if r := k.Do(testkit.Req{Method: "POST", Path: p, Cookie: w.camCks[0], Body: big,
		Headers: map[string]string{"Expect": "100-continue"}}); r.Status != 413 {
		t.Fatalf("7 MiB: %d %s", r.Status, r.Raw)
	}
}

func TestAttachmentsArePrivate(t *testing.T) {
	w := newTalk(t)
	k := w.k
	form := testkit.NewMultipart().Field("body", "la fuga").File("files", "fuga.png", testkit.PNG(t)).Close()
	r := k.Post(w.path(), w.camCks[0], form)
	expect(t, r, 201, "")
	url := r.Str("message.attachments.0")
	if !strings.HasPrefix(url, "/api/messages/files/"+r.Str("message.id")+"/") {
		t.Fatalf("url %q", url)
	}
	for name, ck := range map[string]string{"author": w.camCks[0], "client": w.clientCk, "admin": w.adminCk} {
		res := k.Get(url, ck)
		if res.Status != 200 || res.Header.Get("Content-Type") != "image/png" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") || !strings.HasPrefix(res.Header.Get("Cache-Control"), "private") {
			t.Errorf("%s: %d %v", name, res.Status, res.Header)
		}
		if string(res.Raw) != string(testkit.PNG(t)) {
			t.Errorf("%s: body differs", name)
		}
	}
	for name, ck := range map[string]string{"other quoting camello": w.camCks[1], "stranger": w.otherCk, "outsider camello": w.outsiderCamCk, "anonymous": ""} {
		if res := k.Get(url, ck); res.Status != 404 {
			t.Errorf("%s: %d", name, res.Status)
		}
	}
	for _, u := range []string{url + "x", "/api/messages/files/nosuchmsg12345/a.png", "/api/messages/files/" + r.Str("message.id") + "/..%2f..%2fdata.db"} {
		if res := k.Get(u, w.clientCk); res.Status != 404 {
			t.Errorf("%s: %d", u, res.Status)
		}
	}
	// PocketBase's own file route does not serve the protected field either.
	rec, _ := k.App.FindRecordById("messages", r.Str("message.id"))
	name := rec.GetStringSlice("files")[0]
	if res := k.Get("/api/files/messages/"+rec.Id+"/"+name, w.clientCk); res.Status == 200 {
		t.Error("PocketBase served the private photo")
	}
}

func TestClosedConversations(t *testing.T) {
	w := newTalk(t)
	k := w.k
	body := map[string]any{"body": "¿Sigue en pie?"}
	cancelled := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.cams[0], Status: "CANCELADO"})
	expect(t, k.Post("/api/jobs/"+cancelled.Id+"/messages", w.clientCk, body), 409, messages.MsgCancelledJob)
	done := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.cams[0], Status: "COMPLETADO"})
	expect(t, k.Post("/api/jobs/"+done.Id+"/messages", w.clientCk, body), 201, "")
	expect(t, k.Post("/api/jobs/"+done.Id+"/messages", w.camCks[0], body), 201, "")
	clock.Set(k.App, func() time.Time { return time.Now().Add(29 * 24 * time.Hour) })
	expect(t, k.Post("/api/jobs/"+done.Id+"/messages", w.clientCk, body), 201, "")
	clock.Set(k.App, func() time.Time { return time.Now().Add(31 * 24 * time.Hour) })
	expect(t, k.Post("/api/jobs/"+done.Id+"/messages", w.clientCk, body), 409, messages.MsgClosedJob)
	clock.Set(k.App, nil)
	// Reading stays possible.
	if r := k.Get("/api/jobs/"+cancelled.Id+"/messages", w.clientCk); r.Status != http.StatusOK {
		t.Fatalf("read cancelled: %s", r.Raw)
	}
	// The dashboard obeys too.
	col, _ := k.App.FindCollectionByNameOrId("messages")
	rec := newRecord(col, map[string]any{"job": cancelled.Id, "camello": w.cams[0].Id, "author": w.client.Id, "body": "x"})
	if err := k.App.Save(rec); err == nil {
		t.Fatal("dashboard wrote on a cancelled job")
	}
	rec = newRecord(col, map[string]any{"job": w.job, "camello": w.cams[0].Id, "author": w.camUsers[1].Id, "body": "x"})
	if err := k.App.Save(rec); err == nil {
		t.Fatal("dashboard wrote in another camello's thread")
	}
}

// oldestFirst reports whether a list's messages are in (createdAt, id) order.
func oldestFirst(r *testkit.Response) bool {
	n := int(r.Get("total").(float64))
	for i := 1; i < n && i < 20; i++ {
		a, b := r.Str(fmt.Sprintf("messages.%d.createdAt", i-1)), r.Str(fmt.Sprintf("messages.%d.createdAt", i))
		if a > b || a == b && r.Str(fmt.Sprintf("messages.%d.id", i-1)) > r.Str(fmt.Sprintf("messages.%d.id", i)) {
			return false
		}
	}
	return true
}
