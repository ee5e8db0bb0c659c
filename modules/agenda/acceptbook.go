package agenda

import (
	"net/http"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/quotes"

	"github.com/pocketbase/pocketbase/core"
)

// AcceptAndBook is the client's "Aceptar y agendar": in one transaction the
// quote is accepted (quotes.Accept: the job gets the quote's camello,
// ASIGNADO and the price, the other live quotes are rejected) and the job
// books start, or with weeks > 0 a series of count starts (see BookSeries).
// All or nothing: a start that is not free (or a festivo of a single
// booking) refuses the whole step with the booking's 409 and the quote
// stays PENDIENTE; a quote no longer acceptable refuses it with the
// accept's 409 and nothing is booked.
func AcceptAndBook(app core.App, quoteID string, start time.Time, weeks, count int) ([]*appointments.Appointment, []SkippedHoliday, error) {
	var list []*appointments.Appointment
	var skipped []SkippedHoliday
	err := writer.Transaction(app, func(txApp core.App) error {
		if err := quotes.Accept(txApp, quoteID); err != nil {
			return err
		}
		q := quotes.Find(txApp, quoteID)
		if q == nil {
			return httpapi.NotFound(quotes.MsgQuoteNotFound)
		}
		var err error
		if weeks == 0 {
			list, skipped, err = bookStarts(txApp, q.JobID(), []time.Time{start}, false)
			return err
		}
		camello, err := txApp.FindRecordById(camellos.Collection, q.CamelloID())
		if err != nil {
			return httpapi.Conflict(jobs.MsgCamelloInactive)
		}
		loc := LoadSchedule(txApp, camello).Location
		list, skipped, err = bookStarts(txApp, q.JobID(), SeriesStarts(start, loc, weeks, count), true)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return list, skipped, nil
}

// quoteAcceptAndBook handles POST /api/quotes/{id}/accept-and-book
// {start, repeat?}: the job's client accepts a quote and books a free slot
// of its camello (or a weekly / fortnightly series) in the same step.
// 200 {job, quote, appointments, skippedHolidays}; 400 start / repeat;
// 403 not the job's client; 404; 409 the accept's or the booking's
// refusal, nothing changed.
func quoteAcceptAndBook(e *core.RequestEvent) error {
	q, job, err := quotes.ClientQuote(e)
	if err != nil {
		return err
	}
	var in bookInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	start := readStart(v, in.Start)
	weeks, count := 0, 1
	if in.Repeat != nil {
		if *in.Repeat == nil {
			v.Add("repeat", "Debe ser un objeto {every, count}")
		} else {
			weeks, count = readRepeat(v, *in.Repeat)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, skipped, err := AcceptAndBook(e.App, q.Id, start, weeks, count)
	if err != nil {
		return err
	}
	fresh, err := e.App.FindRecordById(jobs.Collection, job.ID)
	if err != nil {
		return httpapi.Internal(err)
	}
	jobOut, err := jobs.One(e.App, fresh, session.AuthUser(e))
	if err != nil {
		return httpapi.Internal(err)
	}
	quoteOut, err := quotes.OneJSON(e.App, q.Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	out := make([]map[string]any, len(list))
	for i, a := range list {
		out[i] = AppointmentJSON(a.Record)
	}
	return e.JSON(http.StatusOK, map[string]any{"job": jobOut, "quote": quoteOut, "appointments": out, "skippedHolidays": skipped})
}
