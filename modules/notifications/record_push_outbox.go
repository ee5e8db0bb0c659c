package notifications

// Typed view of the push_outbox collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the push_outbox collection.
const (
	PushOutboxRowFieldAttempts      = "attempts"
	PushOutboxRowFieldBody          = "body"
	PushOutboxRowFieldCreated       = "created"
	PushOutboxRowFieldData          = "data"
	PushOutboxRowFieldDoneAt        = "doneAt"
	PushOutboxRowFieldKind          = "kind"
	PushOutboxRowFieldNextAttemptAt = "nextAttemptAt"
	PushOutboxRowFieldNotification  = "notification"
	PushOutboxRowFieldOutcome       = "outcome"
	PushOutboxRowFieldStatus        = "status"
	PushOutboxRowFieldSubscription  = "subscription"
	PushOutboxRowFieldTitle         = "title"
	PushOutboxRowFieldURL           = "url"
	PushOutboxRowFieldUser          = "user"
)

// PushOutboxRow is a push_outbox record (one push to one subscription, queued).
type PushOutboxRow struct {
	core.BaseRecordProxy
}

// WrapPushOutboxRow returns rec as a PushOutboxRow.
func WrapPushOutboxRow(rec *core.Record) *PushOutboxRow {
	r := &PushOutboxRow{}
	r.SetProxyRecord(rec)
	return r
}

// Attempts is the attempts field.
func (r *PushOutboxRow) Attempts() int { return r.GetInt(PushOutboxRowFieldAttempts) }

// Body is the body field.
func (r *PushOutboxRow) Body() string { return r.GetString(PushOutboxRowFieldBody) }

// Created is the created field.
func (r *PushOutboxRow) Created() types.DateTime { return r.GetDateTime(PushOutboxRowFieldCreated) }

// Data decodes the data field (JSON) into v.
func (r *PushOutboxRow) Data(v any) error { return r.UnmarshalJSONField(PushOutboxRowFieldData, v) }

// DoneAt is the doneAt field.
func (r *PushOutboxRow) DoneAt() types.DateTime { return r.GetDateTime(PushOutboxRowFieldDoneAt) }

// Kind is the kind field.
func (r *PushOutboxRow) Kind() string { return r.GetString(PushOutboxRowFieldKind) }

// NextAttemptAt is the nextAttemptAt field.
func (r *PushOutboxRow) NextAttemptAt() types.DateTime {
	return r.GetDateTime(PushOutboxRowFieldNextAttemptAt)
}

// Notification is the notification field.
func (r *PushOutboxRow) Notification() string { return r.GetString(PushOutboxRowFieldNotification) }

// Outcome is the outcome field.
func (r *PushOutboxRow) Outcome() string { return r.GetString(PushOutboxRowFieldOutcome) }

// Status is the status field.
func (r *PushOutboxRow) Status() string { return r.GetString(PushOutboxRowFieldStatus) }

// Subscription is the subscription field.
func (r *PushOutboxRow) Subscription() string { return r.GetString(PushOutboxRowFieldSubscription) }

// Title is the title field.
func (r *PushOutboxRow) Title() string { return r.GetString(PushOutboxRowFieldTitle) }

// URL is the url field.
func (r *PushOutboxRow) URL() string { return r.GetString(PushOutboxRowFieldURL) }

// UserID is the user field.
func (r *PushOutboxRow) UserID() string { return r.GetString(PushOutboxRowFieldUser) }
