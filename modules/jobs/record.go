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

// Review is a typed reviews record.
type Review struct {
	core.BaseRecordProxy
}

// WrapReview returns rec as a Review.
func WrapReview(rec *core.Record) *Review {
	r := &Review{}
	r.SetProxyRecord(rec)
	return r
}

// JobID is the reviewed job.
func (r *Review) JobID() string { return r.GetString("job") }

// CamelloID is the reviewed camello.
func (r *Review) CamelloID() string { return r.GetString("camello") }

// Rating is 1 to 5.
func (r *Review) Rating() int { return r.GetInt("rating") }

// Comment is the client's comment ("" when none).
func (r *Review) Comment() string { return r.GetString("comment") }
