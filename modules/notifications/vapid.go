package notifications

import (
	"crypto/ecdh"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"camellos/internal/config"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// DefaultVAPIDSubject is the contact URI sent to push services when
// VAPID_SUBJECT is not set.
const DefaultVAPIDSubject = "mailto:soporte@camellos.co"

// vapidKVKey is the app_kv key holding the generated VAPID key pair.
const vapidKVKey = "vapid_keys"

// vapidKeys is the service's Web Push identity, base64url without padding:
// the 65-byte uncompressed P-256 public point and the 32-byte private scalar.
type vapidKeys struct {
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
}

// decodeB64URL reads base64url with or without padding.
func decodeB64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// keysFromPrivate derives the key pair of a private scalar.
func keysFromPrivate(priv []byte) (*vapidKeys, error) {
	k, err := ecdh.P256().NewPrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return &vapidKeys{
		PublicKey:  base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes()),
		PrivateKey: base64.RawURLEncoding.EncodeToString(k.Bytes()),
	}, nil
}

func generateVAPIDKeys() (*vapidKeys, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return keysFromPrivate(k.Bytes())
}

// envVAPIDKeys reads VAPID_PUBLIC_KEY / VAPID_PRIVATE_KEY; nil when unset.
// The public key is derived from the private one, so a mismatched pair is
// corrected (and logged).
func envVAPIDKeys(app core.App) *vapidKeys {
	cfg := config.Of(app)
	pub, priv := cfg.VAPIDPublicKey, cfg.VAPIDPrivateKey
	if pub == "" && priv == "" {
		return nil
	}
	if pub == "" || priv == "" {
		app.Logger().Error("notifications: set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY; using the stored keys")
		return nil
	}
	raw, err := decodeB64URL(priv)
	var keys *vapidKeys
	if err == nil {
		keys, err = keysFromPrivate(raw)
	}
	if err != nil {
		app.Logger().Error("notifications: VAPID_PRIVATE_KEY is not a base64url P-256 private key; using the stored keys")
		return nil
	}
	if given, err := decodeB64URL(pub); err != nil || base64.RawURLEncoding.EncodeToString(given) != keys.PublicKey {
		app.Logger().Error("notifications: VAPID_PUBLIC_KEY does not match VAPID_PRIVATE_KEY; using the key derived from the private one")
	}
	return keys
}

// vapidKeysOf returns the VAPID keys: from the environment, or generated
// once and stored in app_kv. Concurrent first calls (even from several
// processes) agree on one pair: the insert is guarded by the unique key
// index and the loser reads the winner's pair.
func (d *dispatcher) vapidKeysOf() (*vapidKeys, error) {
	d.vapidMu.Lock()
	defer d.vapidMu.Unlock()
	if d.vapid != nil {
		return d.vapid, nil
	}
	if keys := envVAPIDKeys(d.app); keys != nil {
		d.vapid = keys
		return keys, nil
	}
	keys, err := storedVAPIDKeys(d.app)
	if err != nil {
		return nil, err
	}
	d.vapid = keys
	return keys, nil
}

func storedVAPIDKeys(app core.App) (*vapidKeys, error) {
	read := func() (*vapidKeys, error) {
		var row struct {
			Value string `db:"value"`
		}
		err := app.DB().Select("value").From(colKV).Where(dbx.HashExp{"key": vapidKVKey}).Limit(1).One(&row)
		if err != nil {
			return nil, err
		}
		var keys vapidKeys
		if err := json.Unmarshal([]byte(row.Value), &keys); err != nil {
			return nil, err
		}
		raw, err := decodeB64URL(keys.PrivateKey)
		if err != nil {
			return nil, err
		}
		return keysFromPrivate(raw)
	}
	keys, err := read()
	if err == nil {
		return keys, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	fresh, err := generateVAPIDKeys()
	if err != nil {
		return nil, err
	}
	value, _ := json.Marshal(fresh)
	col, err := app.FindCachedCollectionByNameOrId(colKV)
	if err != nil {
		return nil, err
	}
	rec := core.NewRecord(col)
	rec.Set("key", vapidKVKey)
	rec.Set("value", string(value))
	if err := app.Save(rec); err != nil {
		// Most likely another caller stored its pair first: use that one.
		if keys, rerr := read(); rerr == nil {
			return keys, nil
		}
		return nil, err
	}
	return fresh, nil
}

// PublicKey returns the app's VAPID public key (base64url, no padding),
// generating and storing the pair on first use.
func PublicKey(app core.App) (string, error) {
	d := dispatcherOf(app)
	if d == nil {
		return "", errors.New("notifications module not registered")
	}
	keys, err := d.vapidKeysOf()
	if err != nil {
		return "", err
	}
	return keys.PublicKey, nil
}

// vapidSubject is the contact URI of the VAPID JWT: VAPID_SUBJECT (already
// normalized and checked to be a real mailto: or https: contact when the
// configuration was loaded: a bad one stops the service at start) or the
// default.
func vapidSubject(app core.App) string {
	if s := config.Of(app).VAPIDSubject; s != "" {
		return s
	}
	return DefaultVAPIDSubject
}
