package httpapi

import (
	"strings"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Content-Security-Policy values of our responses.
const (
	// CSPAPI locks down JSON answers and uploaded files: nothing in them may
	// load, run or be framed, even if a browser were tricked into rendering them.
	CSPAPI = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; sandbox"
	// CSPPage is for the pages of the web front: same-origin scripts, styles
	// and images only, never framed.
	CSPPage = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)

// The header values, each a full one-element slice (see SecurityHeaders).
var (
	hdrNosniff     = []string{"nosniff"}
	hdrDeny        = []string{"DENY"}
	hdrReferrer    = []string{"strict-origin-when-cross-origin"}
	hdrCOOP        = []string{"same-origin"}
	hdrPermissions = []string{"camera=(), microphone=(), geolocation=(self)"} // "cerca de mí" asks the position on our own pages only
	hdrCSPAPI      = []string{CSPAPI}
	hdrCSPPage     = []string{CSPPage}
	hdrNoStore     = []string{"no-store"}
)

// SecurityHeaders is the global middleware that sets the security headers of
// every answer of ours: nosniff, no framing, a strict referrer policy and a
// Content-Security-Policy (CSPAPI under /api and /uploads, CSPPage for
// pages). PocketBase's dashboard (/_/) keeps its own headers. A handler may
// replace the CSP of its answer (e.g. the docs page).
func SecurityHeaders() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosSecurityHeaders",
		Priority: apis.DefaultSecurityHeadersMiddlewarePriority + 1, // after PocketBase's own, so ours win
		Func: func(e *core.RequestEvent) error {
			path := e.Request.URL.Path
			if strings.HasPrefix(path, "/_/") || path == "/_" {
				return e.Next()
			}
			h := e.Response.Header()
			// Canonical keys and shared one-value slices: no allocation per
			// answer (a later Set replaces a slice, an Add copies it).
			h["X-Content-Type-Options"] = hdrNosniff
			h["X-Frame-Options"] = hdrDeny
			h["Referrer-Policy"] = hdrReferrer
			h["Cross-Origin-Opener-Policy"] = hdrCOOP
			h["Permissions-Policy"] = hdrPermissions
			if strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/uploads/") {
				h["Content-Security-Policy"] = hdrCSPAPI
			} else {
				h["Content-Security-Policy"] = hdrCSPPage
			}
			return e.Next()
		},
	}
}
