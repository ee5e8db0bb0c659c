package files

import (
	"fmt"

	"camellos/internal/imagecheck"

	"github.com/pocketbase/dbx"

	"github.com/pocketbase/pocketbase/core"
)

// QuarantinePrefix is where quarantined files are moved in the storage
// (local pb_data/storage or S3): quarantine/<collection>/<record>/<file>,
// outside every record's folder, so no route can serve them; an operator
// inspects or deletes them there.
const QuarantinePrefix = "quarantine/"

// Quarantined is one stored file moved aside.
type Quarantined struct {
	Collection string `json:"collection"`
	Record     string `json:"record"`
	Field      string `json:"field"`
	File       string `json:"file"`
	Violation  string `json:"violation"` // an imagecheck code, or "no_policy"
	StoredAt   string `json:"storedAt"`  // the key it was moved to
}

// CodeNoPolicy is the violation of a file stored in a field without a
// row in imagecheck.Policies.
const CodeNoPolicy = "no_policy"

// Quarantine finds every stored file, in every file field of every
// collection, that breaks its field's upload policy (judged by its size
// and header, never decoded) and quarantines it: the file is copied to
// QuarantinePrefix, its name removed from the record through the field's
// owner (which deletes the original and its thumbnails), and a
// file_quarantine record written (sourceCollection, sourceRecord, field, file,
// violation, storedAt). A missing file is left alone. Run by the migration
// 1764100001_quarantine_files; running it again finds nothing new.
func Quarantine(app core.App) ([]Quarantined, error) {
	cols, err := app.FindAllCollections()
	if err != nil {
		return nil, err
	}
	qcol, err := app.FindCollectionByNameOrId(QuarantineCollection)
	if err != nil {
		return nil, err
	}
	fsys, err := app.NewFilesystem()
	if err != nil {
		return nil, err
	}
	defer fsys.Close()
	var out []Quarantined
	for _, col := range cols {
		if col.IsView() {
			continue
		}
		for _, f := range col.Fields {
			if f.Type() != core.FieldTypeFile {
				continue
			}
			field := imagecheck.Field{Collection: col.Name, Name: f.GetName()}
			policy, hasPolicy := imagecheck.Policies[field]
			recs, err := app.FindAllRecords(col, withFiles(f.GetName()))
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				for _, name := range rec.GetStringSlice(f.GetName()) {
					key := rec.BaseFilesPath() + "/" + name
					code := CodeNoPolicy
					if hasPolicy {
						_, err := imagecheck.CheckStored(fsys, key, policy)
						v := imagecheck.AsViolation(err)
						if v == nil {
							continue // accepted, or missing (nothing to serve)
						}
						code = v.Code
					}
					drop := droppers[field]
					if drop == nil {
						return nil, fmt.Errorf("files: no owner removes a quarantined file of %s.%s (add it to droppers)", field.Collection, field.Name)
					}
					q := Quarantined{Collection: col.Name, Record: rec.Id, Field: f.GetName(), File: name, Violation: code,
						StoredAt: QuarantinePrefix + col.Name + "/" + rec.Id + "/" + name}
					if err := fsys.Copy(key, q.StoredAt); err != nil {
						return nil, fmt.Errorf("files: copy %s aside: %w", key, err)
					}
					if err := drop(app, rec.Id, name); err != nil {
						return nil, fmt.Errorf("files: drop %s from %s %s: %w", name, col.Name, rec.Id, err)
					}
					qr := core.NewRecord(qcol)
					qr.Set("sourceCollection", q.Collection)
					qr.Set("sourceRecord", q.Record)
					qr.Set("field", q.Field)
					qr.Set("file", q.File)
					qr.Set("violation", q.Violation)
					qr.Set("storedAt", q.StoredAt)
					if err := app.Save(qr); err != nil {
						return nil, err
					}
					app.Logger().Warn("files: quarantined a stored file that breaks the upload policy",
						"collection", q.Collection, "record", q.Record, "field", q.Field, "file", q.File,
						"violation", q.Violation, "storedAt", q.StoredAt)
					out = append(out, q)
				}
			}
		}
	}
	return out, nil
}

// withFiles filters the records whose file field holds something (a
// single file is a name, several a JSON list).
func withFiles(field string) dbx.Expression {
	return dbx.NewExp("[[" + field + "]] != '' AND [[" + field + "]] != '[]'")
}
