package messages

import (
	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// bindHooks enforces the message rules wherever a message is saved: a
// message is never edited, its body is at most 2,000 characters and not
// empty without a photo, its author takes part in the thread and may write
// there (writeRefusal: an ACTIVO camello whose quote was not rejected, not
// blocked by the other party), and a closed conversation takes no new
// message.
func bindHooks(app core.App) {
	bindListCaches(app)
	app.OnRecordValidate(Collection).BindFunc(func(e *core.RecordEvent) error {
		rec := e.Record
		if !rec.IsNew() {
			return httpapi.FieldRuleError("body", "Un mensaje enviado no se puede modificar")
		}
		body := rec.GetString("body")
		if text.Chars(body) > MaxBodyLen {
			return httpapi.FieldRuleError("body", "Debe tener como máximo 2000 caracteres")
		}
		if body == "" && len(rec.GetStringSlice("files")) == 0 && len(rec.GetUnsavedFiles("files")) == 0 {
			return httpapi.FieldRuleError("body", "Es obligatorio")
		}
		// Post read the job, the thread's camello and the author in this
		// transaction and checked the author may write there (writeRefusal);
		// any other save reads and checks them here.
		in, posted := inHand.Of(rec)
		posted = posted && in.job.Id == rec.GetString("job") && in.cam.Id == rec.GetString("camello") &&
			in.author.Id == rec.GetString("author")
		job := in.job
		if !posted {
			var err error
			if job, err = e.App.FindRecordById(jobs.Collection, rec.GetString("job")); err != nil {
				return httpapi.FieldRuleError("job", "Trabajo no encontrado")
			}
		}
		if err := writeConflict(job, clock.Now(e.App)); err != nil {
			return httpapi.FieldRuleError("job", err.(*httpapi.Error).Message)
		}
		camello := rec.GetString("camello")
		if !participates(e.App, job, camello) {
			return httpapi.FieldRuleError("camello", MsgNotParticipant)
		}
		author := in.author
		if !posted {
			var err error
			if author, err = e.App.FindRecordById(users.Collection, rec.GetString("author")); err != nil {
				return httpapi.FieldRuleError("author", "Autor no encontrado")
			}
		}
		if author.Id != jobs.Wrap(job).ClientID() {
			cam := jobs.CamelloOfUser(e.App, author.Id)
			if cam == nil || cam.Id != camello {
				return httpapi.FieldRuleError("author", "El autor no participa en esta conversación")
			}
		}
		if posted {
			return e.Next()
		}
		if _, msg := writeRefusal(e.App, job, camello, author.Id); msg != "" {
			return httpapi.FieldRuleError("author", msg)
		}
		return e.Next()
	})
}
