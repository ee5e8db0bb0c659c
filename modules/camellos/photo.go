package camellos

import (
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// PhotoVisible is the one rule of who sees a camello's photo, whichever
// route serves it (/uploads/camellos/… and PocketBase's /api/files/…):
// everyone while the camello is public (ACTIVO), and public is then true
// (a shared cache may keep it); otherwise only its owner and admins (user
// nil is a guest).
func PhotoVisible(rec, user *core.Record) (visible, public bool) {
	if rec.GetString("status") == StatusActive {
		return true, true
	}
	if user == nil {
		return false, false
	}
	return user.Id == rec.GetString("user") || user.GetString("role") == users.RoleAdmin, false
}

// DropPhoto removes name from the photo of the camello id (the upload
// policy's quarantine: modules/files has copied the file aside). The save
// goes through the update hooks (an ACTIVO camello's photo change is marked
// for an admin's review) and PocketBase deletes the stored file and its
// thumbnails after the commit. Nothing happens when the photo is another.
func DropPhoto(app core.App, id, name string) error {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return err
	}
	if rec.GetString("photo") != name {
		return nil
	}
	rec.Set("photo", nil)
	// Without validation: a record that no longer passes another field's
	// rule (older data) must not stop the quarantine; the update hooks run.
	return app.SaveNoValidate(rec)
}
