package notifications

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the notifications collection (FieldUser is also the owner of
// a preferences row and of a push subscription).
const (
	FieldUser     = "user"
	FieldKind     = "kind"
	FieldTitle    = "title"
	FieldBody     = "body"
	FieldURL      = "url"
	FieldData     = "data"
	FieldReadAt   = "readAt"
	FieldCreated  = "created"
	FieldPrefs    = "prefs"
	FieldEndpoint = "endpoint"
	FieldP256dh   = "p256dh"
	FieldAuth     = "auth"
)

// Notification is a typed notifications record (an inbox item).
type Notification struct {
	core.BaseRecordProxy
}

// WrapNotification returns rec as a Notification.
func WrapNotification(rec *core.Record) *Notification {
	n := &Notification{}
	n.SetProxyRecord(rec)
	return n
}

// UserID is the user whose inbox holds the notification.
func (n *Notification) UserID() string { return n.GetString(FieldUser) }

// Kind is one of the notification kinds (Kind…).
func (n *Notification) Kind() string { return n.GetString(FieldKind) }

// Title is the notification's title.
func (n *Notification) Title() string { return n.GetString(FieldTitle) }

// Body is the notification's text.
func (n *Notification) Body() string { return n.GetString(FieldBody) }

// URL is the page the notification opens.
func (n *Notification) URL() string { return n.GetString(FieldURL) }

// ReadAt is when the user read it (zero while unread).
func (n *Notification) ReadAt() types.DateTime { return n.GetDateTime(FieldReadAt) }

// Created is when the notification was made.
func (n *Notification) Created() types.DateTime { return n.GetDateTime(FieldCreated) }

// PreferencesRecord is a typed notification_preferences record.
type PreferencesRecord struct {
	core.BaseRecordProxy
}

// WrapPreferences returns rec as a PreferencesRecord.
func WrapPreferences(rec *core.Record) *PreferencesRecord {
	p := &PreferencesRecord{}
	p.SetProxyRecord(rec)
	return p
}

// UserID is the user the preferences are of.
func (p *PreferencesRecord) UserID() string { return p.GetString(FieldUser) }

// PushSubscription is a typed push_subscriptions record.
type PushSubscription struct {
	core.BaseRecordProxy
}

// WrapPushSubscription returns rec as a PushSubscription.
func WrapPushSubscription(rec *core.Record) *PushSubscription {
	s := &PushSubscription{}
	s.SetProxyRecord(rec)
	return s
}

// UserID is the subscribed user.
func (s *PushSubscription) UserID() string { return s.GetString(FieldUser) }

// Endpoint is the push service's URL for the subscription.
func (s *PushSubscription) Endpoint() string { return s.GetString(FieldEndpoint) }

// P256dh is the subscription's public key (base64url).
func (s *PushSubscription) P256dh() string { return s.GetString(FieldP256dh) }

// Auth is the subscription's authentication secret (base64url).
func (s *PushSubscription) Auth() string { return s.GetString(FieldAuth) }
