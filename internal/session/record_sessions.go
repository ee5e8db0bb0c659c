package session

// Typed view of the sessions collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the sessions collection.
const (
	SessionFieldCreated      = "created"
	SessionFieldExpiresAt    = "expiresAt"
	SessionFieldIP           = "ip"
	SessionFieldTokenHash    = "tokenHash"
	SessionFieldUser         = "user"
	SessionFieldUserAgent    = "userAgent"
	SessionFieldUserTokenKey = "userTokenKey"
)

// SessionRecord is a sessions record (a signed-in browser).
type SessionRecord struct {
	core.BaseRecordProxy
}

// WrapSessionRecord returns rec as a SessionRecord.
func WrapSessionRecord(rec *core.Record) *SessionRecord {
	r := &SessionRecord{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *SessionRecord) Created() types.DateTime { return r.GetDateTime(SessionFieldCreated) }

// ExpiresAt is the expiresAt field.
func (r *SessionRecord) ExpiresAt() types.DateTime { return r.GetDateTime(SessionFieldExpiresAt) }

// IP is the ip field.
func (r *SessionRecord) IP() string { return r.GetString(SessionFieldIP) }

// TokenHash is the tokenHash field.
func (r *SessionRecord) TokenHash() string { return r.GetString(SessionFieldTokenHash) }

// UserID is the user field.
func (r *SessionRecord) UserID() string { return r.GetString(SessionFieldUser) }

// UserAgent is the userAgent field.
func (r *SessionRecord) UserAgent() string { return r.GetString(SessionFieldUserAgent) }

// UserTokenKey is the userTokenKey field.
func (r *SessionRecord) UserTokenKey() string { return r.GetString(SessionFieldUserTokenKey) }
