package notifications

import (
	"crypto/ecdh"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// MaxEndpointChars bounds a push endpoint URL.
const MaxEndpointChars = bounds.URLMax

// Spanish messages of the push subscription routes.
const (
	msgEndpointInvalid     = "Debe ser una URL https válida de hasta 2048 caracteres"
	msgP256dhInvalid       = "Debe ser una clave P-256 sin comprimir (65 bytes) en base64url"
	msgAuthInvalid         = "Debe ser un secreto de 16 bytes en base64url"
	msgSubscriptionMissing = "Suscripción no encontrada"
	msgEndpointTaken       = "Este dispositivo ya recibe avisos de otra cuenta; esa cuenta debe desactivarlos primero"
)

// validEndpoint reports whether s is an absolute https URL of at most
// MaxEndpointChars characters.
func validEndpoint(s string) bool {
	if s == "" || text.Chars(s) > MaxEndpointChars || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Hostname() != "" && u.User == nil
}

// validP256dh reports whether s is base64url (padding optional) of a
// 65-byte uncompressed P-256 point that lies on the curve.
func validP256dh(s string) bool {
	raw, err := decodeB64URL(s)
	if err != nil || len(raw) != 65 || raw[0] != 0x04 {
		return false
	}
	_, err = ecdh.P256().NewPublicKey(raw)
	return err == nil
}

// validAuth reports whether s is base64url (padding optional) of 16 bytes.
func validAuth(s string) bool {
	raw, err := decodeB64URL(s)
	return err == nil && len(raw) == 16
}

// validateSubscription adds the field issues of a subscription to v.
func validateSubscription(v *httpapi.Validation, endpoint, p256dh, auth string) {
	if !validEndpoint(endpoint) {
		v.Add("endpoint", msgEndpointInvalid)
	}
	if !validP256dh(p256dh) {
		v.Add("keys.p256dh", msgP256dhInvalid)
	}
	if !validAuth(auth) {
		v.Add("keys.auth", msgAuthInvalid)
	}
}

// subscriptionJSON is the answer's subscription object.
func subscriptionJSON(rec *core.Record) map[string]any {
	return map[string]any{
		"id":        rec.Id,
		"endpoint":  rec.GetString("endpoint"),
		"createdAt": timefmt.ISO(rec.GetDateTime("created").Time()),
	}
}

// pushSubscribe stores a push subscription: 201 when the endpoint is new,
// 200 when the caller already had it (keys refreshed), 409 when it belongs
// to another user (never moved to the caller).
func pushSubscribe(e *core.RequestEvent) error {
	in, err := readSubscription(e)
	if err != nil {
		return err
	}
	rec, created, err := storeSubscription(e, in)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return e.JSON(status, map[string]any{"subscription": subscriptionJSON(rec)})
}

// pushSync re-syncs the browser's subscription, as the web front does on
// every app open and the service worker on pushsubscriptionchange: the
// subscription is stored as pushSubscribe stores it, and the caller's
// oldEndpoint (the one the browser replaced), when given, is removed. Its
// own quota row ("push.sync") lets the front re-sync on every open without
// using up the one of new subscriptions.
func pushSync(e *core.RequestEvent) error {
	in, err := readSubscription(e)
	if err != nil {
		return err
	}
	rec, created, err := storeSubscription(e, in)
	if err != nil {
		return err
	}
	if in.old != "" && in.old != in.endpoint {
		_, err := e.App.DB().Delete(colSubscriptions, dbx.HashExp{"endpoint": in.old, "user": session.AuthUser(e).Id}).Execute()
		if err != nil {
			return httpapi.Internal(err)
		}
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return e.JSON(status, map[string]any{"subscription": subscriptionJSON(rec)})
}

// subscriptionIn is a checked subscription of a request.
type subscriptionIn struct {
	endpoint, p256dh, auth string
	old                    string // oldEndpoint (sync only)
}

// readSubscription reads and checks {endpoint, keys: {p256dh, auth},
// oldEndpoint?}.
func readSubscription(e *core.RequestEvent) (subscriptionIn, error) {
	var in struct {
		Endpoint    *string                    `json:"endpoint"`
		Keys        map[string]json.RawMessage `json:"keys"`
		OldEndpoint *string                    `json:"oldEndpoint"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return subscriptionIn{}, err
	}
	v := httpapi.NewValidation()
	var out subscriptionIn
	if in.Endpoint != nil {
		out.endpoint = strings.TrimSpace(*in.Endpoint)
	}
	if in.OldEndpoint != nil {
		out.old = strings.TrimSpace(*in.OldEndpoint)
		if text.Chars(out.old) > MaxEndpointChars {
			v.Add("oldEndpoint", msgEndpointInvalid)
		}
	}
	out.p256dh, out.auth = keyString(in.Keys, "p256dh"), keyString(in.Keys, "auth")
	validateSubscription(v, out.endpoint, out.p256dh, out.auth)
	if !v.Has("endpoint") && !config.Of(e.App).WebPushAllowPrivate && privateEndpoint(e.Request.Context(), out.endpoint) {
		v.Add("endpoint", msgEndpointPrivate)
	}
	return out, v.Err()
}

// storeSubscription upserts the caller's subscription by endpoint (unique):
// created reports a new one; another user's endpoint is 409.
func storeSubscription(e *core.RequestEvent, in subscriptionIn) (rec *core.Record, created bool, err error) {
	endpoint := in.endpoint
	user := session.AuthUser(e)
	userAgent := e.Request.UserAgent()
	if n := []rune(userAgent); len(n) > 300 {
		userAgent = string(n[:300])
	}
	upsert := func() error {
		return writer.Transaction(e.App, func(txApp core.App) error {
			if err := stillSignedIn(txApp, user.Id); err != nil {
				return err
			}
			existing, err := txApp.FindFirstRecordByData(colSubscriptions, "endpoint", endpoint)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				col, err := txApp.FindCachedCollectionByNameOrId(colSubscriptions)
				if err != nil {
					return err
				}
				existing = core.NewRecord(col)
				existing.Set("endpoint", endpoint)
				created = true
			case err != nil:
				return err
			case existing.GetString("user") != user.Id:
				// An endpoint is its owner's until the owner removes it (or
				// the push service says it is gone): nobody takes it over.
				created = false
				return httpapi.Conflict(msgEndpointTaken)
			default:
				created = false
			}
			existing.Set("user", user.Id)
			existing.Set("p256dh", in.p256dh)
			existing.Set("auth", in.auth)
			existing.Set("userAgent", userAgent)
			rec = existing
			if err := txApp.Save(existing); err != nil {
				return err
			}
			return capSubscriptions(txApp, user.Id)
		})
	}
	err = upsert()
	if err != nil && created {
		// Another request inserted the same endpoint first (unique index):
		// it exists now, so update it.
		err = upsert()
	}
	return rec, created, err
}

// stillSignedIn answers 401 when the signed-in user was erased (or
// disabled) after the request's session was read: checked in the write's
// own transaction, so nothing of the user is written after an erasure.
func stillSignedIn(tx core.App, userID string) error {
	if !users.Enabled(tx, userID) {
		return httpapi.Unauthorized(httpapi.MsgUnauthenticated)
	}
	return nil
}

// MaxSubscriptionsPerUser is how many push subscriptions a user keeps; a
// new one beyond it replaces the oldest.
const MaxSubscriptionsPerUser = 10

// capSubscriptions deletes the user's oldest subscriptions beyond
// MaxSubscriptionsPerUser (in the caller's transaction).
func capSubscriptions(app core.App, userID string) error {
	_, err := app.DB().NewQuery(`DELETE FROM ` + colSubscriptions + ` WHERE id IN (
		SELECT id FROM ` + colSubscriptions + ` WHERE user = {:user}
		ORDER BY created DESC, rowid DESC LIMIT -1 OFFSET {:keep})`).
		Bind(dbx.Params{"user": userID, "keep": MaxSubscriptionsPerUser}).Execute()
	return err
}

// keyString reads keys[name] when it is a JSON string ("" otherwise).
func keyString(keys map[string]json.RawMessage, name string) string {
	var s string
	if raw, ok := keys[name]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return strings.TrimSpace(s)
}

// pushUnsubscribe deletes the caller's subscription of an endpoint: 204, or
// 404 when the endpoint is unknown or belongs to someone else.
func pushUnsubscribe(e *core.RequestEvent) error {
	var in struct {
		Endpoint *string `json:"endpoint"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	if in.Endpoint == nil || strings.TrimSpace(*in.Endpoint) == "" {
		return httpapi.FieldError("endpoint", "Es obligatorio")
	}
	endpoint := strings.TrimSpace(*in.Endpoint)
	if text.Chars(endpoint) > MaxEndpointChars {
		return httpapi.FieldError("endpoint", msgEndpointInvalid)
	}
	res, err := e.App.DB().Delete(colSubscriptions, dbx.HashExp{
		"endpoint": endpoint, "user": session.AuthUser(e).Id,
	}).Execute()
	if err != nil {
		return httpapi.Internal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return httpapi.NotFound(msgSubscriptionMissing)
	}
	return e.NoContent(http.StatusNoContent)
}

// pushKeyGet answers the VAPID public key browsers subscribe with.
func pushKeyGet(e *core.RequestEvent) error {
	key, err := PublicKey(e.App)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"publicKey": key})
}
