package testkit

import (
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// CreateService saves a category and a service in it, and returns the
// service (name "Servicio N", category "Categoría N").
func (k *Kit) CreateService() *core.Record {
	k.T.Helper()
	n := Unique()
	cat := k.CreateRecord("categories", map[string]any{"id": "cat-" + n, "name": "Categoría " + n, "nameKey": "categoria " + n})
	return k.CreateRecord("services", map[string]any{"name": "Servicio " + n, "slug": "servicio-" + n, "category": cat.Id})
}

// JobOpts are the fields of CreateJob.
type JobOpts struct {
	Client   *core.Record // required: the CLIENTE user
	Service  *core.Record // default: a new service
	Provider *core.Record // camello record; with Status ASIGNADO or later
	Status   string       // default PENDIENTE; later states walk the state machine
	Source   string       // default EXPLORE
	Title    string
}

// CreateJob saves a job directly, walking it through the job state machine
// (PENDIENTE → ASIGNADO → EN_PROGRESO → COMPLETADO, or CANCELADO) with
// record saves, so the jobs record hook sees every step.
func (k *Kit) CreateJob(o JobOpts) *core.Record {
	k.T.Helper()
	if o.Service == nil {
		o.Service = k.CreateService()
	}
	if o.Source == "" {
		o.Source = "EXPLORE"
	}
	if o.Title == "" {
		o.Title = "Trabajo " + Unique()
	}
	fields := map[string]any{
		"title": o.Title, "description": "Descripción", "status": "PENDIENTE", "source": o.Source,
		"city": "Bogotá", "neighborhood": "Chapinero", "service": o.Service.Id, "client": o.Client.Id,
	}
	if o.Provider != nil && o.Source == "PERFIL" {
		fields["provider"] = o.Provider.Id
	}
	job := k.CreateRecord("jobs", fields)
	path := map[string][]string{
		"ASIGNADO":    {"ASIGNADO"},
		"EN_PROGRESO": {"ASIGNADO", "EN_PROGRESO"},
		"COMPLETADO":  {"ASIGNADO", "EN_PROGRESO", "COMPLETADO"},
		"CANCELADO":   {"CANCELADO"},
	}[o.Status]
	for _, st := range path {
		if st == "ASIGNADO" && o.Provider != nil {
			job.Set(jobs.FieldProvider, o.Provider.Id)
		}
		job.Set(jobs.FieldStatus, st)
		if err := k.App.Save(job); err != nil {
			k.T.Fatalf("job → %s: %v", st, err)
		}
	}
	return job
}
