package camellos

import (
	"camellos/internal/privacy"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// PhotoVisible answers, for whichever route serves a camello's photo
// (/uploads/camellos/… and PocketBase's /api/files/…), the one rule of
// internal/privacy (privacy.CamelloPhoto): everyone while the camello is
// public (ACTIVO), and public is then true (a shared cache may keep it);
// otherwise only its owner and admins (user nil is a guest).
func PhotoVisible(rec, user *core.Record) (visible, public bool) {
	public = rec.GetString("status") == StatusActive
	rel := privacy.Relation{Public: public}
	if user != nil {
		rel.Self = user.Id == rec.GetString("user")
		rel.Admin = users.Wrap(user).Role() == users.RoleAdmin
	}
	return privacy.Visible(privacy.CamelloPhoto, rel), public
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
