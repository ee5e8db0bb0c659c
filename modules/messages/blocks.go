package messages

import (
	"camellos/modules/jobs"
	"database/sql"
	"errors"
	"net/http"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/quotes"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Blocks is the conversation_blocks collection: one row per job, blocker
// and blocked user. The blocked side cannot write in the blocker's thread
// of that job until the blocker lifts the block.
const Blocks = "conversation_blocks"

// Spanish messages of the conversation's writers rule and of blocks.
const (
	MsgBlocked         = "La otra parte te bloqueó en este trabajo: la conversación está cerrada"
	MsgQuoteRejected   = "Tu cotización fue rechazada: ya no puedes escribir en este trabajo"
	MsgCamelloInactive = "Tu perfil de camello no está activo: no puedes escribir mensajes"
	MsgBlockTarget     = "Solo puedes bloquear a la otra parte de una conversación de este trabajo"
	MsgBlockSelf       = "No puedes bloquearte a ti mismo"
	MsgAdminBlocks     = "Los administradores ven los bloqueos, no bloquean"
	MsgBlockNotFound   = "Bloqueo no encontrado"
	msgUserIDRequired  = "Es obligatorio"
	msgUserIDMalformed = "Identificador inválido"
)

// writeRefusal is the writers rule of a job's conversation: why authorID
// may not write in the thread of camelloID of job now ("" when it may),
// and the status of the refusal. A camello writes only while its profile
// is ACTIVO and, before the job is its own, while its quote on the job was
// not rejected; nobody writes in a thread whose other party blocked them.
// Reading is not affected. It runs in Post and in the record hook, so the
// dashboard and the generic API obey it too.
func writeRefusal(app core.App, job *core.Record, camelloID, authorID string) (int, string) {
	cam, err := app.FindRecordById(camellos.Collection, camelloID)
	if err != nil {
		cam = nil
	}
	return writeRefusalOf(app, job, cam, authorID)
}

// writeRefusalOf is writeRefusal with the thread's camello as read in the
// caller's transaction (nil when there is none).
func writeRefusalOf(app core.App, job, cam *core.Record, authorID string) (int, string) {
	other := jobs.Wrap(job).ClientID()
	if authorID != other {
		if cam == nil || camellos.Wrap(cam).Status() != camellos.StatusActive {
			return http.StatusForbidden, MsgCamelloInactive
		}
		if jobs.Wrap(job).ProviderID() != cam.Id && !quotes.HasLiveQuote(app, job.Id, cam.Id) {
			return http.StatusConflict, MsgQuoteRejected
		}
	} else {
		if cam == nil {
			return http.StatusBadRequest, MsgNotParticipant
		}
		other = camellos.Wrap(cam).UserID()
	}
	if isBlocked(app, job.Id, other, authorID) {
		return http.StatusConflict, MsgBlocked
	}
	return 0, ""
}

// isBlocked reports whether blocker blocked blocked on job.
func isBlocked(app core.App, jobID, blocker, blocked string) bool {
	n, err := app.CountRecords(Blocks, dbx.HashExp{"job": jobID, "blocker": blocker, "blocked": blocked})
	return err == nil && n > 0
}

// blockTarget checks that the caller (access a) may block userID on the
// job: the client blocks the user of a camello of the job's conversation,
// a camello the job's client.
func blockTarget(app core.App, a Access, caller *core.Record, userID string) error {
	switch {
	case userID == "":
		return httpapi.FieldError("userId", msgUserIDRequired)
	case !httpapi.ValidID(userID):
		return httpapi.FieldError("userId", msgUserIDMalformed)
	case userID == caller.Id:
		return httpapi.FieldError("userId", MsgBlockSelf)
	case a.Admin && !a.Client:
		return httpapi.Forbidden(MsgAdminBlocks)
	case a.Client:
		cam, err := app.FindFirstRecordByData(camellos.Collection, "user", userID)
		if err != nil || !participates(app, a.Job, cam.Id) {
			return httpapi.FieldError("userId", MsgBlockTarget)
		}
	case userID != jobs.Wrap(a.Job).ClientID():
		return httpapi.FieldError("userId", MsgBlockTarget)
	}
	return nil
}

// blockJSON renders blocks as the API's Block objects ({id, jobId,
// blocker, blocked, createdAt}; blocker and blocked as {id, name, role}).
func blockJSON(app core.App, recs []*core.Record) ([]map[string]any, error) {
	ids := []any{}
	for _, r := range recs {
		ids = append(ids, r.GetString("blocker"), r.GetString("blocked"))
	}
	people := map[string]author{}
	if len(ids) > 0 {
		var rows []author
		if err := app.DB().Select("id", "name", "role").From(users.Collection).Where(dbx.In("id", ids...)).All(&rows); err != nil {
			return nil, err
		}
		for _, p := range rows {
			people[p.ID] = p
		}
	}
	person := func(id string) author {
		if p, ok := people[id]; ok {
			return p
		}
		return author{ID: id}
	}
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		out = append(out, map[string]any{
			"id":        r.Id,
			"jobId":     r.GetString("job"),
			"blocker":   person(r.GetString("blocker")),
			"blocked":   person(r.GetString("blocked")),
			"createdAt": timefmt.ISO(r.GetDateTime("created").Time()),
		})
	}
	return out, nil
}

// blockCreate handles POST /api/jobs/{id}/blocks {userId}: the caller
// blocks the other party of a conversation of the job → 201 {block}, 200
// when it was already blocked.
func blockCreate(e *core.RequestEvent) error {
	a, err := jobAccess(e)
	if err != nil {
		return err
	}
	var in struct {
		UserID *string `json:"userId"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	target := ""
	if in.UserID != nil {
		target = strings.TrimSpace(*in.UserID)
	}
	caller := session.AuthUser(e)
	if err := blockTarget(e.App, a, caller, target); err != nil {
		return err
	}
	rec, created, err := Block(e.App, a.Job.Id, caller.Id, target)
	if err != nil {
		return err
	}
	list, err := blockJSON(e.App, []*core.Record{rec})
	if err != nil {
		return httpapi.Internal(err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return e.JSON(status, map[string]any{"block": list[0]})
}

// Block records that blocker blocked blocked on job (once: a second call,
// or a racing one, returns the existing row with created false).
func Block(app core.App, jobID, blocker, blocked string) (*core.Record, bool, error) {
	find := func() (*core.Record, error) {
		return app.FindFirstRecordByFilter(Blocks, "job = {:j} && blocker = {:a} && blocked = {:b}",
			dbx.Params{"j": jobID, "a": blocker, "b": blocked})
	}
	if rec, err := find(); err == nil {
		return rec, false, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, false, err
	}
	col, err := app.FindCachedCollectionByNameOrId(Blocks)
	if err != nil {
		return nil, false, err
	}
	rec := core.NewRecord(col)
	rec.Set("job", jobID)
	rec.Set("blocker", blocker)
	rec.Set("blocked", blocked)
	if err := app.Save(rec); err != nil {
		if existing, ferr := find(); ferr == nil { // a racing block won (unique index)
			return existing, false, nil
		}
		return nil, false, err
	}
	return rec, true, nil
}

// blockDelete handles DELETE /api/jobs/{id}/blocks/{userId}: the caller
// lifts its block of userId on the job → 204; 404 when there is none.
func blockDelete(e *core.RequestEvent) error {
	a, err := jobAccess(e)
	if err != nil {
		return err
	}
	target, err := httpapi.PathID(e, "userId")
	if err != nil {
		return err
	}
	res, err := e.App.DB().Delete(Blocks, dbx.HashExp{"job": a.Job.Id, "blocker": session.AuthUser(e).Id, "blocked": target}).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return httpapi.NotFound(MsgBlockNotFound)
	}
	return e.NoContent(http.StatusNoContent)
}

// blocksList handles GET /api/jobs/{id}/blocks → {blocks}: the blocks of
// the job that involve the caller (made or received), every one for an
// admin; oldest first.
func blocksList(e *core.RequestEvent) error {
	a, err := jobAccess(e)
	if err != nil {
		return err
	}
	where := dbx.Expression(dbx.HashExp{"job": a.Job.Id})
	if !a.Admin {
		me := session.AuthUser(e).Id
		where = dbx.And(where, dbx.Or(dbx.HashExp{"blocker": me}, dbx.HashExp{"blocked": me}))
	}
	var recs []*core.Record
	if err := e.App.RecordQuery(Blocks).Where(where).OrderBy("created ASC", "id ASC").All(&recs); err != nil {
		return httpapi.Internal(err)
	}
	list, err := blockJSON(e.App, recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"blocks": list})
}

// adminBlocksList handles GET /api/admin/blocks?page&perPage → {blocks,
// page, perPage, total}: every block of the service, newest first.
func adminBlocksList(e *core.RequestEvent) error {
	p, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	total, err := e.App.CountRecords(Blocks)
	if err != nil {
		return httpapi.Internal(err)
	}
	var recs []*core.Record
	if err := e.App.RecordQuery(Blocks).OrderBy("created DESC", "id DESC").
		Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs); err != nil {
		return httpapi.Internal(err)
	}
	list, err := blockJSON(e.App, recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, p.Answer("blocks", list, total))
}
