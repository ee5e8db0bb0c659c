// Package pushtest holds what a Web Push subscriber does that tests and the
// benchmark need on their receiving side: opening a payload as a browser
// does. It is not used by the service.
package pushtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// Decrypt opens an aes128gcm Web Push message (RFC 8188 + RFC 8291) with
// the subscriber's P-256 private key and 16-byte authentication secret, the
// way a browser does, returning the plaintext without padding.
func Decrypt(priv *ecdh.PrivateKey, auth, body []byte) ([]byte, error) {
	// RFC 8188 header: salt(16) | rs(4) | idlen(1) | keyid(idlen)
	if len(body) < 21 {
		return nil, errors.New("body shorter than the header")
	}
	salt := body[:16]
	rs := binary.BigEndian.Uint32(body[16:20])
	idLen := int(body[20])
	if len(body) < 21+idLen {
		return nil, errors.New("truncated key id")
	}
	asPublicRaw := body[21 : 21+idLen] // the service's ephemeral public key
	ciphertext := body[21+idLen:]
	if rs < 18 || uint32(len(ciphertext)) > rs {
		return nil, fmt.Errorf("expected one record of at most rs=%d bytes, got %d", rs, len(ciphertext))
	}
	asPublic, err := ecdh.P256().NewPublicKey(asPublicRaw)
	if err != nil {
		return nil, fmt.Errorf("ephemeral key: %w", err)
	}
	ecdhSecret, err := priv.ECDH(asPublic)
	if err != nil {
		return nil, err
	}
	// RFC 8291 §3.3: IKM from the ECDH secret and the auth secret.
	prkKey, err := hkdf.Extract(sha256.New, ecdhSecret, auth)
	if err != nil {
		return nil, err
	}
	keyInfo := "WebPush: info\x00" + string(priv.PublicKey().Bytes()) + string(asPublicRaw)
	ikm, err := hkdf.Expand(sha256.New, prkKey, keyInfo, 32)
	if err != nil {
		return nil, err
	}
	// RFC 8188 §2.2/2.3: content encryption key and nonce.
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
	plain, err := gcm.Open(nil, nonce, ciphertext, nil) // single record: sequence 0
	if err != nil {
		return nil, fmt.Errorf("aes-gcm: %w", err)
	}
	// Last record: data | 0x02 | zero padding.
	end := len(plain) - 1
	for end >= 0 && plain[end] == 0 {
		end--
	}
	if end < 0 || plain[end] != 0x02 {
		return nil, errors.New("missing 0x02 padding delimiter of the last record")
	}
	return plain[:end], nil
}

// Notice reads a decrypted payload as the service worker (and Safari's
// Declarative Web Push) reads it: a JSON object with "web_push": 8030 and
// a notification whose title is not empty and whose navigate is an
// absolute http(s) URL. It answers the notification's text members
// (title, body, navigate, lang, dir, tag) and its data's (kind, id, url)
// in one flat map.
func Notice(plain []byte) (map[string]string, error) {
	var p struct {
		WebPush      *int `json:"web_push"`
		Notification *struct {
			Title    string         `json:"title"`
			Body     string         `json:"body"`
			Navigate string         `json:"navigate"`
			Lang     string         `json:"lang"`
			Dir      string         `json:"dir"`
			Tag      string         `json:"tag"`
			Data     map[string]any `json:"data"`
		} `json:"notification"`
	}
	if err := json.Unmarshal(plain, &p); err != nil {
		return nil, fmt.Errorf("payload is not JSON: %w", err)
	}
	if p.WebPush == nil || *p.WebPush != 8030 {
		return nil, errors.New(`payload without "web_push": 8030`)
	}
	n := p.Notification
	if n == nil || n.Title == "" {
		return nil, errors.New("payload without a notification title")
	}
	if u, err := url.Parse(n.Navigate); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("navigate %q is not an absolute URL", n.Navigate)
	}
	out := map[string]string{"title": n.Title, "body": n.Body, "navigate": n.Navigate, "lang": n.Lang, "dir": n.Dir, "tag": n.Tag}
	for _, k := range []string{"kind", "id", "url"} {
		s, _ := n.Data[k].(string)
		out[k] = s
	}
	return out, nil
}

// Into is Notice decoded into dst (a map of strings or of any values).
func Into(plain []byte, dst any) error {
	m, err := Notice(plain)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(m)
	return json.Unmarshal(raw, dst)
}
