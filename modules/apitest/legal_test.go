package apitest_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/legal"
	"camellos/modules/users"
)

// hasFieldError looks a field up in issues.fieldErrors (names may hold dots).
func hasFieldError(res *testkit.Response, field string) bool {
	issues, _ := res.JSON["issues"].(map[string]any)
	fe, _ := issues["fieldErrors"].(map[string]any)
	list, _ := fe[field].([]any)
	return len(list) > 0
}

func legalBody(title string, n int) map[string]any {
	secs := make([]map[string]any, n)
	for i := range secs {
		secs[i] = map[string]any{"title": fmt.Sprintf("Sección %d", i+1), "content": "Texto de la sección."}
	}
	return map[string]any{"title": title, "sections": secs}
}

func TestPublishGuardsAndValidation(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	_, client := k.UserWithSession(users.RoleClient)
	_, _, camello := k.CreateCamello()

	for _, c := range []struct {
		cookie string
		status int
		msg    string
	}{
		{"", 401, "No autenticado"},
		{client, 403, "Sin permisos de administrador"},
		{camello, 403, "Sin permisos de administrador"},
	} {
		for _, slug := range []string{"terminos", "otro"} {
			res := k.Put("/api/admin/legal-documents/"+slug, c.cookie, legalBody("Términos", 1))
			if res.Status != c.status || res.Error() != c.msg {
				t.Errorf("%s %q: %d %s", slug, c.cookie, res.Status, res.Raw)
			}
		}
	}
	if res := k.Put("/api/admin/legal-documents/otro", admin, legalBody("X", 1)); res.Status != 404 || res.Error() != "Documento legal no encontrado" {
		t.Fatalf("unknown slug: %d %s", res.Status, res.Raw)
	}
	if res := k.Put("/api/admin/legal-documents/TERMINOS", admin, legalBody("X", 1)); res.Status != 404 {
		t.Fatalf("upper-case slug: %d %s", res.Status, res.Raw)
	}

	sec := func(title, content any) map[string]any {
		return map[string]any{"title": "Términos", "sections": []any{map[string]any{"title": title, "content": content}}}
	}
	cases := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"title missing", map[string]any{"sections": legalBody("", 1)["sections"]}, 400, "title"},
		{"title empty", legalBody("", 1), 400, "title"},
		{"title blank", legalBody("   ", 1), 400, "title"},
		{"title 1", legalBody("T", 1), 200, ""},
		{"title 200", legalBody(strings.Repeat("é", 200), 1), 200, ""},
		{"title 201", legalBody(strings.Repeat("é", 201), 1), 400, "title"},
		{"title not text", map[string]any{"title": 5, "sections": legalBody("", 1)["sections"]}, 400, "title"},
		{"sections missing", map[string]any{"title": "T"}, 400, "sections"},
		{"sections not list", map[string]any{"title": "T", "sections": "x"}, 400, "sections"},
		{"sections 0", legalBody("T", 0), 400, "sections"},
		{"sections 100", legalBody("T", 100), 200, ""},
		{"sections 101", legalBody("T", 101), 400, "sections"},
		{"section not object", map[string]any{"title": "T", "sections": []any{"x"}}, 400, "sections.0"},
		{"section title empty", sec("", "c"), 400, "sections.0.title"},
		{"section title 200", sec(strings.Repeat("a", 200), "c"), 200, ""},
		{"section title 201", sec(strings.Repeat("a", 201), "c"), 400, "sections.0.title"},
		{"section title number", sec(3, "c"), 400, "sections.0.title"},
		{"section content missing", map[string]any{"title": "T", "sections": []any{map[string]any{"title": "a"}}}, 400, "sections.0.content"},
		{"section content 1", sec("a", "c"), 200, ""},
		{"section content 20000", sec("a", strings.Repeat("ñ", 20000)), 200, ""},
		{"section content 20001", sec("a", strings.Repeat("ñ", 20001)), 400, "sections.0.content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := k.Put("/api/admin/legal-documents/privacidad", admin, c.body)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %.300s", res.Status, c.status, res.Raw)
			}
			if c.field != "" && (res.Error() != "Datos inválidos" || !hasFieldError(res, c.field)) {
				t.Fatalf("want error on %s: %.300s", c.field, res.Raw)
			}
		})
	}
	if res := k.Put("/api/admin/legal-documents/privacidad", admin, "{"); res.Status != 400 || res.Error() != "Cuerpo JSON inválido" {
		t.Fatalf("malformed: %d %s", res.Status, res.Raw)
	}
	// Only the successful publications made versions: 6 of the cases above.
	if n := k.Count("legal_document_versions", "slug = 'privacidad'"); n != 6 {
		t.Fatalf("versions = %d", n)
	}
}

func TestPublishAndReadVersions(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)

	if res := k.Get("/api/legal/terminos", ""); res.Status != 404 || res.Error() != "El documento legal aún no ha sido publicado" {
		t.Fatalf("before publication: %d %s", res.Status, res.Raw)
	}
	if res := k.Get("/api/legal/otro", ""); res.Status != 404 || res.Error() != "Documento legal no encontrado" {
		t.Fatalf("unknown: %d %s", res.Status, res.Raw)
	}
	res := k.Put("/api/admin/legal-documents/terminos", admin, map[string]any{
		"title": "Términos y condiciones", "sections": []any{map[string]any{"title": "Uso", "content": "Se usa bien."}},
	})
	if res.Status != 200 || res.Get("document.version") != 1.0 || res.Str("document.slug") != "terminos" ||
		res.Str("document.title") != "Términos y condiciones" || res.Str("document.sections.0.title") != "Uso" ||
		res.Str("document.sections.0.content") != "Se usa bien." || !strings.HasSuffix(res.Str("document.updatedAt"), "Z") {
		t.Fatalf("publish: %d %s", res.Status, res.Raw)
	}
	res = k.Put("/api/admin/legal-documents/terminos", admin, legalBody("Términos v2", 2))
	if res.Status != 200 || res.Get("document.version") != 2.0 {
		t.Fatalf("v2: %s", res.Raw)
	}
	_, client := k.UserWithSession(users.RoleClient)
	_, _, camello := k.CreateCamello()
	for _, cookie := range []string{"", client, camello, admin} {
		if res := k.Get("/api/legal/terminos", cookie); res.Status != 200 || res.Get("document.version") != 2.0 {
			t.Errorf("read as %q: %d %s", cookie, res.Status, res.Raw)
		}
	}
	pub := k.Get("/api/legal/terminos", "")
	if pub.Status != 200 || pub.Get("document.version") != 2.0 || pub.Str("document.title") != "Términos v2" ||
		len(pub.Get("document.sections").([]any)) != 2 {
		t.Fatalf("public read: %s", pub.Raw)
	}
	if res := k.Get("/api/legal/privacidad", ""); res.Status != 404 {
		t.Fatalf("other slug: %d", res.Status)
	}
	// Both versions are kept, and they are immutable.
	if n := k.Count("legal_document_versions", "slug = 'terminos'"); n != 2 {
		t.Fatalf("versions = %d", n)
	}
	v1, err := k.App.FindFirstRecordByFilter("legal_document_versions", "slug = 'terminos' && version = 1")
	if err != nil || v1.GetString("title") != "Términos y condiciones" {
		t.Fatalf("v1: %v", err)
	}
	v1.Set("title", "Cambiado")
	if err := k.App.Save(v1); err == nil {
		t.Fatal("a published version was changed")
	}
}

func TestConcurrentPublications(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	const n = 20
	var wg sync.WaitGroup
	versions := make([]int, n)
	statuses := make([]int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			res := k.Put("/api/admin/legal-documents/privacidad", admin, legalBody(fmt.Sprintf("Privacidad %d", i), 3))
			statuses[i] = res.Status
			if v, ok := res.Get("document.version").(float64); ok {
				versions[i] = int(v)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	sort.Ints(versions)
	for i := 0; i < n; i++ {
		if statuses[i] != http.StatusOK {
			t.Errorf("publication %d: status %d", i, statuses[i])
		}
		if versions[i] != i+1 {
			t.Errorf("versions not 1..%d: %v", n, versions)
			break
		}
	}
	if c := k.Count("legal_document_versions", "slug = 'privacidad'"); c != n {
		t.Fatalf("version rows = %d", c)
	}
	if res := k.Get("/api/legal/privacidad", ""); res.Get("document.version") != float64(n) {
		t.Fatalf("current: %s", res.Raw)
	}
}

func TestConsent(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	user, cookie := k.UserWithSession(users.RoleClient)

	// Nothing published: nothing recorded, no error, nothing to accept.
	if err := legal.AcceptCurrent(k.App, user.Id, "1.2.3.4", "ua"); err != nil {
		t.Fatal(err)
	}
	if n := k.Count("legal_acceptances", ""); n != 0 {
		t.Fatalf("acceptances = %d", n)
	}
	st, err := legal.ConsentStatus(k.App, user.Id)
	if err != nil || fmt.Sprint(st["terminos"]) != "map[accepted:true acceptedVersion:0 version:0]" {
		t.Fatalf("status: %v %v", st, err)
	}
	if res := k.Post("/api/legal/terminos/accept", cookie, nil); res.Status != 404 {
		t.Fatalf("accept unpublished: %d %s", res.Status, res.Raw)
	}

	k.Put("/api/admin/legal-documents/terminos", admin, legalBody("T", 1))
	k.Put("/api/admin/legal-documents/terminos", admin, legalBody("T", 1))
	k.Put("/api/admin/legal-documents/privacidad", admin, legalBody("P", 1))
	if err := legal.AcceptCurrent(k.App, user.Id, "1.2.3.4", "navegador"); err != nil {
		t.Fatal(err)
	}
	if n := k.Count("legal_acceptances", "user = {:u} AND ip = '1.2.3.4' AND userAgent = 'navegador'", map[string]any{"u": user.Id}); n != 2 {
		t.Fatalf("acceptances = %d", n)
	}
	k.Put("/api/admin/legal-documents/terminos", admin, legalBody("T3", 1))
	st, _ = legal.ConsentStatus(k.App, user.Id)
	if fmt.Sprint(st["terminos"]) != "map[accepted:false acceptedVersion:2 version:3]" ||
		fmt.Sprint(st["privacidad"]) != "map[accepted:true acceptedVersion:1 version:1]" {
		t.Fatalf("status after v3: %v", st)
	}

	for _, c := range []struct {
		cookie string
		path   string
		body   any
		status int
		msg    string
	}{
		{"", "/api/legal/terminos/accept", nil, 401, "No autorizado"},
		{"bogus", "/api/legal/terminos/accept", nil, 401, "No autorizado"},
		{cookie, "/api/legal/otro/accept", nil, 404, "Documento legal no encontrado"},
		{cookie, "/api/legal/terminos/accept", map[string]any{"version": 2}, 409, legal.MsgStaleVersion},
		{cookie, "/api/legal/terminos/accept", map[string]any{"version": "x"}, 400, "Datos inválidos"},
		{cookie, "/api/legal/terminos/accept", map[string]any{"version": 3}, 201, ""},
	} {
		res := k.Do(testkit.Req{Method: "POST", Path: c.path, Cookie: c.cookie, Body: c.body,
			Headers: map[string]string{"User-Agent": "Prueba/1.0"}})
		if res.Status != c.status || (c.msg != "" && res.Error() != c.msg) {
			t.Errorf("%s %v: %d %s", c.path, c.body, res.Status, res.Raw)
		}
		if res.Status == 201 && (res.Get("acceptance.version") != 3.0 || res.Get("consent.terminos.accepted") != true ||
			!strings.HasSuffix(res.Str("acceptance.acceptedAt"), "Z")) {
			t.Errorf("accept body: %s", res.Raw)
		}
	}
	// Without a body (and for every role) the current version is accepted.
	_, _, camCookie := k.CreateCamello()
	if res := k.Post("/api/legal/privacidad/accept", camCookie, nil); res.Status != 201 || res.Get("acceptance.version") != 1.0 {
		t.Fatalf("camello accepts: %d %s", res.Status, res.Raw)
	}
	if res := k.Post("/api/legal/terminos/accept", admin, map[string]any{}); res.Status != 201 || res.Get("acceptance.version") != 3.0 {
		t.Fatalf("admin accepts: %d %s", res.Status, res.Raw)
	}
	if n := k.Count("legal_acceptances", "slug = 'terminos' AND version = 3 AND userAgent = 'Prueba/1.0'"); n != 1 {
		t.Fatalf("recorded with user agent: %d", n)
	}
}

func TestSignUpRecordsConsentAndMeReportsIt(t *testing.T) {
	k := testkit.New(t)
	_, admin := k.UserWithSession(users.RoleAdmin)
	signUp := func(email string) {
		res := k.Post("/api/auth/register", "", map[string]any{
			"name": "Clara Díaz", "email": email, "password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true,
		})
		if res.Status != 201 {
			t.Fatalf("register: %d %s", res.Status, res.Raw)
		}
	}
	// No published text: sign-up still succeeds and records nothing.
	signUp("antes@example.com")
	if n := k.Count("legal_acceptances", ""); n != 0 {
		t.Fatalf("acceptances = %d", n)
	}
	k.Put("/api/admin/legal-documents/terminos", admin, legalBody("T", 1))
	k.Put("/api/admin/legal-documents/privacidad", admin, legalBody("P", 1))
	signUp("despues@example.com")
	u, err := k.App.FindAuthRecordByEmail("users", "despues@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if n := k.Count("legal_acceptances", "user = {:u}", map[string]any{"u": u.Id}); n != 2 {
		t.Fatalf("acceptances = %d", n)
	}
	k.Put("/api/admin/legal-documents/terminos", admin, legalBody("T2", 1))
	res := k.Get("/api/me", k.Session(u))
	if res.Status != 200 || res.Get("legal.terminos.accepted") != false || res.Get("legal.terminos.version") != 2.0 ||
		res.Get("legal.terminos.acceptedVersion") != 1.0 || res.Get("legal.privacidad.accepted") != true {
		t.Fatalf("me: %d %s", res.Status, res.Raw)
	}
}
