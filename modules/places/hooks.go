package places

import (
	"strings"

	"camellos/internal/cities"
	"camellos/internal/text"

	"github.com/pocketbase/pocketbase/core"
)

// bindHooks keeps every saved place in one form, whoever saves it (the
// admin routes, the dashboard): the name trimmed, the city in
// internal/cities' one spelling and the folded name the lookups use.
func bindHooks(app core.App) {
	normalize := func(e *core.RecordEvent) error {
		p := Wrap(e.Record)
		name := strings.Join(strings.Fields(p.Name()), " ")
		p.Set(FieldName, name)
		p.Set(FieldCity, cities.Canonical(p.City()))
		p.Set(FieldNameKey, text.Fold(name))
		return e.Next()
	}
	app.OnRecordCreate(Collection).BindFunc(normalize)
	app.OnRecordUpdate(Collection).BindFunc(normalize)
}
