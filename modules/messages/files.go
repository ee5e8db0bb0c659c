package messages

import (
	"encoding/json"
	"slices"

	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// CanReadFile is the one rule of who sees a message's photos, whichever
// route serves them (/api/messages/files/… and PocketBase's /api/files/…):
// those who read the message's thread (the job's client, the thread's
// camello, admins). user nil is a guest.
func CanReadFile(app core.App, user, msg *core.Record) bool {
	if user == nil {
		return false
	}
	job, err := app.FindRecordById(jobs.Collection, msg.GetString("job"))
	if err != nil {
		return false
	}
	a, ok := AccessOf(app, user, job)
	return ok && a.Reads(msg.GetString("camello"))
}

// DropFile removes name from the photos of message id (the upload policy's
// quarantine: modules/files has copied the file aside) and deletes the
// stored file and its thumbnails. A sent message is never edited through
// its record hooks, so this is a raw write of the owner; the job's cached
// conversation is dropped after the commit.
func DropFile(app core.App, id, name string) error {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return err
	}
	files := rec.GetStringSlice("files")
	if !slices.Contains(files, name) {
		return nil
	}
	files = slices.DeleteFunc(files, func(f string) bool { return f == name })
	raw, err := json.Marshal(files)
	if err != nil {
		return err
	}
	if _, err := app.DB().NewQuery("UPDATE messages SET files = {:files} WHERE id = {:id}").
		Bind(dbx.Params{"files": string(raw), "id": id}).Execute(); err != nil {
		return err
	}
	job := rec.GetString("job")
	conversations.Drop(app, job)
	fsys, err := app.NewFilesystem()
	if err != nil {
		return err
	}
	defer fsys.Close()
	base := rec.BaseFilesPath() + "/"
	fsys.DeletePrefix(base + "thumbs_" + name + "/")
	return fsys.Delete(base + name)
}
