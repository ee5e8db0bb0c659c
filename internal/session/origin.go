package session

import (
	"camellos/internal/config"
	"camellos/internal/httpapi"

	"net/http"
	"net/url"
	"strings"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// MsgForeignOrigin answers a cookie-authenticated write sent from another site.
const MsgForeignOrigin = "Origen no permitido"

// CheckOrigin is the global middleware against cross-site request forgery:
// an unsafe request (POST, PUT, PATCH, DELETE) that carries the session
// cookie and an Origin header naming another site than the request's own
// host or APP_URL is refused 403 in our envelope. Requests without an Origin
// header (curl, mobile apps, server-to-server) and safe methods pass; so do
// requests without the cookie, which carry no ambient authority.
func CheckOrigin() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosCheckOrigin",
		Priority: apis.DefaultSecurityHeadersMiddlewarePriority + 2, // after SecurityHeaders: the 403 carries them too
		Func: func(e *core.RequestEvent) error {
			r := e.Request
			if !unsafeMethod(r.Method) || SessionToken(r) == "" {
				return e.Next()
			}
			origin, ok := r.Header["Origin"]
			if !ok || len(origin) == 0 {
				return e.Next()
			}
			if !SameOrigin(origin[0], r.Host, config.Of(e.App).AppURL) {
				return httpapi.WriteError(e, httpapi.Forbidden(MsgForeignOrigin))
			}
			return e.Next()
		},
	}
}

func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// SameOrigin reports whether the Origin header value names the request's own
// host (any scheme) or the configured public base URL (scheme and host).
// "null", an empty or unparsable origin is foreign.
func SameOrigin(origin, host, appURL string) bool {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if host != "" && strings.EqualFold(u.Host, host) {
		return true
	}
	if appURL != "" {
		a, err := url.Parse(appURL)
		if err == nil && a.Host != "" && strings.EqualFold(a.Scheme, u.Scheme) && strings.EqualFold(a.Host, u.Host) {
			return true
		}
	}
	return false
}
