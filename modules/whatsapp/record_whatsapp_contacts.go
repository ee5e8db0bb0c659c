package whatsapp

// Typed view of the whatsapp_contacts collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the whatsapp_contacts collection.
const (
	ContactFieldCodeAttempts  = "codeAttempts"
	ContactFieldCodeExpiresAt = "codeExpiresAt"
	ContactFieldCodeHash      = "codeHash"
	ContactFieldCodeSentAt    = "codeSentAt"
	ContactFieldConfirmedAt   = "confirmedAt"
	ContactFieldCreated       = "created"
	ContactFieldPhone         = "phone"
	ContactFieldStatus        = "status"
	ContactFieldUpdated       = "updated"
	ContactFieldUser          = "user"
)

// ContactRecord is a whatsapp_contacts record (a number confirmed by code).
type ContactRecord struct {
	core.BaseRecordProxy
}

// WrapContactRecord returns rec as a ContactRecord.
func WrapContactRecord(rec *core.Record) *ContactRecord {
	r := &ContactRecord{}
	r.SetProxyRecord(rec)
	return r
}

// CodeAttempts is the codeAttempts field.
func (r *ContactRecord) CodeAttempts() int { return r.GetInt(ContactFieldCodeAttempts) }

// CodeExpiresAt is the codeExpiresAt field.
func (r *ContactRecord) CodeExpiresAt() types.DateTime {
	return r.GetDateTime(ContactFieldCodeExpiresAt)
}

// CodeHash is the codeHash field.
func (r *ContactRecord) CodeHash() string { return r.GetString(ContactFieldCodeHash) }

// CodeSentAt is the codeSentAt field.
func (r *ContactRecord) CodeSentAt() types.DateTime { return r.GetDateTime(ContactFieldCodeSentAt) }

// ConfirmedAt is the confirmedAt field.
func (r *ContactRecord) ConfirmedAt() types.DateTime { return r.GetDateTime(ContactFieldConfirmedAt) }

// Created is the created field.
func (r *ContactRecord) Created() types.DateTime { return r.GetDateTime(ContactFieldCreated) }

// Phone is the phone field.
func (r *ContactRecord) Phone() string { return r.GetString(ContactFieldPhone) }

// Status is the status field.
func (r *ContactRecord) Status() string { return r.GetString(ContactFieldStatus) }

// Updated is the updated field.
func (r *ContactRecord) Updated() types.DateTime { return r.GetDateTime(ContactFieldUpdated) }

// UserID is the user field.
func (r *ContactRecord) UserID() string { return r.GetString(ContactFieldUser) }
