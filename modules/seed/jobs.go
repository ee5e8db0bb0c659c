package seed

import (
	"database/sql"
	"fmt"
	"time"

	"camellos/modules/appointments"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

var errNoRows = sql.ErrNoRows

// jobsPerClient jobs are made for each client; their states cycle through
// jobPlan so every state (and both sources) appears, the first client's
// six covering them all.
const jobsPerClient = 6

type jobPlan struct {
	status   string
	source   string
	provider bool
}

var jobPlans = []jobPlan{
	{"PENDIENTE", "EXPLORE", false},
	{"PENDIENTE", "PERFIL", true},
	{"ASIGNADO", "ADMIN", true},
	{"EN_PROGRESO", "PERFIL", true},
	{"COMPLETADO", "PERFIL", true},
	{"CANCELADO", "EXPLORE", true},
	{"COMPLETADO", "ADMIN", true},
	{"COMPLETADO", "EXPLORE", true},
}

// path is the sequence of states a job walks from PENDIENTE to its plan's.
func path(status string) []string {
	switch status {
	case "ASIGNADO":
		return []string{"ASIGNADO"}
	case "EN_PROGRESO":
		return []string{"ASIGNADO", "EN_PROGRESO"}
	case "COMPLETADO":
		return []string{"ASIGNADO", "EN_PROGRESO", "COMPLETADO"}
	case "CANCELADO":
		return []string{"ASIGNADO", "CANCELADO"}
	}
	return nil
}

func (s *seeder) jobs(clients, active []*core.Record) error {
	if len(active) == 0 {
		return nil
	}
	jobCol, err := s.app.FindCachedCollectionByNameOrId("jobs")
	if err != nil {
		return err
	}
	// Camellos by the category of their first trade, and the demo camello's
	// categories: its jobs ask for work it does.
	byCat := map[string][]*core.Record{}
	for _, c := range active {
		byCat[s.categoryOf(c)] = append(byCat[s.categoryOf(c)], c)
	}
	demo := active[0]
	demoCats := map[string]bool{}
	for _, id := range demo.GetStringSlice(camellos.FieldServices) {
		demoCats[s.svcCat[id]] = true
	}
	demoTitles := []int{}
	for t, jt := range jobTitles {
		if demoCats[jt.Category] {
			demoTitles = append(demoTitles, t)
		}
	}
	total := len(clients) * jobsPerClient
	done := 0
	for ci, client := range clients {
		for j := 0; j < jobsPerClient; j++ {
			k := ci*jobsPerClient + j
			plan := jobPlans[k%len(jobPlans)]
			t := (ci + j*5) % len(jobTitles)
			if ci == 0 && len(demoTitles) > 0 { // the demo client's jobs are all with the demo camello
				t = demoTitles[j%len(demoTitles)]
			}
			title, cat := jobTitles[t].Title, jobTitles[t].Category
			provider := active[(k*7+3)%len(active)]
			if list := byCat[cat]; len(list) > 0 {
				provider = list[(k*7+3)%len(list)]
			}
			if demoCats[cat] && (ci == 0 || k%10 == 2 || k%10 == 3 || k%10 == 4) {
				provider = demo // the demo camello has work to show
			}
			err := s.app.RunInTransaction(func(tx core.App) error {
				existing, err := tx.FindFirstRecordByFilter(jobCol, "client = {:c} && title = {:t}", dbx.Params{"c": client.Id, "t": title})
				if err == nil && existing != nil {
					return nil
				}
				if !isNotFound(err) {
					return err
				}
				svc := s.serviceOf(provider, cat, k)
				job := core.NewRecord(jobCol)
				job.Set(jobs.FieldTitle, title)
				job.Set("description", "Trabajo de demostración: "+title+". Se puede coordinar la hora por la agenda.")
				job.Set(jobs.FieldStatus, "PENDIENTE")
				job.Set(jobs.FieldSource, plan.source)
				job.Set(jobs.FieldCity, client.GetString(users.FieldCity))
				job.Set("neighborhood", provider.GetString(camellos.FieldNeighborhood))
				job.Set(jobs.FieldService, svc)
				job.Set(jobs.FieldClient, client.Id)
				if plan.provider && plan.source == "PERFIL" && plan.status == "PENDIENTE" {
					job.Set(jobs.FieldProvider, provider.Id)
				}
				if err := tx.Save(job); err != nil {
					return err
				}
				for step, st := range path(plan.status) {
					if step == 0 {
						job.Set(jobs.FieldProvider, provider.Id)
					}
					job.Set(jobs.FieldStatus, st)
					if err := tx.Save(job); err != nil {
						return fmt.Errorf("%s: %w", st, err)
					}
				}
				s.res.Jobs++
				switch plan.status {
				case "COMPLETADO":
					if ci != 0 { // the demo client keeps one job to review by hand
						return s.review(tx, job, provider, client, k)
					}
				case "ASIGNADO", "EN_PROGRESO":
					return s.appointment(tx, job, provider, client, k)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("%s (%s): %w", title, client.Email(), err)
			}
			done++
			s.progress(done, total, "trabajos")
		}
	}
	return nil
}

// serviceOf picks one of the provider's services of the category for job
// k, or the category's first service.
func (s *seeder) serviceOf(provider *core.Record, cat string, k int) string {
	ids := []string{}
	for _, id := range provider.GetStringSlice(camellos.FieldServices) {
		if s.svcCat[id] == cat {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		return ids[k%len(ids)]
	}
	return s.cats[cat][0].Id
}

// categoryOf is the category of a camello's first service.
func (s *seeder) categoryOf(c *core.Record) string {
	if ids := c.GetStringSlice(camellos.FieldServices); len(ids) > 0 {
		return s.svcCat[ids[0]]
	}
	return ""
}

func (s *seeder) review(tx core.App, job, camello, client *core.Record, k int) error {
	col, err := tx.FindCachedCollectionByNameOrId(camellos.ReviewsCollection)
	if err != nil {
		return err
	}
	rating := 5
	switch {
	case k%7 == 0:
		rating = 3
	case k%3 == 0:
		rating = 4
	}
	rv := core.NewRecord(col)
	rv.Set(camellos.FieldReviewJob, job.Id)
	rv.Set(camellos.FieldReviewCamello, camello.Id)
	rv.Set(camellos.FieldReviewClient, client.Id)
	rv.Set(camellos.FieldReviewRating, rating)
	rv.Set(camellos.FieldReviewComment, reviewComments[k%len(reviewComments)])
	if err := tx.Save(rv); err != nil {
		return err
	}
	s.res.Reviews++
	return nil
}

// appointment books a PROGRAMADA appointment inside the camello's weekly
// availability on one of the next weekdays, on a free hour.
func (s *seeder) appointment(tx core.App, job, camello, client *core.Record, k int) error {
	loc, err := time.LoadLocation(demoTimezone)
	if err != nil {
		return err
	}
	local := s.now.In(loc)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	weekdays := 0
	want := 1 + k%5
	for weekdays < want {
		day = day.AddDate(0, 0, 1)
		if wd := day.Weekday(); wd != time.Saturday && wd != time.Sunday {
			weekdays++
		}
	}
	// 09:00–14:00 fits every demo availability (07–15 and 08–17).
	for h := 0; h < 5; h++ {
		start := day.Add(time.Duration(9+(k/5+h)%5) * time.Hour).UTC()
		taken, err := tx.CountRecords(appointments.Collection, dbx.HashExp{"camello": camello.Id, "start": start.Format("2006-01-02 15:04:05.000Z"), "status": appointments.Scheduled})
		if err != nil {
			return err
		}
		if taken > 0 {
			continue
		}
		if _, err := appointments.Create(tx, appointments.New{
			Job: job.Id, Camello: camello.Id, Client: client.Id, Start: start}); err != nil {
			return err
		}
		s.res.Appointments++
		return nil
	}
	return nil
}

// ratings recomputes the rating of every reviewed camello from its reviews
// (idempotent), through the owners: jobs reads the reviews, camellos
// stores the rating.
func (s *seeder) ratings() error {
	return camellos.RecomputeRatings(s.app)
}

// inbox gives the demo client and the demo camello a few notifications to
// see (only when their inbox is empty).
func (s *seeder) inbox(client *core.Record) error {
	camUser, err := users.FindByEmail(s.app, CamelloEmail)
	if err != nil {
		return err
	}
	for _, u := range []*core.Record{client, camUser} {
		n, err := s.app.CountRecords("notifications", dbx.HashExp{"user": u.Id})
		if err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		msgs := []notifications.Message{
			{Kind: notifications.KindAdminMessage, Title: "¡Bienvenido a Camellos!", Body: "Esta es una cuenta de demostración. Explora los trabajos, la agenda y las notificaciones.", URL: "/"},
			{Kind: notifications.KindJobAssigned, Title: "Trabajo asignado", Body: "Un trabajo de demostración ya tiene camello asignado.", URL: "/trabajos.html"},
			{Kind: notifications.KindAppointmentReminder, Title: "Recordatorio de cita", Body: "Tienes una cita en las próximas 24 horas.", URL: "/agenda.html"},
		}
		for _, m := range msgs {
			if err := notifications.Notify(s.app, u.Id, m); err != nil {
				return err
			}
		}
	}
	return nil
}
