package session

import "github.com/pocketbase/pocketbase/core"

// Valid reports whether a session token is still valid now: not revoked
// nor expired, its user enabled and its password unchanged. It reads
// through the session cache, which every revocation drops at once, so a
// long-lived answer (the live events stream) can check it often and cheaply.
func Valid(app core.App, token string) bool {
	if token == "" || len(token) > 100 {
		return false
	}
	return lookupSession(app, hashToken(token)) != nil
}
