package messages_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/jobs"
	"camellos/modules/messages"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// sqlPage is the answer GET /api/jobs/{id}/messages gave before it was
// served from memory: one page read from the database (one thread when
// thread is not ""), oldest first, with its total, rendered through maps.
func sqlPage(t *testing.T, k *testkit.Kit, job, thread string, page, perPage int) []byte {
	t.Helper()
	where := dbx.HashExp{"job": job}
	if thread != "" {
		where["camello"] = thread
	}
	p := httpapi.Page{Page: page, PerPage: perPage}
	total, err := k.App.CountRecords(messages.Collection, where)
	if err != nil {
		t.Fatal(err)
	}
	var recs []*core.Record
	if err := k.App.RecordQuery(messages.Collection).Where(where).OrderBy("created ASC", "id ASC").
		Offset(p.Offset()).Limit(int64(perPage)).All(&recs); err != nil {
		t.Fatal(err)
	}
	list, err := messages.JSON(k.App, recs)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(p.Answer("messages", list, total)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// reader is a caller of the list: its cookie, the thread it sees (or asks
// for with camelloId) and whether it asks with camelloId.
type reader struct {
	name, cookie, thread string
	ask                  bool
}

func (w *talk) readers() []reader {
	return []reader{
		{"client", w.clientCk, "", false},
		{"client, thread 0", w.clientCk, w.cams[0].Id, true},
		{"admin, thread 1", w.adminCk, w.cams[1].Id, true},
		{"admin", w.adminCk, "", false},
		{"camello 0", w.camCks[0], w.cams[0].Id, false},
		{"camello 1", w.camCks[1], w.cams[1].Id, false},
	}
}

// samePages compares, byte for byte, every page of every reader (page sizes
// 1, 3, 7, 20 and 100, one page past the end) with the database's answer,
// each asked twice (the second from memory).
func (w *talk) samePages(t *testing.T, when string, sizes ...int) {
	t.Helper()
	if len(sizes) == 0 {
		sizes = []int{1, 3, 7, 20, 100}
	}
	for _, rd := range w.readers() {
		for _, per := range sizes {
			for page := 1; ; page++ {
				want := sqlPage(t, w.k, w.job, rd.thread, page, per)
				q := fmt.Sprintf("?page=%d&perPage=%d", page, per)
				if rd.ask {
					q += "&camelloId=" + rd.thread
				}
				for i := 0; i < 2; i++ {
					r := w.k.Get(w.path()+q, rd.cookie)
					if r.Status != 200 || !bytes.Equal(r.Raw, want) {
						t.Fatalf("%s: %s %s (read %d): %d\n got %s\nwant %s", when, rd.name, q, i+1, r.Status, r.Raw, want)
					}
				}
				if page*per >= int(w.count(t, rd.thread))+per {
					break
				}
			}
		}
	}
}

func (w *talk) count(t *testing.T, thread string) int64 {
	where := dbx.HashExp{"job": w.job}
	if thread != "" {
		where["camello"] = thread
	}
	n, err := w.k.App.CountRecords(messages.Collection, where)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// externalExec runs SQL on data.db through a connection of its own, as
// another process (the CLI, sqlite3) would.
func externalExec(t *testing.T, k *testkit.Kit, query string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(k.App.DataDir(), "data.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("external %q: %v", query, err)
	}
}

// post writes a message through the route.
func (w *talk) post(t *testing.T, cookie, body, to string) {
	t.Helper()
	in := map[string]any{"body": body}
	if to != "" {
		in["toCamelloId"] = to
	}
	expect(t, w.k.Post(w.path(), cookie, in), 201, "")
}

// Pages and totals cut from the cached conversation are the database's,
// for every reader and page size, ties on created broken by id, photos and
// characters JSON escapes included.
func TestMessagesListPagingEqualsSQL(t *testing.T) {
	w := newTalk(t)
	k := w.k
	w.samePages(t, "empty")
	for i := 0; i < 6; i++ {
		w.post(t, w.clientCk, fmt.Sprintf("hola %d <b>&</b>", i), w.cams[i%2].Id)
		w.post(t, w.camCks[i%2], fmt.Sprintf("respuesta %d \"ya\"", i), "")
	}
	expect(t, k.Post(w.path(), w.camCks[0], testkit.NewMultipart().Field("body", "la fuga").File("files", "fuga.png", testkit.PNG(t)).Close()), 201, "")
	// Three messages with the same created (another process's inserts).
	for _, id := range []string{"zzzzzzzzzzzzzz1", "aaaaaaaaaaaaaa1", "mmmmmmmmmmmmmm1"} {
		externalExec(t, k, "INSERT INTO messages (id, job, camello, author, body, files, created) VALUES (?, ?, ?, ?, 'empate', '[]', '2020-01-01 10:00:00.000Z')",
			id, w.job, w.cams[1].Id, w.client.Id)
	}
	w.samePages(t, "16 messages")
}

// Every kind of write shows on the next read of a cached conversation:
// the route, record saves and deletes as the dashboard makes them, the
// author's name, an erasure and raw SQL from another connection.
func TestMessagesListCoherence(t *testing.T) {
	w := newTalk(t)
	k := w.k
	w.post(t, w.clientCk, "primero", w.cams[0].Id)
	w.samePages(t, "one message", 20)
	w.post(t, w.camCks[1], "otro hilo", "")
	w.samePages(t, "posted", 20)

	col, err := k.App.FindCollectionByNameOrId(messages.Collection)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecord(col, map[string]any{"job": w.job, "camello": w.cams[0].Id, "author": w.client.Id, "body": "desde el panel"})
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	w.samePages(t, "record created", 20)
	if err := k.App.Delete(rec); err != nil {
		t.Fatal(err)
	}
	w.samePages(t, "record deleted", 20)

	client, err := k.App.FindRecordById("users", w.client.Id)
	if err != nil {
		t.Fatal(err)
	}
	client.Set("name", "Nombre Cambiado")
	if err := k.App.Save(client); err != nil {
		t.Fatal(err)
	}
	if r := k.Get(w.path(), w.camCks[0]); r.Str("messages.0.author.name") != "Nombre Cambiado" {
		t.Fatalf("author renamed: %s", r.Raw)
	}
	w.samePages(t, "author renamed", 20)

	externalExec(t, k, "UPDATE users SET name = 'Otro Proceso' WHERE id = ?", w.client.Id)
	if r := k.Get(w.path(), w.camCks[0]); r.Str("messages.0.author.name") != "Otro Proceso" {
		t.Fatalf("another process's rename: %s", r.Raw)
	}
	externalExec(t, k, "INSERT INTO messages (id, job, camello, author, body, files, created) VALUES ('externo12345678', ?, ?, ?, 'de fuera', '[]', '2030-01-01 10:00:00.000Z')",
		w.job, w.cams[0].Id, w.client.Id)
	if r := k.Get(w.path(), w.clientCk); r.Get("total") != 3.0 || r.Str("messages.2.body") != "de fuera" {
		t.Fatalf("another process's message: %s", r.Raw)
	}
	w.samePages(t, "external commits", 20)

	// Camello 1 erases its account: its messages stay, read as "Usuario eliminado".
	expect(t, k.Delete("/api/me", w.camCks[1], map[string]any{"password": testkit.DefaultPassword}), 200, "")
	if r := k.Get(w.path()+"?camelloId="+w.cams[1].Id, w.clientCk); r.Str("messages.0.author.name") != "Usuario eliminado" {
		t.Fatalf("erased author: %s", r.Raw)
	}
	if r := k.Get(w.path(), w.clientCk); r.Status != 200 || !bytes.Equal(r.Raw, sqlPage(t, k, w.job, "", 1, 20)) {
		t.Fatalf("after the erasure: %s", r.Raw)
	}
}

// Who may read a conversation is what it was, and follows the job and the
// quotes on the next read: a camello that quotes joins, the assignment
// leaves only the provider, another process's write of the job counts.
func TestMessagesListAccessEveryRole(t *testing.T) {
	w := newTalk(t)
	k := w.k
	w.post(t, w.clientCk, "hola", w.cams[0].Id)
	w.post(t, w.clientCk, "hola", w.cams[1].Id)
	p := w.path()
	expect(t, k.Get(p, ""), 401, "No autorizado")
	expect(t, k.Get("/api/jobs/a.b/messages", w.clientCk), 400, "")
	expect(t, k.Get("/api/jobs/nosuchjob123456/messages", w.clientCk), 404, jobs.MsgJobNotFound)
	expect(t, k.Get(p, w.otherCk), 403, "No autorizado")
	expect(t, k.Get(p, w.outsiderCamCk), 403, "No autorizado")
	expect(t, k.Get(p+"?camelloId=a.b", w.clientCk), 400, "")
	expect(t, k.Get(p+"?perPage=0", w.clientCk), 400, "")
	w.samePages(t, "two threads", 20)

	// The outsider quotes: it joins with its own (empty) thread.
	r := k.Post("/api/jobs/"+w.job+"/quotes", w.outsiderCamCk, map[string]any{"amount": 70000})
	expect(t, r, 201, "")
	got := k.Get(p, w.outsiderCamCk)
	if got.Status != 200 || got.Get("total") != 0.0 {
		t.Fatalf("a quoting camello: %d %s", got.Status, got.Raw)
	}

	// The client accepts camello 0's quote: camello 1 and the outsider leave.
	var q0 string
	if err := k.App.DB().Select("id").From("quotes").Where(dbx.HashExp{"job": w.job, "camello": w.cams[0].Id}).Row(&q0); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Post("/api/quotes/"+q0+"/accept", w.clientCk, nil), 200, "")
	expect(t, k.Get(p, w.camCks[1]), 403, "No autorizado")
	expect(t, k.Get(p, w.outsiderCamCk), 403, "No autorizado")
	if r := k.Get(p, w.camCks[0]); r.Status != 200 || !bytes.Equal(r.Raw, sqlPage(t, k, w.job, w.cams[0].Id, 1, 20)) {
		t.Fatalf("the provider: %d %s", r.Status, r.Raw)
	}

	// Another process gives the job to camello 1.
	externalExec(t, k, "UPDATE jobs SET provider = ? WHERE id = ?", w.cams[1].Id, w.job)
	expect(t, k.Get(p, w.camCks[0]), 403, "No autorizado")
	if r := k.Get(p, w.camCks[1]); r.Status != 200 || !bytes.Equal(r.Raw, sqlPage(t, k, w.job, w.cams[1].Id, 1, 20)) {
		t.Fatalf("the new provider: %d %s", r.Status, r.Raw)
	}
}

// A conversation longer than what one job may keep in memory is read
// page by page from the database, with the same answers.
func TestLongConversationFromSQL(t *testing.T) {
	w := newTalk(t)
	k := w.k
	err := k.App.RunInTransaction(func(tx core.App) error {
		for i := 0; i < 2003; i++ {
			_, err := tx.DB().NewQuery("INSERT INTO messages (id, job, camello, author, body, files, created) " +
				"VALUES ({:id}, {:job}, {:cam}, {:author}, {:body}, '[]', {:at})").Bind(dbx.Params{
				"id": fmt.Sprintf("largo%010d", i), "job": w.job, "cam": w.cams[i%2].Id, "author": w.client.Id,
				"body": fmt.Sprintf("mensaje %d", i), "at": fmt.Sprintf("2020-01-01 10:%02d:%02d.000Z", (i/60)%60, i%60),
			}).Execute()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rd := range w.readers() {
		for _, q := range []struct{ page, per int }{{1, 20}, {2, 7}, {50, 20}, {11, 100}, {21, 100}, {200, 100}} {
			want := sqlPage(t, k, w.job, rd.thread, q.page, q.per)
			path := fmt.Sprintf("%s?page=%d&perPage=%d", w.path(), q.page, q.per)
			if rd.ask {
				path += "&camelloId=" + rd.thread
			}
			if r := k.Get(path, rd.cookie); r.Status != 200 || !bytes.Equal(r.Raw, want) {
				t.Fatalf("%s %s: %d\n got %.300s\nwant %.300s", rd.name, path, r.Status, r.Raw, want)
			}
		}
	}
}

// Readers racing writers: once the writes are answered, the next read is
// the database's answer (no build that raced a write was kept).
func TestMessagesListUnderConcurrentWrites(t *testing.T) {
	w := newTalk(t)
	k := w.k
	stop := make(chan struct{})
	done := make(chan struct{})
	for r := 0; r < 4; r++ {
		go func(r int) {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got := k.Get(w.path(), []string{w.clientCk, w.camCks[0], w.camCks[1], w.adminCk}[r]); got.Status != 200 {
					t.Errorf("read: %d %s", got.Status, got.Raw)
					return
				}
			}
		}(r)
	}
	var wg = make(chan struct{}, 3)
	for g := 0; g < 3; g++ {
		go func(g int) {
			defer func() { wg <- struct{}{} }()
			for i := 0; i < 10; i++ {
				ck, to := w.clientCk, w.cams[i%2].Id
				if g > 0 {
					ck, to = w.camCks[g-1], ""
				}
				in := map[string]any{"body": fmt.Sprintf("m %d %d", g, i)}
				if to != "" {
					in["toCamelloId"] = to
				}
				if r := k.Post(w.path(), ck, in); r.Status != 201 {
					t.Errorf("post: %d %s", r.Status, r.Raw)
				}
			}
		}(g)
	}
	for g := 0; g < 3; g++ {
		<-wg
	}
	close(stop)
	for r := 0; r < 4; r++ {
		<-done
	}
	w.samePages(t, "after concurrent writes", 7, 100)
}
