package messages_test

import (
	"testing"

	"camellos/modules/camellos"
	"camellos/modules/messages"
)

// The writers rule of a job's conversation: a quoter whose quote the
// client rejected, or a camello that is not ACTIVO (suspended), still
// reads its thread but can no longer write in it, through the route or a
// record save; the other quoter and the client are not affected.
func TestRejectedOrSuspendedQuotersCannotWrite(t *testing.T) {
	w := newTalk(t)
	k := w.k
	say := func(ck string, to string) map[string]any {
		body := map[string]any{"body": "Hola"}
		if to != "" {
			body["toCamelloId"] = to
		}
		return body
	}
	// Before: both quoters write.
	expect(t, k.Post(w.path(), w.camCks[0], say(w.camCks[0], "")), 201, "")
	expect(t, k.Post(w.path(), w.camCks[1], say(w.camCks[1], "")), 201, "")

	// The client rejects camello 0's quote.
	list := k.Get("/api/jobs/"+w.job+"/quotes", w.camCks[0])
	expect(t, k.Post("/api/quotes/"+list.Str("quotes.0.id")+"/reject", w.clientCk, nil), 200, "")
	expect(t, k.Post(w.path(), w.camCks[0], say(w.camCks[0], "")), 409, messages.MsgQuoteRejected)
	if r := k.Get(w.path(), w.camCks[0]); r.Status != 200 {
		t.Fatalf("the rejected quoter no longer reads its thread: %d %s", r.Status, r.Raw)
	}
	col, _ := k.App.FindCollectionByNameOrId(messages.Collection)
	rec := newRecord(col, map[string]any{"job": w.job, "camello": w.cams[0].Id, "author": w.camUsers[0].Id, "body": "Por la puerta de atrás"})
	if err := k.App.Save(rec); err == nil {
		t.Fatal("a record save by the rejected quoter passed")
	}
	expect(t, k.Post(w.path(), w.camCks[1], say(w.camCks[1], "")), 201, "")

	// Camello 1 is suspended.
	cam, _ := k.App.FindRecordById(camellos.Collection, w.cams[1].Id)
	cam.Set("status", camellos.StatusSuspended)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Post(w.path(), w.camCks[1], say(w.camCks[1], "")), 403, messages.MsgCamelloInactive)
	rec = newRecord(col, map[string]any{"job": w.job, "camello": w.cams[1].Id, "author": w.camUsers[1].Id, "body": "Sigo aquí"})
	if err := k.App.Save(rec); err == nil {
		t.Fatal("a record save by the suspended camello passed")
	}
}

// Blocking: a party blocks another on a job (the client a camello of the
// conversation, a camello the client); the blocked side can no longer write
// in that thread (409), reads it still, and writes again once the block is
// lifted. Each party sees the blocks that involve it, an admin every one
// (per job and in GET /api/admin/blocks); nobody else can block.
func TestBlockingClosesTheConversationForTheBlocked(t *testing.T) {
	w := newTalk(t)
	k := w.k
	blocks := "/api/jobs/" + w.job + "/blocks"
	hola := map[string]any{"body": "Hola"}

	r := k.Post(blocks, w.clientCk, map[string]any{"userId": w.camUsers[1].Id})
	expect(t, r, 201, "")
	if r.Str("block.blocker.id") != w.client.Id || r.Str("block.blocked.id") != w.camUsers[1].Id || r.Str("block.jobId") != w.job || r.Str("block.createdAt") == "" {
		t.Fatalf("block: %s", r.Raw)
	}
	expect(t, k.Post(blocks, w.clientCk, map[string]any{"userId": w.camUsers[1].Id}), 200, "") // once
	expect(t, k.Post(w.path(), w.camCks[1], hola), 409, messages.MsgBlocked)
	expect(t, k.Get(w.path(), w.camCks[1]), 200, "")
	expect(t, k.Post(w.path(), w.camCks[0], hola), 201, "") // another thread
	expect(t, k.Post(w.path(), w.clientCk, map[string]any{"body": "Adiós", "toCamelloId": w.cams[1].Id}), 201, "")

	// A camello blocks the client: the client cannot write in that thread.
	expect(t, k.Post(blocks, w.camCks[0], map[string]any{"userId": w.client.Id}), 201, "")
	expect(t, k.Post(w.path(), w.clientCk, map[string]any{"body": "¿Hola?", "toCamelloId": w.cams[0].Id}), 409, messages.MsgBlocked)

	// Who sees what.
	if r := k.Get(blocks, w.camCks[1]); r.Status != 200 || len(r.Get("blocks").([]any)) != 1 {
		t.Fatalf("the blocked camello's view: %d %s", r.Status, r.Raw)
	}
	if r := k.Get(blocks, w.clientCk); len(r.Get("blocks").([]any)) != 2 {
		t.Fatalf("the client's view: %s", r.Raw)
	}
	if r := k.Get(blocks, w.adminCk); len(r.Get("blocks").([]any)) != 2 {
		t.Fatalf("the admin's view: %s", r.Raw)
	}
	if r := k.Get("/api/admin/blocks", w.adminCk); r.Status != 200 || r.Get("total") != 2.0 || r.Str("blocks.0.blocker.name") == "" {
		t.Fatalf("admin list: %d %s", r.Status, r.Raw)
	}
	expect(t, k.Get("/api/admin/blocks", w.clientCk), 403, "")
	expect(t, k.Get("/api/admin/blocks?perPage=0", w.adminCk), 400, "")

	// Who may block whom.
	expect(t, k.Post(blocks, w.otherCk, map[string]any{"userId": w.camUsers[0].Id}), 403, "")
	expect(t, k.Post(blocks, w.outsiderCamCk, map[string]any{"userId": w.client.Id}), 403, "")
	expect(t, k.Post(blocks, w.adminCk, map[string]any{"userId": w.camUsers[0].Id}), 403, messages.MsgAdminBlocks)
	expect(t, k.Post(blocks, w.clientCk, map[string]any{"userId": w.client.Id}), 400, "")
	expect(t, k.Post(blocks, w.clientCk, map[string]any{}), 400, "")
	expect(t, k.Post(blocks, w.clientCk, map[string]any{"userId": "no es un id"}), 400, "")
	expect(t, k.Post(blocks, w.camCks[0], map[string]any{"userId": w.camUsers[1].Id}), 400, "") // a camello blocks only the client
	expect(t, k.Post("/api/jobs/zzzzzzzzzzzzzzz/blocks", w.clientCk, map[string]any{"userId": w.camUsers[0].Id}), 404, "")

	// Unblock: the blocked camello writes again; a second unblock is 404;
	// only the blocker lifts its block.
	expect(t, k.Delete(blocks+"/"+w.client.Id, w.camCks[1], nil), 404, messages.MsgBlockNotFound)
	expect(t, k.Delete(blocks+"/"+w.camUsers[1].Id, w.clientCk, nil), 204, "")
	expect(t, k.Post(w.path(), w.camCks[1], hola), 201, "")
	expect(t, k.Delete(blocks+"/"+w.camUsers[1].Id, w.clientCk, nil), 404, messages.MsgBlockNotFound)
}
