package files

import (
	"camellos/internal/httpapi"
	"camellos/internal/imagecheck"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// MsgNoUploads refuses a file for a field that has no upload policy.
const MsgNoUploads = "Este campo no admite archivos"

// bindPolicy checks every new file of every file field on every record
// save (our routes, the generic API and the dashboard alike) against the
// field's policy, by its header only, before PocketBase stores it: a file
// that breaks it fails the save with a 400 naming the field.
func bindPolicy(app core.App) {
	app.OnRecordValidate().BindFunc(func(e *core.RecordEvent) error {
		col := e.Record.Collection()
		for _, f := range col.Fields {
			if f.Type() != core.FieldTypeFile {
				continue
			}
			files := e.Record.GetUnsavedFiles(f.GetName())
			if len(files) == 0 {
				continue
			}
			policy, ok := imagecheck.For(col.Name, f.GetName())
			if !ok {
				return httpapi.FieldRuleError(f.GetName(), MsgNoUploads)
			}
			for _, file := range files {
				if err := checkUpload(policy, file); err != nil {
					if v := imagecheck.AsViolation(err); v != nil {
						return httpapi.FieldRuleError(f.GetName(), v.Message)
					}
					return err
				}
			}
		}
		return e.Next()
	})
}

// checkUpload judges one unsaved file by its header.
func checkUpload(policy imagecheck.Policy, file *filesystem.File) error {
	if file.Size > policy.MaxBytes {
		_, err := policy.Check(nil, file.Size)
		return err
	}
	r, err := file.Reader.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = policy.Check(r, file.Size)
	return err
}
