package notifications

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"sort"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Delivery channels of a notification.
const (
	ChannelInApp = "inApp"
	ChannelPush  = "push"
	ChannelEmail = "email"
	// ChannelWhatsApp: the template message of the kind, to the user's
	// confirmed WhatsApp number (only the kinds whatsapp.Handles; nothing
	// goes out before the number is confirmed).
	ChannelWhatsApp = "whatsapp"
)

// Channels lists every channel a preference can switch.
var Channels = []string{ChannelInApp, ChannelPush, ChannelEmail, ChannelWhatsApp}

// offers reports whether kind goes out on channel at all: WhatsApp carries
// only the kinds with a template.
func offers(kind, channel string) bool {
	return channel != ChannelWhatsApp || whatsapp.Handles(kind)
}

// critical tells, per kind, the channels that cannot be switched off.
var critical = map[string][]string{
	KindAppointmentReminder: {ChannelInApp},
}

func isCritical(kind, channel string) bool {
	for _, c := range critical[kind] {
		if c == channel {
			return true
		}
	}
	return false
}

func isChannel(channel string) bool {
	for _, c := range Channels {
		if c == channel {
			return true
		}
	}
	return false
}

// msgNotOnWhatsApp refuses the whatsapp switch of a kind without a template.
const msgNotOnWhatsApp = "Este aviso no se envía por WhatsApp"

// Preferences are a user's choices per kind and channel; what is not stored
// is on (every channel of every kind starts switched on).
type Preferences map[string]map[string]bool

// allows reports whether a notification of kind goes out on channel.
func (p Preferences) allows(kind, channel string) bool {
	if !offers(kind, channel) {
		return false
	}
	if isCritical(kind, channel) {
		return true
	}
	on, ok := p[kind][channel]
	return !ok || on
}

// full returns the whole matrix kind × channel with defaults filled in
// (the channels a kind goes out on: whatsapp only for its kinds).
func (p Preferences) full() Preferences {
	out := Preferences{}
	for _, k := range Kinds {
		out[k] = map[string]bool{}
		for _, c := range Channels {
			if !offers(k, c) {
				continue
			}
			out[k][c] = p.allows(k, c)
		}
	}
	return out
}

// loadPreferences reads a user's stored preferences (empty when none).
func loadPreferences(app core.App, userID string) (Preferences, error) {
	var row struct {
		Prefs string `db:"prefs"`
	}
	err := app.DB().Select("prefs").From(colPreferences).
		Where(dbx.HashExp{"user": userID}).Limit(1).One(&row)
	if errors.Is(err, sql.ErrNoRows) {
		return Preferences{}, nil
	}
	if err != nil {
		return nil, err
	}
	prefs := Preferences{}
	if row.Prefs != "" && row.Prefs != "null" {
		if err := json.Unmarshal([]byte(row.Prefs), &prefs); err != nil {
			return Preferences{}, nil // unreadable: defaults
		}
	}
	return prefs, nil
}

// preferencesGet answers the caller's full preference matrix.
func preferencesGet(e *core.RequestEvent) error {
	prefs, err := loadPreferences(e.App, session.AuthUser(e).Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"preferences": prefs.full()})
}

// preferencesPut merges the given kinds and channels into the caller's
// preferences (what is not sent keeps its value) and answers the full matrix.
func preferencesPut(e *core.RequestEvent) error {
	var in struct {
		Preferences map[string]json.RawMessage `json:"preferences"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	changes, err := parsePreferences(in.Preferences)
	if err != nil {
		return err
	}
	userID := session.AuthUser(e).Id
	var merged Preferences
	err = writer.Transaction(e.App, func(txApp core.App) error {
		if err := stillSignedIn(txApp, userID); err != nil {
			return err
		}
		rec, err := txApp.FindFirstRecordByData(colPreferences, "user", userID)
		if errors.Is(err, sql.ErrNoRows) {
			col, err := txApp.FindCachedCollectionByNameOrId(colPreferences)
			if err != nil {
				return err
			}
			rec = core.NewRecord(col)
			rec.Set("user", userID)
		} else if err != nil {
			return err
		}
		current := Preferences{}
		_ = rec.UnmarshalJSONField("prefs", &current) // unreadable: start over
		if current == nil {
			current = Preferences{}
		}
		for kind, chans := range changes {
			if current[kind] == nil {
				current[kind] = map[string]bool{}
			}
			for c, on := range chans {
				current[kind][c] = on
			}
		}
		rec.Set("prefs", current)
		merged = current
		return txApp.Save(rec)
	})
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"preferences": merged.full()})
}

// parsePreferences validates a preferences object: known kinds, known
// channels, boolean values, and no critical channel switched off.
func parsePreferences(raw map[string]json.RawMessage) (Preferences, error) {
	v := httpapi.NewValidation()
	if raw == nil {
		v.Add("preferences", "Es obligatorio")
		return nil, v.Err()
	}
	out := Preferences{}
	for _, kind := range sortedKeys(raw) {
		field := "preferences." + kind
		if !isKind(kind) {
			v.Add(field, "Tipo de notificación desconocido")
			continue
		}
		var chans map[string]json.RawMessage
		if err := json.Unmarshal(raw[kind], &chans); err != nil || chans == nil {
			v.Add(field, "Debe ser un objeto")
			continue
		}
		out[kind] = map[string]bool{}
		for _, c := range sortedKeys(chans) {
			cf := field + "." + c
			if !isChannel(c) {
				v.Add(cf, "Canal desconocido")
				continue
			}
			if !offers(kind, c) {
				v.Add(cf, msgNotOnWhatsApp)
				continue
			}
			val := bytes.TrimSpace(chans[c])
			on := string(val) == "true"
			if !on && string(val) != "false" {
				v.Add(cf, "Debe ser verdadero o falso")
				continue
			}
			if !on && isCritical(kind, c) {
				v.Add(cf, "Este aviso no se puede desactivar")
				continue
			}
			out[kind][c] = on
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// sortedKeys returns a map's keys in order, for stable error messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
