package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Issue 24: the photos of a camello's identity document and professional
// card, for the admin who approves it (camellos.documents, owned by
// modules/camellos). The field is Protected: PocketBase's own file route
// serves it to superusers only; modules/files serves it to the camello and
// admins (internal/privacy, CamelloDocuments) and checks every upload by
// the row of internal/imagecheck. Down removes the field (and its files).
func init() {
	m.Register(func(app core.App) error {
		col, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		col.Fields.Add(&core.FileField{
			Name: "documents", MaxSelect: 2, MaxSize: 5 << 20, Protected: true,
			MimeTypes: []string{"image/jpeg", "image/png", "image/webp"},
		})
		return app.Save(col)
	}, func(app core.App) error {
		col, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		col.Fields.RemoveByName("documents")
		return app.Save(col)
	})
}
