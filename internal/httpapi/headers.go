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
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
			if strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/uploads/") {
				h.Set("Content-Security-Policy", CSPAPI)
			} else {
				h.Set("Content-Security-Policy", CSPPage)
			}
			return e.Next()
		},
	}
}
