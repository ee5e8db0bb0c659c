package legal

// Typed view of the legal_documents collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the legal_documents collection.
const (
	DocumentFieldCreated     = "created"
	DocumentFieldPublishedBy = "publishedBy"
	DocumentFieldSections    = "sections"
	DocumentFieldSlug        = "slug"
	DocumentFieldTitle       = "title"
	DocumentFieldUpdated     = "updated"
	DocumentFieldVersion     = "version"
)

// DocumentRecord is a legal_documents record (the current version of a document).
type DocumentRecord struct {
	core.BaseRecordProxy
}

// WrapDocumentRecord returns rec as a DocumentRecord.
func WrapDocumentRecord(rec *core.Record) *DocumentRecord {
	r := &DocumentRecord{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *DocumentRecord) Created() types.DateTime { return r.GetDateTime(DocumentFieldCreated) }

// PublishedByID is the publishedBy field.
func (r *DocumentRecord) PublishedByID() string { return r.GetString(DocumentFieldPublishedBy) }

// Sections decodes the sections field (JSON) into v.
func (r *DocumentRecord) Sections(v any) error { return r.UnmarshalJSONField(DocumentFieldSections, v) }

// Slug is the slug field.
func (r *DocumentRecord) Slug() string { return r.GetString(DocumentFieldSlug) }

// Title is the title field.
func (r *DocumentRecord) Title() string { return r.GetString(DocumentFieldTitle) }

// Updated is the updated field.
func (r *DocumentRecord) Updated() types.DateTime { return r.GetDateTime(DocumentFieldUpdated) }

// Version is the version field.
func (r *DocumentRecord) Version() int { return r.GetInt(DocumentFieldVersion) }
