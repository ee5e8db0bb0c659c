// Package messages is the job conversation: a thread per job between its
// client and each camello involved (the assigned one, or each quoting
// camello while the job is open), with private photos served only to the
// thread's readers. It owns the messages collection and every write to it.
package messages

import (
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/quotes"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collection is the messages collection.
const Collection = "messages"

// Bounds of a message.
const (
	MaxBodyLen = 2000
	MaxFiles   = 3
	// ClosedAfter is how long after completion a job's conversation stays open.
	ClosedAfter = 30 * 24 * time.Hour
)

// Spanish messages of the conversation.
const (
	MsgCancelledJob     = "El trabajo está cancelado: la conversación está cerrada"
	MsgClosedJob        = "El trabajo terminó hace más de 30 días: la conversación está cerrada"
	MsgAdminReadOnly    = "Los administradores solo pueden leer la conversación"
	MsgNotParticipant   = "El camello no participa en este trabajo"
	MsgFileNotFound     = "Archivo no encontrado"
	MsgTooManyFiles     = "Máximo 3 fotos por mensaje"
	MsgBadImage         = "Cada foto debe ser una imagen JPEG, PNG o WebP"
	MsgImageTooLarge    = "Cada foto puede pesar como máximo 5 MB"
	MsgInvalidMultipart = "Formulario multipart inválido"
)

// FilesPath is where attachments are served: /api/messages/files/{message}/{file}.
const FilesPath = "/api/messages/files/"

// Access is what the signed-in user may do in a job's conversation.
type Access struct {
	Job    *core.Record
	Admin  bool   // reads every thread, writes none
	Client bool   // the job's client: every thread, answers a camello
	Thread string // a camello's own thread (its camello id), "" for client/admin
}

// Reads reports whether the access may read the thread of camelloID.
func (a Access) Reads(camelloID string) bool {
	return a.Admin || a.Client || (a.Thread != "" && a.Thread == camelloID)
}

// AccessOf tells how user takes part in job's conversation; ok is false
// for anyone else. A camello takes part as the job's provider, or while
// the job is PENDIENTE when it sent a quote on it; it sees only its thread.
func AccessOf(app core.App, user, job *core.Record) (Access, bool) {
	a, ok := accessTo(app, user, jobs.PartiesOfRecord(job))
	a.Job = job
	return a, ok
}

// accessTo is AccessOf on the job's parties (Job is left nil).
func accessTo(app core.App, user *core.Record, job jobs.Parties) (Access, bool) {
	a := Access{}
	switch {
	case users.Wrap(user).Role() == users.RoleAdmin:
		a.Admin = true
		return a, true
	case job.Client == user.Id:
		a.Client = true
		return a, true
	case users.Wrap(user).Role() != users.RoleCamello:
		return a, false
	}
	cam, ok, err := camellos.CachedOfUser(app, user.Id)
	if err != nil || !ok || !participatesIn(app, job, cam.ID) {
		return a, false
	}
	a.Thread = cam.ID
	return a, true
}

// participates reports whether a camello has a thread on the job: its
// provider, or a quoting camello while the job is open.
func participates(app core.App, job *core.Record, camelloID string) bool {
	return participatesIn(app, jobs.PartiesOfRecord(job), camelloID)
}

// participatesIn is participates on the job's parties.
func participatesIn(app core.App, job jobs.Parties, camelloID string) bool {
	if job.Provider == camelloID {
		return true
	}
	return job.Status == jobs.StatusPending && quotes.HasQuote(app, job.ID, camelloID)
}

// writeConflict is the 409 of a job whose conversation is closed, or nil.
func writeConflict(job *core.Record, now time.Time) error {
	switch jobs.Wrap(job).Status() {
	case jobs.StatusCancelled:
		return httpapi.Conflict(MsgCancelledJob)
	case jobs.StatusCompleted:
		if now.Sub(jobs.Wrap(job).Updated().Time()) > ClosedAfter {
			return httpapi.Conflict(MsgClosedJob)
		}
	}
	return nil
}

// author is a message's author as the API shows it.
type author struct {
	ID   string `db:"id" json:"id"`
	Name string `db:"name" json:"name"`
	Role string `db:"role" json:"role"`
}

// authorOf is a user record as a message's author.
func authorOf(u *core.Record) author {
	return author{ID: u.Id, Name: users.Wrap(u).Name(), Role: users.Wrap(u).Role()}
}

// JSON renders messages as the API's Message objects, loading their
// authors in one query.
func JSON(app core.App, recs []*core.Record) ([]map[string]any, error) {
	ids := []any{}
	seen := map[string]bool{}
	for _, r := range recs {
		if a := r.GetString("author"); !seen[a] {
			seen[a] = true
			ids = append(ids, a)
		}
	}
	authors := map[string]author{}
	if len(ids) > 0 {
		var rows []author
		if err := app.DB().Select("id", "name", "role").From(users.Collection).Where(dbx.In("id", ids...)).All(&rows); err != nil {
			return nil, err
		}
		for _, a := range rows {
			authors[a.ID] = a
		}
	}
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		a, ok := authors[r.GetString("author")]
		if !ok {
			a = author{ID: r.GetString("author")}
		}
		out = append(out, messageFields(r, a))
	}
	return out, nil
}

// messageFields is a message as the API shows it, with its author
// (readmodel.Hole in the kept conversations).
func messageFields(r *core.Record, author any) map[string]any {
	files := r.GetStringSlice("files")
	urls := make([]string, 0, len(files))
	for _, f := range files {
		urls = append(urls, FilesPath+r.Id+"/"+f)
	}
	return map[string]any{
		"id":          r.Id,
		"jobId":       r.GetString("job"),
		"camelloId":   r.GetString("camello"),
		"author":      author,
		"body":        r.GetString("body"),
		"attachments": urls,
		"createdAt":   timefmt.ISO(r.GetDateTime("created").Time()),
	}
}
