// Package users owns the users collection: its name, the roles of the
// service and the password derivation every path that sets or checks a
// password goes through.
package users

import "github.com/pocketbase/pocketbase/core"

// Collection is the users collection (PocketBase auth collection).
const Collection = "users"

// Roles of the service.
const (
	RoleAdmin   = "ADMIN"
	RoleCamello = "CAMELLOS"
	RoleClient  = "CLIENTE"
)

// DropAvatar removes name from the avatar of user id (the upload policy's
// quarantine: modules/files has copied the file aside); PocketBase deletes
// the stored file and its thumbnails after the save. Nothing happens when
// the avatar is another.
func DropAvatar(app core.App, id, name string) error {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return err
	}
	if rec.GetString("avatar") != name {
		return nil
	}
	rec.Set("avatar", nil)
	// Without validation: a record that no longer passes another field's
	// rule (older data) must not stop the quarantine; the update hooks run.
	return app.SaveNoValidate(rec)
}
