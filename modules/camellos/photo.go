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
	rel := readerOf(rec, user)
	rel.Public = rec.GetString("status") == StatusActive
	return privacy.Visible(privacy.CamelloPhoto, rel), rel.Public
}

// readerOf is how user (nil: a guest) stands to the camello rec.
func readerOf(rec, user *core.Record) privacy.Relation {
	if user == nil {
		return privacy.Relation{}
	}
	return privacy.Relation{Self: user.Id == rec.GetString(FieldUser), Admin: users.Wrap(user).Role() == users.RoleAdmin}
}

// DocumentsVisible answers, for PocketBase's file route (modules/files),
// the rule privacy.CamelloDocuments: the camello itself and admins, never
// anyone else, whatever the camello's state (user nil is a guest).
func DocumentsVisible(rec, user *core.Record) bool {
	return privacy.Visible(privacy.CamelloDocuments, readerOf(rec, user))
}

// DocumentPaths are the URLs of the camello's document photos (served by
// modules/files to those DocumentsVisible allows).
func DocumentPaths(rec *core.Record) []string {
	out := []string{}
	for _, name := range rec.GetStringSlice(FieldDocuments) {
		out = append(out, "/api/files/"+Collection+"/"+rec.Id+"/"+name)
	}
	return out
}

// DropDocument removes name from the camello id's document photos (the
// upload policy's quarantine, as DropPhoto).
func DropDocument(app core.App, id, name string) error {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return err
	}
	names := rec.GetStringSlice(FieldDocuments)
	keep := make([]string, 0, len(names))
	for _, n := range names {
		if n != name {
			keep = append(keep, n)
		}
	}
	if len(keep) == len(names) {
		return nil
	}
	rec.Set(FieldDocuments, keep)
	return app.SaveNoValidate(rec)
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
