package agenda

// Typed view of the calendar_feeds collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the calendar_feeds collection.
const (
	CalendarFeedFieldCreated    = "created"
	CalendarFeedFieldCredential = "credential"
	CalendarFeedFieldNonce      = "nonce"
	CalendarFeedFieldTokenHash  = "tokenHash"
	CalendarFeedFieldUpdated    = "updated"
	CalendarFeedFieldUser       = "user"
)

// CalendarFeed is a calendar_feeds record (a user's private .ics feed).
type CalendarFeed struct {
	core.BaseRecordProxy
}

// WrapCalendarFeed returns rec as a CalendarFeed.
func WrapCalendarFeed(rec *core.Record) *CalendarFeed {
	r := &CalendarFeed{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *CalendarFeed) Created() types.DateTime { return r.GetDateTime(CalendarFeedFieldCreated) }

// Credential is the credential field.
func (r *CalendarFeed) Credential() string { return r.GetString(CalendarFeedFieldCredential) }

// Nonce is the nonce field.
func (r *CalendarFeed) Nonce() string { return r.GetString(CalendarFeedFieldNonce) }

// TokenHash is the tokenHash field.
func (r *CalendarFeed) TokenHash() string { return r.GetString(CalendarFeedFieldTokenHash) }

// Updated is the updated field.
func (r *CalendarFeed) Updated() types.DateTime { return r.GetDateTime(CalendarFeedFieldUpdated) }

// UserID is the user field.
func (r *CalendarFeed) UserID() string { return r.GetString(CalendarFeedFieldUser) }
