package files

// Typed view of the file_quarantine collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the file_quarantine collection.
const (
	QuarantineFieldCreated          = "created"
	QuarantineFieldField            = "field"
	QuarantineFieldFile             = "file"
	QuarantineFieldSourceCollection = "sourceCollection"
	QuarantineFieldSourceRecord     = "sourceRecord"
	QuarantineFieldStoredAt         = "storedAt"
	QuarantineFieldViolation        = "violation"
)

// QuarantineRecord is a file_quarantine record (a stored file that broke the upload policy).
type QuarantineRecord struct {
	core.BaseRecordProxy
}

// WrapQuarantineRecord returns rec as a QuarantineRecord.
func WrapQuarantineRecord(rec *core.Record) *QuarantineRecord {
	r := &QuarantineRecord{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *QuarantineRecord) Created() types.DateTime { return r.GetDateTime(QuarantineFieldCreated) }

// Field is the field field.
func (r *QuarantineRecord) Field() string { return r.GetString(QuarantineFieldField) }

// File is the file field.
func (r *QuarantineRecord) File() string { return r.GetString(QuarantineFieldFile) }

// SourceCollection is the sourceCollection field.
func (r *QuarantineRecord) SourceCollection() string {
	return r.GetString(QuarantineFieldSourceCollection)
}

// SourceRecord is the sourceRecord field.
func (r *QuarantineRecord) SourceRecord() string { return r.GetString(QuarantineFieldSourceRecord) }

// StoredAt is the storedAt field.
func (r *QuarantineRecord) StoredAt() string { return r.GetString(QuarantineFieldStoredAt) }

// Violation is the violation field.
func (r *QuarantineRecord) Violation() string { return r.GetString(QuarantineFieldViolation) }
