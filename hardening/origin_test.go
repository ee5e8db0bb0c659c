package hardening_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"camellos/hardening"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"
)

// TestForeignOriginRefused: a cookie-authenticated unsafe request from
// another site is refused 403 in the envelope, whatever the route; the same
// request without Origin, from the service's own origin or from APP_URL
// passes; safe methods and cookie-less requests are never refused.
func TestForeignOriginRefused(t *testing.T) {
	t.Setenv("APP_URL", "https://camellos.example.co")
	k := testkit.New(t)
	_, cookie := k.UserWithSession(users.RoleClient)
	own := k.URL // http://127.0.0.1:PORT

	cases := []struct {
		name   string
		method string
		path   string
		cookie string
		origin string // "-" = no Origin header
		want   int    // 403, or 0 for "not refused by the origin check"
	}{
		{"foreign POST with cookie", "POST", "/api/auth/logout", cookie, "https://evil.example", 403},
		{"foreign PATCH with cookie", "PATCH", "/api/me", cookie, "http://evil.example:8090", 403},
		{"foreign PUT with cookie", "PUT", "/api/notifications/preferences", cookie, "https://camellos.example.co.evil.example", 403},
		{"foreign DELETE with cookie", "DELETE", "/api/notifications/push/subscribe", cookie, "https://evil.example", 403},
		{"null origin with cookie", "POST", "/api/auth/logout", cookie, "null", 403},
		{"APP_URL with other scheme", "POST", "/api/auth/logout", cookie, "http://camellos.example.co", 403},
		{"foreign POST to an unknown route", "POST", "/api/nada", cookie, "https://evil.example", 403},
		{"no Origin (curl, apps)", "PATCH", "/api/me", cookie, "-", 0},
		{"own origin", "PATCH", "/api/me", cookie, own, 0},
		{"APP_URL origin", "PATCH", "/api/me", cookie, "https://camellos.example.co", 0},
		{"foreign GET with cookie", "GET", "/api/me", cookie, "https://evil.example", 0},
		{"foreign POST without cookie", "POST", "/api/auth/login", "", "https://evil.example", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := map[string]string{}
			if c.origin != "-" {
				h["Origin"] = c.origin
			}
			var body any
			if c.method != "GET" {
				body = map[string]any{}
			}
			res := k.Do(testkit.Req{Method: c.method, Path: c.path, Cookie: c.cookie, Headers: h, Body: body})
			if c.want == 403 {
				if res.Status != http.StatusForbidden || res.Error() != session.MsgForeignOrigin {
					t.Fatalf("got %d %s, want 403 %q", res.Status, res.Raw, session.MsgForeignOrigin)
				}
				if _, ok := res.JSON["issues"]; !ok {
					t.Fatalf("not our envelope: %s", res.Raw)
				}
				if res.Header.Get("X-Content-Type-Options") != "nosniff" {
					t.Fatalf("refusal without security headers")
				}
				return
			}
			if res.Status == http.StatusForbidden && res.Error() == session.MsgForeignOrigin {
				t.Fatalf("refused by the origin check: %s", res.Raw)
			}
		})
	}
	// The session survived every refused logout.
	if res := k.Get("/api/me", cookie); res.Status == http.StatusUnauthorized {
		t.Fatalf("a refused foreign logout ended the session")
	}
}

func TestSameOrigin(t *testing.T) {
	cases := []struct {
		origin, host, app string
		want              bool
	}{
		{"http://127.0.0.1:8090", "127.0.0.1:8090", "", true},
		{"https://127.0.0.1:8090", "127.0.0.1:8090", "", true},
		{"https://app.co", "10.0.0.1:8090", "https://app.co", true},
		{"https://APP.co", "10.0.0.1:8090", "https://app.co/", true},
		{"http://app.co", "10.0.0.1:8090", "https://app.co", false},
		{"https://app.co.evil.com", "app.co", "https://app.co", false},
		{"null", "app.co", "", false},
		{"", "app.co", "", false},
		{"file://app.co", "app.co", "", false},
		{"javascript:alert(1)", "app.co", "", false},
		{"http://app.co:81", "app.co", "", false},
	}
	for _, c := range cases {
		if got := session.SameOrigin(c.origin, c.host, c.app); got != c.want {
			t.Errorf("SameOrigin(%q, %q, %q) = %v, want %v", c.origin, c.host, c.app, got, c.want)
		}
	}
}

// TestSecurityHeaders: every answer of ours, success or error, JSON or page,
// carries nosniff, no framing, a referrer policy and a CSP.
func TestSecurityHeaders(t *testing.T) {
	k := testkit.New(t)
	_, cookie := k.UserWithSession(users.RoleClient)
	for _, c := range []struct{ path, cookie, csp string }{
		{"/api/health", "", httpapi.CSPAPI},
		{"/api/docs/openapi.json", "", httpapi.CSPAPI},
		{"/api/me", "", httpapi.CSPAPI},
		{"/api/me", cookie, httpapi.CSPAPI},
		{"/api/camellos/%20", "", httpapi.CSPAPI},
		{"/api/nada", "", httpapi.CSPAPI},
		{"/", "", httpapi.CSPPage},
		{"/uploads/camellos/nada.png", "", ""},
	} {
		res := k.Get(c.path, c.cookie)
		h := res.Header
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("Referrer-Policy") != "strict-origin-when-cross-origin" || h.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s (%d): headers %v", c.path, res.Status, h)
		}
		if c.csp != "" && h.Get("Content-Security-Policy") != c.csp {
			t.Errorf("GET %s: CSP %q, want %q", c.path, h.Get("Content-Security-Policy"), c.csp)
		}
	}
}

func registration(file string, content []byte) *testkit.Multipart {
	return testkit.NewMultipart().
		Field("name", "Camello Foto").Field("email", "foto"+hardening.Unique()+"@example.com").
		Field("phone", "3001234567").Field("password", "secreto-123").Field("confirmPassword", "secreto-123").
		Field("acceptTerms", "true").Field("city", "Bogotá").Field("trades", `["pintura"]`).
		File("file", file, content).Close()
}

// TestUploadsNeverServedAsHTML: an "image" with HTML content is refused at
// registration, and a real photo is served as an image with nosniff.
func TestUploadsNeverServedAsHTML(t *testing.T) {
	k := testkit.New(t)
	before := k.Count("users", "")
	html := []byte("<!doctype html><html><body><script>alert(document.cookie)</script></body></html>")
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)
	for name, content := range map[string][]byte{"foto.png": html, "foto.html": html, "foto.jpg": svg, "foto.webp": append([]byte("GIF89a"), html...)} {
		res := k.Post("/api/register/camello", "", registration(name, content))
		if res.Status != http.StatusBadRequest || len(res.FieldErrors("file")) == 0 {
			t.Errorf("%s with HTML content: %d %s, want 400 on file", name, res.Status, res.Raw)
		}
	}
	if n := k.Count("users", ""); n != before {
		t.Fatalf("a refused registration created %d users", n-before)
	}
	res := k.Post("/api/register/camello", "", registration("foto.html", testkit.PNG(t)))
	if res.Status != http.StatusCreated {
		t.Fatalf("registration with a PNG: %d %s", res.Status, res.Raw)
	}
	photo := res.Str("camello.photo")
	if !strings.HasPrefix(photo, "/uploads/camellos/") || strings.HasSuffix(photo, ".html") {
		t.Fatalf("photo path %q", photo)
	}
	// The camello is PENDIENTE: its photo is not public (issue 14), an admin reads it.
	_, admin := k.UserWithSession(users.RoleAdmin)
	got := k.Get(photo, admin)
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "image/png" ||
		got.Header.Get("X-Content-Type-Options") != "nosniff" || !bytes.Equal(got.Raw, testkit.PNG(t)) {
		t.Fatalf("GET %s: %d %v", photo, got.Status, got.Header)
	}
	if csp := got.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("photo CSP %q", csp)
	}
}
