package legal

// Typed view of the legal_acceptances collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the legal_acceptances collection.
const (
	AcceptanceFieldCreated   = "created"
	AcceptanceFieldIP        = "ip"
	AcceptanceFieldSlug      = "slug"
	AcceptanceFieldUser      = "user"
	AcceptanceFieldUserAgent = "userAgent"
	AcceptanceFieldVersion   = "version"
)

// Acceptance is a legal_acceptances record (a user's consent to a version).
type Acceptance struct {
	core.BaseRecordProxy
}

// WrapAcceptance returns rec as a Acceptance.
func WrapAcceptance(rec *core.Record) *Acceptance {
	r := &Acceptance{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *Acceptance) Created() types.DateTime { return r.GetDateTime(AcceptanceFieldCreated) }

// IP is the ip field.
func (r *Acceptance) IP() string { return r.GetString(AcceptanceFieldIP) }

// Slug is the slug field.
func (r *Acceptance) Slug() string { return r.GetString(AcceptanceFieldSlug) }

// UserID is the user field.
func (r *Acceptance) UserID() string { return r.GetString(AcceptanceFieldUser) }

// UserAgent is the userAgent field.
func (r *Acceptance) UserAgent() string { return r.GetString(AcceptanceFieldUserAgent) }

// Version is the version field.
func (r *Acceptance) Version() int { return r.GetInt(AcceptanceFieldVersion) }
