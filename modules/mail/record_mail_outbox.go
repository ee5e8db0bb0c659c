package mail

// Typed view of the mail_outbox collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the mail_outbox collection.
const (
	OutboxMailFieldAttempts      = "attempts"
	OutboxMailFieldCreated       = "created"
	OutboxMailFieldHeaders       = "headers"
	OutboxMailFieldHTML          = "html"
	OutboxMailFieldKind          = "kind"
	OutboxMailFieldLastError     = "lastError"
	OutboxMailFieldNextAttemptAt = "nextAttemptAt"
	OutboxMailFieldSentAt        = "sentAt"
	OutboxMailFieldStatus        = "status"
	OutboxMailFieldSubject       = "subject"
	OutboxMailFieldText          = "text"
	OutboxMailFieldToAddress     = "toAddress"
	OutboxMailFieldToName        = "toName"
	OutboxMailFieldUpdated       = "updated"
	OutboxMailFieldUser          = "user"
)

// OutboxMail is a mail_outbox record (a queued mail).
type OutboxMail struct {
	core.BaseRecordProxy
}

// WrapOutboxMail returns rec as a OutboxMail.
func WrapOutboxMail(rec *core.Record) *OutboxMail {
	r := &OutboxMail{}
	r.SetProxyRecord(rec)
	return r
}

// Attempts is the attempts field.
func (r *OutboxMail) Attempts() int { return r.GetInt(OutboxMailFieldAttempts) }

// Created is the created field.
func (r *OutboxMail) Created() types.DateTime { return r.GetDateTime(OutboxMailFieldCreated) }

// Headers decodes the headers field (JSON) into v.
func (r *OutboxMail) Headers(v any) error { return r.UnmarshalJSONField(OutboxMailFieldHeaders, v) }

// HTML is the html field.
func (r *OutboxMail) HTML() string { return r.GetString(OutboxMailFieldHTML) }

// Kind is the kind field.
func (r *OutboxMail) Kind() string { return r.GetString(OutboxMailFieldKind) }

// LastError is the lastError field.
func (r *OutboxMail) LastError() string { return r.GetString(OutboxMailFieldLastError) }

// NextAttemptAt is the nextAttemptAt field.
func (r *OutboxMail) NextAttemptAt() types.DateTime {
	return r.GetDateTime(OutboxMailFieldNextAttemptAt)
}

// SentAt is the sentAt field.
func (r *OutboxMail) SentAt() types.DateTime { return r.GetDateTime(OutboxMailFieldSentAt) }

// Status is the status field.
func (r *OutboxMail) Status() string { return r.GetString(OutboxMailFieldStatus) }

// Subject is the subject field.
func (r *OutboxMail) Subject() string { return r.GetString(OutboxMailFieldSubject) }

// Text is the text field.
func (r *OutboxMail) Text() string { return r.GetString(OutboxMailFieldText) }

// ToAddress is the toAddress field.
func (r *OutboxMail) ToAddress() string { return r.GetString(OutboxMailFieldToAddress) }

// ToName is the toName field.
func (r *OutboxMail) ToName() string { return r.GetString(OutboxMailFieldToName) }

// Updated is the updated field.
func (r *OutboxMail) Updated() types.DateTime { return r.GetDateTime(OutboxMailFieldUpdated) }

// UserID is the user field.
func (r *OutboxMail) UserID() string { return r.GetString(OutboxMailFieldUser) }
