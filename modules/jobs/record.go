package jobs

import "github.com/pocketbase/pocketbase/core"

// Job is a typed jobs record.
type Job struct {
	core.BaseRecordProxy
}

// Wrap returns rec as a Job.
func Wrap(rec *core.Record) *Job {
	j := &Job{}
	j.SetProxyRecord(rec)
	return j
}

// Find loads a job by id with app.
func Find(app core.App, id string) (*Job, error) {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, err
	}
	return Wrap(rec), nil
}

// Title is the job's title.
func (j *Job) Title() string { return j.GetString("title") }

// Status is one of Statuses.
func (j *Job) Status() string { return j.GetString("status") }

// Source is EXPLORE, PERFIL or ADMIN.
func (j *Job) Source() string { return j.GetString("source") }

// ClientID is the CLIENTE user who posted the job.
func (j *Job) ClientID() string { return j.GetString("client") }

// ProviderID is the camello (camellos record) of the job, "" before one is set.
func (j *Job) ProviderID() string { return j.GetString("provider") }

// ServiceID is the job's service.
func (j *Job) ServiceID() string { return j.GetString("service") }
