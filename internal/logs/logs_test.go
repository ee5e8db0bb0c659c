package logs

import "testing"

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"GET /api/agenda/calendar/abcDEF123_-x.ics":               "GET /api/agenda/calendar/[REDACTED]",
		"POST /api/agenda/calendar/rotate":                        "POST /api/agenda/calendar/rotate",
		"https://c.example/restablecer.html?token=abc123&x=1":     "https://c.example/restablecer.html?token=[REDACTED]&x=1",
		"/verificar.html?a=1&token=zzz#frag":                      "/verificar.html?a=1&token=[REDACTED]#frag",
		"/api/files/c/r/f.png?thumb=100x100&token=eyJhbGciOi.x.y": "/api/files/c/r/f.png?thumb=100x100&token=[REDACTED]",
		"/x?access_key=k1&X-Amz-Signature=s2&code=c3":             "/x?access_key=[REDACTED]&X-Amz-Signature=[REDACTED]&code=[REDACTED]",
		"cookie auth.session-token=s3cr3t; other=1":               "cookie auth.session-token=[REDACTED]; other=1",
		"Authorization: Bearer abc.def":                           "Authorization: Bearer [REDACTED]",
		"GET /api/camellos?page=2&perPage=20":                     "GET /api/camellos?page=2&perPage=20",
		"backup created":                                          "backup created",
		"/ingresar.html?next=%2Fagenda.html":                      "/ingresar.html?next=%2Fagenda.html",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
