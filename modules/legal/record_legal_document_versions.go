package legal

// Typed view of the legal_document_versions collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the legal_document_versions collection.
const (
	DocumentVersionFieldCreated     = "created"
	DocumentVersionFieldPublishedBy = "publishedBy"
	DocumentVersionFieldSections    = "sections"
	DocumentVersionFieldSlug        = "slug"
	DocumentVersionFieldTitle       = "title"
	DocumentVersionFieldVersion     = "version"
)

// DocumentVersion is a legal_document_versions record (a published version).
type DocumentVersion struct {
	core.BaseRecordProxy
}

// WrapDocumentVersion returns rec as a DocumentVersion.
func WrapDocumentVersion(rec *core.Record) *DocumentVersion {
	r := &DocumentVersion{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *DocumentVersion) Created() types.DateTime { return r.GetDateTime(DocumentVersionFieldCreated) }

// PublishedByID is the publishedBy field.
func (r *DocumentVersion) PublishedByID() string { return r.GetString(DocumentVersionFieldPublishedBy) }

// Sections decodes the sections field (JSON) into v.
func (r *DocumentVersion) Sections(v any) error {
	return r.UnmarshalJSONField(DocumentVersionFieldSections, v)
}

// Slug is the slug field.
func (r *DocumentVersion) Slug() string { return r.GetString(DocumentVersionFieldSlug) }

// Title is the title field.
func (r *DocumentVersion) Title() string { return r.GetString(DocumentVersionFieldTitle) }

// Version is the version field.
func (r *DocumentVersion) Version() int { return r.GetInt(DocumentVersionFieldVersion) }
