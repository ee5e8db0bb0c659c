package users

import (
	"crypto/sha256"
	"encoding/base64"

	"github.com/pocketbase/pocketbase/core"
)

// Passwords are honoured in full up to 128 characters, but bcrypt (and so
// PocketBase's password field) reads at most 72 bytes. Every path that sets
// or checks a password derives a fixed 44-byte value first, so no part of a
// long password is silently ignored.
func derivePassword(plain string) string {
	sum := sha256.Sum256([]byte(plain))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// SetPassword stores plain as the user's password (derived, then bcrypt).
func SetPassword(user *core.Record, plain string) {
	user.SetPassword(derivePassword(plain))
}

// CheckPassword reports whether plain is the user's password.
func CheckPassword(user *core.Record, plain string) bool {
	return user.ValidatePassword(derivePassword(plain))
}
