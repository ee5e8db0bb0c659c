package quotes

import (
	"slices"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/records"
	"camellos/internal/text"
	"camellos/modules/camellos"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// bindHooks enforces the quote rules wherever a quote is saved (our routes,
// the dashboard, the generic API) and rejects a job's live quotes when the
// job gets its provider by any path.
func bindHooks(app core.App) {
	bindListCache(app)
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		if err := validateQuote(e.App, e.Record); err != nil {
			return err
		}
		return e.Next()
	})

	// An admin assignment, a camello accepting a direct request or an
	// accepted quote: the job's other live quotes are rejected in the same
	// transaction.
	jobs.OnProviderSet(app).BindFunc(func(e *jobs.ProviderSetEvent) error {
		if err := closeLiveQuotes(e.App, e.JobID, "El trabajo se asignó a otro camello: "); err != nil {
			return err
		}
		return e.Next()
	})

	// A cancelled job (by any path that saves it) keeps no live quote: in the
	// same transaction they are rejected and their camellos told.
	jobs.OnJobCancelled(app).BindFunc(func(e *jobs.JobCancelled) error {
		if err := closeLiveQuotes(e.App, e.JobID, "El cliente canceló el trabajo: "); err != nil {
			return err
		}
		return e.Next()
	})
}

// validateQuote checks a quote about to be saved against its job, its
// camello and its stored original.
func validateQuote(app core.App, rec *core.Record) error {
	if rec.GetString("currency") == "" {
		rec.Set("currency", jobs.Currency)
	}
	if rec.GetString("currency") != jobs.Currency {
		return httpapi.FieldRuleError("currency", "La moneda debe ser COP")
	}
	if a := rec.GetFloat("amount"); a != float64(int64(a)) || a < MinAmount || a > MaxAmount {
		return httpapi.FieldRuleError("amount", "Debe ser un entero entre 10000 y 100000000")
	}
	if text.Chars(rec.GetString("message")) > MaxMessageLen {
		return httpapi.FieldRuleError("message", "Debe tener como máximo 1000 caracteres")
	}
	status := rec.GetString("status")
	if rec.IsNew() {
		if status != StatusPending {
			return httpapi.FieldRuleError("status", "Una cotización nueva empieza en PENDIENTE")
		}
		// Create read and checked both in this transaction; any other
		// save reads them.
		job, cam := (*core.Record)(nil), (*core.Record)(nil)
		q := Quote{rec}
		if in, ok := inHand.Of(rec); ok && in.job.Id == q.JobID() && in.cam.Id == q.CamelloID() {
			job, cam = in.job, in.cam
		} else {
			var err error
			if job, err = app.FindRecordById(jobs.Collection, q.JobID()); err != nil {
				return httpapi.FieldRuleError("job", "Trabajo no encontrado")
			}
			if cam, err = app.FindRecordById(camellos.Collection, q.CamelloID()); err != nil {
				return httpapi.FieldRuleError("camello", "Camello no encontrado")
			}
		}
		if msg := quoteRefusal(job, cam); msg != "" {
			return httpapi.FieldRuleError("job", msg)
		}
		if !rec.GetDateTime("expiresAt").Time().After(clock.Now(app)) {
			return httpapi.FieldRuleError("expiresAt", "Debe ser una fecha futura")
		}
		return nil
	}
	orig := records.Stored(app, rec)
	for _, f := range []string{"job", "camello", "amount", "currency", "message", "expiresAt"} {
		if rec.GetString(f) != orig.GetString(f) {
			return httpapi.FieldRuleError(f, "Una cotización enviada no se puede modificar")
		}
	}
	from := orig.GetString("status")
	if from == status {
		return nil
	}
	if from != StatusPending {
		return httpapi.FieldRuleError("status", "Transición no permitida: "+from+" → "+status)
	}
	if status == StatusAccepted {
		// Accepting assigns the job: only the accept flow does both at once.
		job, err := app.FindRecordById(jobs.Collection, rec.GetString("job"))
		if err != nil || jobs.Wrap(job).ProviderID() != rec.GetString("camello") || jobs.Wrap(job).Status() == jobs.StatusPending {
			return httpapi.FieldRuleError("status", "Una cotización se acepta con POST /api/quotes/{id}/accept")
		}
	}
	return nil
}

// quoteRefusal says why a camello may not quote on a job ("" when it may):
// the camello must be ACTIVO, and the job PENDIENTE and either open with a
// service the camello offers, or a direct request naming this camello.
func quoteRefusal(job, cam *core.Record) string {
	return refusal(jobs.PartiesOfRecord(job), camellos.UserCamello{ID: cam.Id, Status: camellos.Wrap(cam).Status(),
		Services: camellos.Wrap(cam).ServiceIDs()})
}

// refusal is quoteRefusal on a job's parties and the camello's profile.
func refusal(job jobs.Parties, cam camellos.UserCamello) string {
	switch {
	case cam.Status != camellos.StatusActive:
		return MsgCamelloInactive
	case job.Status != jobs.StatusPending:
		return MsgJobNotPending
	}
	if p := job.Provider; p != "" {
		if p != cam.ID {
			return MsgCannotQuote
		}
		return ""
	}
	if !slices.Contains(cam.Services, job.Service) {
		return MsgCannotQuote
	}
	return ""
}
