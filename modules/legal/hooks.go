package legal

import (
	"camellos/internal/httpapi"
	"camellos/internal/records"

	"github.com/pocketbase/pocketbase/core"
)

// bindHooks keeps the history honest wherever records are saved: a
// published version and an acceptance are never changed, and a document's
// version never goes back.
func bindHooks(app core.App) {
	immutable := func(e *core.RecordEvent) error {
		return httpapi.FieldRuleError("version", "Un registro publicado o aceptado no se puede modificar")
	}
	app.OnRecordUpdate(Versions).BindFunc(immutable)
	app.OnRecordUpdate(Acceptances).BindFunc(immutable)
	app.OnRecordUpdate(Documents).BindFunc(func(e *core.RecordEvent) error {
		if e.Record.GetInt("version") < records.Stored(e.App, e.Record).GetInt("version") {
			return httpapi.FieldRuleError("version", "La versión de un documento no puede disminuir")
		}
		return e.Next()
	})
}
