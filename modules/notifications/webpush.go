package notifications

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Web Push as the service sends it: the payload encrypted per RFC 8291
// (aes128gcm, RFC 8188, one 4096-byte record, padded as webpush-go pads
// it) and a VAPID Authorization header per RFC 8292. The header is a JWT
// signed for the push service's origin (its audience) and valid for
// vapidLifetime; the dispatcher signs one per audience and reuses it until
// vapidRenew before it expires, instead of one ECDSA signature per push
// (a fifth of the CPU of a 10,000-user broadcast went to signing).

// Record layout: 16-byte salt, 4-byte record size, 1-byte key length, the
// 65-byte ephemeral public key; then one record of pushRecordSize bytes
// including the 16-byte AES-GCM tag.
const (
	pushRecordSize = 4096
	pushHeaderSize = 16 + 4 + 1 + 65
)

// VAPID JWT lifetime (RFC 8292 allows at most 24 h) and how long before
// its expiry a cached header is replaced.
const (
	vapidLifetime = 12 * time.Hour
	vapidRenew    = time.Hour
)

// errPayloadTooLarge: the payload does not fit in one record.
var errPayloadTooLarge = errors.New("push: payload too large")

// vapidHeaders caches the signed Authorization header per audience, for
// one dispatcher (keys and subject are part of the key, so a change of
// either signs anew).
type vapidHeaders struct {
	mu      sync.Mutex
	entries map[string]vapidHeader
}

type vapidHeader struct {
	value   string
	renewAt time.Time
}

// header returns the Authorization header for endpoint's origin, signing
// a new JWT when none is cached or the cached one is near its expiry.
func (c *vapidHeaders) header(endpoint, subject string, keys *vapidKeys, now time.Time) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", errors.New("push: endpoint is not an absolute URL")
	}
	aud := u.Scheme + "://" + u.Host
	key := aud + "\x00" + subject + "\x00" + keys.PublicKey + "\x00" + keys.PrivateKey
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.entries[key]; ok && now.Before(h.renewAt) {
		return h.value, nil
	}
	exp := now.Add(vapidLifetime)
	value, err := signVAPID(aud, subject, keys, exp)
	if err != nil {
		return "", err
	}
	if c.entries == nil {
		c.entries = map[string]vapidHeader{}
	}
	for k, h := range c.entries { // forget expired ones (audiences are few)
		if !now.Before(h.renewAt) {
			delete(c.entries, k)
		}
	}
	c.entries[key] = vapidHeader{value: value, renewAt: exp.Add(-vapidRenew)}
	return value, nil
}

// signVAPID is "vapid t=<ES256 JWT {aud, exp, sub}>, k=<public key>".
func signVAPID(aud, subject string, keys *vapidKeys, exp time.Time) (string, error) {
	raw, err := decodeB64URL(keys.PrivateKey)
	if err != nil {
		return "", err
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
	if err != nil {
		return "", err
	}
	claims, _ := json.Marshal(map[string]any{"aud": aud, "exp": exp.Unix(), "sub": subject})
	signing := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString(claims)
	digest := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, priv, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return "vapid t=" + signing + "." + base64.RawURLEncoding.EncodeToString(sig) + ", k=" + keys.PublicKey, nil
}

// decodeSubscriptionKey reads a subscription key in base64url or standard
// base64, with or without padding.
func decodeSubscriptionKey(s string) ([]byte, error) {
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(s)
}

// encryptPush encrypts payload for a subscription (RFC 8291): an
// ephemeral P-256 key agrees a secret with the browser's p256dh key, HKDF
// with the auth secret derives the content key and nonce, and the padded
// payload is sealed in one aes128gcm record.
func encryptPush(payload []byte, p256dh, auth string) ([]byte, error) {
	authSecret, err := decodeSubscriptionKey(auth)
	if err != nil {
		return nil, err
	}
	uaRaw, err := decodeSubscriptionKey(p256dh)
	if err != nil {
		return nil, err
	}
	uaPublic, err := ecdh.P256().NewPublicKey(uaRaw)
	if err != nil {
		return nil, err
	}
	asPrivate, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	asPublic := asPrivate.PublicKey().Bytes()
	secret, err := asPrivate.ECDH(uaPublic)
	if err != nil {
		return nil, err
	}
	info := make([]byte, 0, 14+65+65)
	info = append(append(append(info, "WebPush: info\x00"...), uaRaw...), asPublic...)
	ikm, err := hkdf.Key(sha256.New, secret, authSecret, string(info), 32)
	if err != nil {
		return nil, err
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plainLen := pushRecordSize - 16 - pushHeaderSize
	if len(payload)+1 > plainLen {
		return nil, errPayloadTooLarge
	}
	// One buffer: the header, then the plaintext (payload, the 0x02
	// delimiter, zero padding) sealed in place, then the tag.
	body := make([]byte, pushRecordSize)
	copy(body, salt)
	binary.BigEndian.PutUint32(body[16:20], pushRecordSize)
	body[20] = byte(len(asPublic))
	copy(body[21:], asPublic)
	plain := body[pushHeaderSize : pushHeaderSize+plainLen]
	copy(plain, payload)
	plain[len(payload)] = 2
	gcm.Seal(plain[:0], nonce, plain, nil) // fills the rest of body, tag included
	return body, nil
}

// pushRequest is one encrypted push to one subscription.
type pushRequest struct {
	Body    []byte // the payload encrypted for Sub (encryptors)
	Sub     subscription
	TTL     int
	Urgency string
	Topic   string
}

// sendPush posts one encrypted push with client, signed with the cached
// VAPID header of the endpoint's origin.
func (d *dispatcher) sendPush(ctx context.Context, client *http.Client, p pushRequest, keys *vapidKeys, subject string) (*http.Response, error) {
	body := p.Body
	auth, err := d.vapidHeaders.header(p.Sub.Endpoint, subject, keys, time.Now())
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Sub.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Encoding", "aes128gcm")
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("TTL", strconv.Itoa(p.TTL))
	if p.Topic != "" {
		req.Header.Set("Topic", p.Topic)
	}
	if p.Urgency != "" {
		req.Header.Set("Urgency", p.Urgency)
	}
	req.Header.Set("Authorization", auth)
	return client.Do(req)
}
