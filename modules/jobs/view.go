package jobs

import (
	"net/http"

	"camellos/internal/httpapi"
	"camellos/internal/session"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// findJob loads the path's job: 400 for an id that cannot be one, 404
// "Trabajo no encontrado" for an unknown one.
func findJob(app core.App, e *core.RequestEvent) (*core.Record, error) {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return nil, err
	}
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, httpapi.NotFound(MsgJobNotFound)
	}
	return rec, nil
}

// VisibleJob loads the path's job for the signed-in user; a job the user
// may not see answers 404 as an unknown one, so ids leak nothing.
func VisibleJob(e *core.RequestEvent) (*core.Record, Party, error) {
	job, err := findJob(e.App, e)
	if err != nil {
		return nil, Party{}, err
	}
	p := PartyOf(e.App, session.AuthUser(e), job)
	if !p.Any() {
		return nil, p, httpapi.NotFound(MsgJobNotFound)
	}
	return job, p, nil
}

// jobView handles GET /api/jobs/{id}.
func jobView(e *core.RequestEvent) error {
	job, _, err := VisibleJob(e)
	if err != nil {
		return err
	}
	return answerJob(e, http.StatusOK, job.Id)
}

// jobsMine handles GET /api/jobs: the caller's jobs as client or as
// provider (direct requests awaiting the camello included), newest first.
func jobsMine(e *core.RequestEvent) error {
	v := httpapi.NewValidation()
	p := httpapi.ReadPage(e, v)
	status := ReadStatus(e, v)
	if err := v.Err(); err != nil {
		return err
	}
	user := session.AuthUser(e)
	mine := dbx.Or(dbx.HashExp{"client": user.Id})
	if c := CamelloOfUser(e.App, user.Id); c != nil {
		mine = dbx.Or(dbx.HashExp{"client": user.Id}, dbx.HashExp{"provider": c.Id})
	}
	where := dbx.And(mine)
	if status != "" {
		where = dbx.And(mine, dbx.HashExp{"status": status})
	}
	return listJobs(e, where, p)
}

// jobsAdminList handles GET /api/admin/jobs?status=: every job, newest first.
func jobsAdminList(e *core.RequestEvent) error {
	v := httpapi.NewValidation()
	p := httpapi.ReadPage(e, v)
	status := ReadStatus(e, v)
	if err := v.Err(); err != nil {
		return err
	}
	var where dbx.Expression = dbx.NewExp("1=1")
	if status != "" {
		where = dbx.HashExp{"status": status}
	}
	return listJobs(e, where, p)
}
