// Package files owns every file the service stores and serves, whatever
// the collection: the upload policy of internal/imagecheck bound to every
// record save, the guard of PocketBase's own file route
// (/api/files/{collection}/{record}/{file}, thumbnails included), and the
// quarantine of stored files that break the policy (the file_quarantine
// collection, which it owns).
//
// The serving rules are a table (rules): a file field's row says who reads
// its files, from the field's owner (camellos.PhotoVisible,
// messages.CanReadFile). A field without a row is served to superusers
// only. SECURITY.md lists the table.
package files

import (
	"camellos/internal/imagecheck"
	"camellos/internal/session"
	"camellos/modules/camellos"
	"camellos/modules/messages"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// QuarantineCollection records every stored file moved aside because it
// breaks the upload policy.
const QuarantineCollection = "file_quarantine"

// MsgFileNotFound answers a file the caller may not read, that does not
// exist or that breaks the upload policy (one answer for all three).
const MsgFileNotFound = "Archivo no encontrado"

// MsgThumbsBusy answers a thumbnail that could not start in time.
const MsgThumbsBusy = "Demasiadas miniaturas en curso, inténtalo de nuevo en unos segundos"

// rule tells whether the caller of e may read the files of rec's field;
// public says a shared cache may keep them.
type rule func(e *core.RequestEvent, rec *core.Record) (visible, public bool)

// rules is who reads the stored files of each field through PocketBase's
// file route (superusers read every file; a field without a row, only them).
var rules = map[imagecheck.Field]rule{
	// Public while the camello is ACTIVO; else its owner and admins (as /uploads).
	{Collection: camellos.Collection, Name: "photo"}: func(e *core.RequestEvent, rec *core.Record) (bool, bool) {
		return camellos.PhotoVisible(rec, session.AuthUser(e))
	},
	// The camello and admins, whatever its state (privacy.CamelloDocuments);
	// the field is Protected: this package serves it itself (servedHere).
	{Collection: camellos.Collection, Name: camellos.FieldDocuments}: func(e *core.RequestEvent, rec *core.Record) (bool, bool) {
		return camellos.DocumentsVisible(rec, session.AuthUser(e)), false
	},
	// The readers of the message's thread (as /api/messages/files); the
	// field is Protected, so PocketBase also asks for a superuser's file token.
	{Collection: messages.Collection, Name: "files"}: func(e *core.RequestEvent, rec *core.Record) (bool, bool) {
		return messages.CanReadFile(e.App, session.AuthUser(e), rec), false
	},
}

// servedHere are the Protected fields whose readers (by rules) this package
// serves itself: PocketBase's handler would ask a protected file for a
// superuser's file token (the collections' view rules are closed).
var servedHere = map[imagecheck.Field]bool{
	{Collection: camellos.Collection, Name: camellos.FieldDocuments}: true,
}

// droppers remove a quarantined file name from its record, through the
// field's owner. Every field of imagecheck.Policies has one.
var droppers = map[imagecheck.Field]func(app core.App, id, name string) error{
	{Collection: camellos.Collection, Name: "photo"}:                 camellos.DropPhoto,
	{Collection: camellos.Collection, Name: camellos.FieldDocuments}: camellos.DropDocument,
	{Collection: messages.Collection, Name: "files"}:                 messages.DropFile,
	{Collection: users.Collection, Name: "avatar"}:                   users.DropAvatar,
}

// Register binds the upload policy to every record save and the guard of
// PocketBase's file route.
func Register(app core.App) {
	bindPolicy(app)
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		// GET /api/files/{collection}/{record}/{file}[?thumb=]: our rules first.
		se.Router.Bind(guard())
		return se.Next()
	})
}
