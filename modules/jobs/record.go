package jobs

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the jobs collection.
const (
	FieldTitle       = "title"
	FieldStatus      = "status"
	FieldSource      = "source"
	FieldClient      = "client"
	FieldProvider    = "provider"
	FieldService     = "service"
	FieldCity        = "city"
	FieldPriceAmount = "priceAmount"
	FieldUpdated     = "updated"
)

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
func (j *Job) Title() string { return j.GetString(FieldTitle) }

// Status is one of Statuses.
func (j *Job) Status() string { return j.GetString(FieldStatus) }

// Source is EXPLORE, PERFIL or ADMIN.
func (j *Job) Source() string { return j.GetString(FieldSource) }

// ClientID is the CLIENTE user who posted the job.
func (j *Job) ClientID() string { return j.GetString(FieldClient) }

// ProviderID is the camello (camellos record) of the job, "" before one is set.
func (j *Job) ProviderID() string { return j.GetString(FieldProvider) }

// ServiceID is the job's service.
func (j *Job) ServiceID() string { return j.GetString(FieldService) }

// City is the job's city.
func (j *Job) City() string { return j.GetString(FieldCity) }

// PriceAmount is the agreed price in COP (0 before one is agreed).
func (j *Job) PriceAmount() int { return j.GetInt(FieldPriceAmount) }

// Updated is the job's last change.
func (j *Job) Updated() types.DateTime { return j.GetDateTime(FieldUpdated) }
