package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"
	"camellos/modules/web"
)

// TestFormsWithoutJavaScript (issue 24, defect 8): a form sent without
// JavaScript is not wiped. Sign-in and publishing are done through their
// JSON routes (same answers, quotas and cookies); a refusal answers the page
// with the route's status, what was typed kept (never the password) and the
// Spanish errors beside their fields; any other form answers its page with
// what was typed and a notice. The JSON routes answer as before.
func TestFormsWithoutJavaScript(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	k.Client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// No service yet: the select says so (never "Cargando servicios…",
	// which no script would replace).
	if n := k.Count("services", ""); n != 0 {
		t.Fatalf("a new service has %d services", n)
	}
	if p := string(k.Get("/publicar.html", "").Raw); !strings.Contains(p, web.MsgNoServicesYet) || strings.Contains(p, "Cargando servicios") {
		t.Errorf("publicar.html without services does not say so")
	}
	svc := k.CreateService()
	email := "nojs" + testkit.Unique() + "@example.com"
	user := k.CreateUser(users.RoleClient, testkit.UserOpts{Email: email})
	form := func(path, cookie string, v url.Values) *testkit.Response {
		return k.Do(testkit.Req{Method: http.MethodPost, Path: path, Body: v.Encode(), Cookie: cookie,
			Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": k.URL}})
	}
	sessionOf := func(r *testkit.Response) string {
		for _, c := range (&http.Response{Header: r.Header}).Cookies() {
			if c.Name == session.SessionCookie && c.Value != "" {
				return c.Value
			}
		}
		return ""
	}

	// Sign-in: a wrong password, then an empty e-mail, then the right one.
	for _, tc := range []struct {
		name, email, password string
		status                int
		shows, field          string
	}{
		{"wrong password", email, "no-es-la-clave", http.StatusUnauthorized, "Credenciales inválidas", ""},
		{"no e-mail", "", "secreto-123", http.StatusBadRequest, "Datos inválidos", "err-email"},
	} {
		r := form("/ingresar.html?next=/publicar.html", "", url.Values{"email": {tc.email}, "password": {tc.password}})
		page := string(r.Raw)
		if r.Status != tc.status || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", tc.name, r.Status, r.Header.Get("Content-Type"))
		}
		if !strings.Contains(page, `id="alert" role="alert" tabindex="-1">`+tc.shows) {
			t.Errorf("%s: the alert does not say %q", tc.name, tc.shows)
		}
		if tc.email != "" && !strings.Contains(page, `value="`+tc.email+`"`) {
			t.Errorf("%s: the e-mail was wiped", tc.name)
		}
		if strings.Contains(page, tc.password) {
			t.Errorf("%s: the password is echoed in the page", tc.name)
		}
		if tc.field != "" && !strings.Contains(page, `id="`+tc.field+`">`) || tc.field != "" && strings.Contains(page, `id="`+tc.field+`"></p>`) {
			t.Errorf("%s: no error beside the field %s", tc.name, tc.field)
		}
		if sessionOf(r) != "" {
			t.Errorf("%s: a refused sign-in set a session", tc.name)
		}
	}
	r := form("/ingresar.html?next=/publicar.html", "", url.Values{"email": {email}, "password": {testkit.DefaultPassword}})
	cookie := sessionOf(r)
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/publicar.html" || cookie == "" {
		t.Fatalf("sign-in: %d %v", r.Status, r.Header)
	}
	if me := k.Get("/api/me", cookie); me.Str("user.id") != user.Id {
		t.Fatalf("the no-JS session is not the user's: %s", me.Raw)
	}
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example"} {
		r := form("/ingresar.html?next="+url.QueryEscape(next), "", url.Values{"email": {email}, "password": {testkit.DefaultPassword}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/" {
			t.Errorf("next %q: %d %q", next, r.Status, r.Header.Get("Location"))
		}
	}

	// Publishing: the services are in the page without JavaScript, with
	// whatever conditional headers the browser sends with the page's GET.
	for _, h := range []map[string]string{nil, {"If-None-Match": `"abc"`, "If-Modified-Since": "Fri, 27 Nov 2026 10:00:00 GMT", "Cache-Control": "max-age=0"}} {
		r := k.Do(testkit.Req{Method: http.MethodGet, Path: "/publicar.html", Cookie: cookie, Headers: h})
		if r.Status != http.StatusOK || !strings.Contains(string(r.Raw), `<option value="`+svc.Id+`">`) {
			t.Fatalf("publicar.html lists no service without JavaScript (headers %v): %d", h, r.Status)
		}
	}
	typed := url.Values{"title": {"ab"}, "serviceId": {svc.Id}, "description": {"Dos paredes <con> humedad"}, "city": {"Bogotá"},
		"neighborhood": {"Chapinero"}, "address": {"Calle 45 # 12-30"}}
	r = form("/publicar.html", cookie, typed)
	page := string(r.Raw)
	if r.Status != http.StatusBadRequest {
		t.Fatalf("short title: %d", r.Status)
	}
	for _, want := range []string{`value="ab"`, `Dos paredes &lt;con&gt; humedad</textarea>`, `value="Bogotá"`, `value="Chapinero"`,
		`value="Calle 45 # 12-30"`, `<option value="` + svc.Id + `" selected>`, `id="err-title">`, `aria-invalid="true"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the refused job's page lacks %s", want)
		}
	}
	if strings.Contains(page, `id="err-title"></p>`) {
		t.Error("no error beside the title")
	}
	if n := k.Count("jobs", "city = 'Bogotá'"); n != 0 {
		t.Fatalf("a refused job was saved (%d)", n)
	}
	// Without a session: said, typed values kept.
	typed.Set("title", "Pintar la sala")
	r = form("/publicar.html", "", typed)
	if r.Status != http.StatusUnauthorized || !strings.Contains(string(r.Raw), "Ingresa para publicar") || !strings.Contains(string(r.Raw), `value="Pintar la sala"`) {
		t.Errorf("publishing without a session: %d", r.Status)
	}
	r = form("/publicar.html", cookie, typed)
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/trabajo.html?id=") {
		t.Fatalf("publish: %d %v %s", r.Status, r.Header, r.Raw)
	}
	job, err := k.App.FindRecordById("jobs", strings.TrimPrefix(r.Header.Get("Location"), "/trabajo.html?id="))
	if err != nil || job.GetString("title") != "Pintar la sala" || job.GetString("client") != user.Id || job.GetString("address") != "Calle 45 # 12-30" {
		t.Fatalf("the published job: %v %v", job, err)
	}

	// Any other form: its page, what was typed kept, the notice.
	r = form("/registro.html", "", url.Values{"name": {"Marta Sin JS"}, "email": {"marta@example.com"}, "password": {"Clave-secreta-1"}})
	page = string(r.Raw)
	if r.Status != http.StatusOK || !strings.Contains(page, web.MsgNeedsJS) || !strings.Contains(page, `value="Marta Sin JS"`) || strings.Contains(page, "Clave-secreta-1") {
		t.Errorf("another form without JavaScript: %d", r.Status)
	}

	// The JSON routes answer as before.
	if j := k.Post("/api/auth/login", "", map[string]any{"email": email, "password": "no-es"}); j.Status != http.StatusUnauthorized ||
		!strings.HasPrefix(j.Header.Get("Content-Type"), "application/json") || j.Error() != "Credenciales inválidas" {
		t.Errorf("the JSON sign-in changed: %d %s", j.Status, j.Raw)
	}
}
