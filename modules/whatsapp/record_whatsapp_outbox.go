package whatsapp

// Typed view of the whatsapp_outbox collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the whatsapp_outbox collection.
const (
	OutboxMessageFieldAcceptedAt    = "acceptedAt"
	OutboxMessageFieldAttempts      = "attempts"
	OutboxMessageFieldBody          = "body"
	OutboxMessageFieldCreated       = "created"
	OutboxMessageFieldDeliveredAt   = "deliveredAt"
	OutboxMessageFieldErrorCode     = "errorCode"
	OutboxMessageFieldFailedAt      = "failedAt"
	OutboxMessageFieldFallback      = "fallback"
	OutboxMessageFieldFellBack      = "fellBack"
	OutboxMessageFieldKind          = "kind"
	OutboxMessageFieldLanguage      = "language"
	OutboxMessageFieldLastError     = "lastError"
	OutboxMessageFieldNextAttemptAt = "nextAttemptAt"
	OutboxMessageFieldNotification  = "notification"
	OutboxMessageFieldParams        = "params"
	OutboxMessageFieldPhone         = "phone"
	OutboxMessageFieldReadAt        = "readAt"
	OutboxMessageFieldSentAt        = "sentAt"
	OutboxMessageFieldStatus        = "status"
	OutboxMessageFieldTemplate      = "template"
	OutboxMessageFieldTitle         = "title"
	OutboxMessageFieldUpdated       = "updated"
	OutboxMessageFieldURL           = "url"
	OutboxMessageFieldUser          = "user"
	OutboxMessageFieldWamid         = "wamid"
)

// OutboxMessage is a whatsapp_outbox record (a queued template message).
type OutboxMessage struct {
	core.BaseRecordProxy
}

// WrapOutboxMessage returns rec as a OutboxMessage.
func WrapOutboxMessage(rec *core.Record) *OutboxMessage {
	r := &OutboxMessage{}
	r.SetProxyRecord(rec)
	return r
}

// AcceptedAt is the acceptedAt field.
func (r *OutboxMessage) AcceptedAt() types.DateTime {
	return r.GetDateTime(OutboxMessageFieldAcceptedAt)
}

// Attempts is the attempts field.
func (r *OutboxMessage) Attempts() int { return r.GetInt(OutboxMessageFieldAttempts) }

// Body is the body field.
func (r *OutboxMessage) Body() string { return r.GetString(OutboxMessageFieldBody) }

// Created is the created field.
func (r *OutboxMessage) Created() types.DateTime { return r.GetDateTime(OutboxMessageFieldCreated) }

// DeliveredAt is the deliveredAt field.
func (r *OutboxMessage) DeliveredAt() types.DateTime {
	return r.GetDateTime(OutboxMessageFieldDeliveredAt)
}

// ErrorCode is the errorCode field.
func (r *OutboxMessage) ErrorCode() int { return r.GetInt(OutboxMessageFieldErrorCode) }

// FailedAt is the failedAt field.
func (r *OutboxMessage) FailedAt() types.DateTime { return r.GetDateTime(OutboxMessageFieldFailedAt) }

// Fallback is the fallback field.
func (r *OutboxMessage) Fallback() bool { return r.GetBool(OutboxMessageFieldFallback) }

// FellBack is the fellBack field.
func (r *OutboxMessage) FellBack() bool { return r.GetBool(OutboxMessageFieldFellBack) }

// Kind is the kind field.
func (r *OutboxMessage) Kind() string { return r.GetString(OutboxMessageFieldKind) }

// Language is the language field.
func (r *OutboxMessage) Language() string { return r.GetString(OutboxMessageFieldLanguage) }

// LastError is the lastError field.
func (r *OutboxMessage) LastError() string { return r.GetString(OutboxMessageFieldLastError) }

// NextAttemptAt is the nextAttemptAt field.
func (r *OutboxMessage) NextAttemptAt() types.DateTime {
	return r.GetDateTime(OutboxMessageFieldNextAttemptAt)
}

// Notification is the notification field.
func (r *OutboxMessage) Notification() string { return r.GetString(OutboxMessageFieldNotification) }

// Params decodes the params field (JSON) into v.
func (r *OutboxMessage) Params(v any) error { return r.UnmarshalJSONField(OutboxMessageFieldParams, v) }

// Phone is the phone field.
func (r *OutboxMessage) Phone() string { return r.GetString(OutboxMessageFieldPhone) }

// ReadAt is the readAt field.
func (r *OutboxMessage) ReadAt() types.DateTime { return r.GetDateTime(OutboxMessageFieldReadAt) }

// SentAt is the sentAt field.
func (r *OutboxMessage) SentAt() types.DateTime { return r.GetDateTime(OutboxMessageFieldSentAt) }

// Status is the status field.
func (r *OutboxMessage) Status() string { return r.GetString(OutboxMessageFieldStatus) }

// Template is the template field.
func (r *OutboxMessage) Template() string { return r.GetString(OutboxMessageFieldTemplate) }

// Title is the title field.
func (r *OutboxMessage) Title() string { return r.GetString(OutboxMessageFieldTitle) }

// Updated is the updated field.
func (r *OutboxMessage) Updated() types.DateTime { return r.GetDateTime(OutboxMessageFieldUpdated) }

// URL is the url field.
func (r *OutboxMessage) URL() string { return r.GetString(OutboxMessageFieldURL) }

// UserID is the user field.
func (r *OutboxMessage) UserID() string { return r.GetString(OutboxMessageFieldUser) }

// Wamid is the wamid field.
func (r *OutboxMessage) Wamid() string { return r.GetString(OutboxMessageFieldWamid) }
