package apitest_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"camellos/internal/httpapi"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

func validBody() map[string]any {
	return map[string]any{
		"name":            "Ana María",
		"email":           "ana" + testkit.Unique() + "@example.com",
		"phone":           "3001234567",
		"password":        "secreto-123",
		"confirmPassword": "secreto-123",
		"acceptTerms":     true,
		"city":            "Bogotá",
		"trades":          []string{"plomería"},
	}
}

func with(changes map[string]any) map[string]any {
	b := validBody()
	for k, v := range changes {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	if pw, ok := changes["password"]; ok {
		if _, set := changes["confirmPassword"]; !set {
			b["confirmPassword"] = pw
		}
	}
	return b
}

func list(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return out
}

func TestRegisterCamelloBounds(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0") // many sign-ups from one address; the limit has its own tests
	k := testkit.New(t)
	r := strings.Repeat
	cases := []struct {
		name   string
		body   map[string]any
		status int
		field  string // field expected in issues when 400
	}{
		{"valid minimal", validBody(), 201, ""},
		{"name 2 chars", with(map[string]any{"name": "Al"}), 201, ""},
		{"name 1 char", with(map[string]any{"name": "A"}), 400, "name"},
		{"name 120 ñ", with(map[string]any{"name": r("ñ", 120)}), 201, ""},
		{"name 121 chars", with(map[string]any{"name": r("a", 121)}), 400, "name"},
		{"name missing", with(map[string]any{"name": nil}), 400, "name"},
		{"name wrong type", with(map[string]any{"name": 12}), 400, "name"},
		{"email missing", with(map[string]any{"email": nil}), 400, "email"},
		{"email invalid", with(map[string]any{"email": "no-es-correo"}), 400, "email"},
		{"phone 7", with(map[string]any{"phone": "3001234"}), 201, ""},
		{"phone 6", with(map[string]any{"phone": "300123"}), 400, "phone"},
		{"phone 32", with(map[string]any{"phone": r("1", 32)}), 201, ""},
		{"phone 33", with(map[string]any{"phone": r("1", 33)}), 400, "phone"},
		{"phone missing", with(map[string]any{"phone": nil}), 400, "phone"},
		{"password 8", with(map[string]any{"password": "12345678"}), 201, ""},
		{"password 7", with(map[string]any{"password": "1234567"}), 400, "password"},
		{"password 128", with(map[string]any{"password": r("p", 128)}), 201, ""},
		{"password 129", with(map[string]any{"password": r("p", 129)}), 400, "password"},
		{"password missing", with(map[string]any{"password": nil, "confirmPassword": "secreto-123"}), 400, "password"},
		{"confirm differs", with(map[string]any{"confirmPassword": "otra-cosa-1"}), 400, "confirmPassword"},
		{"confirm missing", with(map[string]any{"confirmPassword": nil}), 400, "confirmPassword"},
		{"acceptTerms false", with(map[string]any{"acceptTerms": false}), 400, "acceptTerms"},
		{"acceptTerms missing", with(map[string]any{"acceptTerms": nil}), 400, "acceptTerms"},
		{"acceptTerms string", with(map[string]any{"acceptTerms": "true"}), 400, "acceptTerms"},
		{"city 2", with(map[string]any{"city": "Ci"}), 201, ""},
		{"city 1", with(map[string]any{"city": "C"}), 400, "city"},
		{"city 120", with(map[string]any{"city": r("c", 120)}), 201, ""},
		{"city 121", with(map[string]any{"city": r("c", 121)}), 400, "city"},
		{"city missing", with(map[string]any{"city": nil}), 400, "city"},
		{"trades 1", with(map[string]any{"trades": []string{"pintura"}}), 201, ""},
		{"trades 0", with(map[string]any{"trades": []string{}}), 400, "trades"},
		{"trades 20", with(map[string]any{"trades": list(20, "t")}), 201, ""},
		{"trades 21", with(map[string]any{"trades": list(21, "t")}), 400, "trades"},
		{"trades 21 with repeats", with(map[string]any{"trades": append(list(20, "t"), list(1, "t")...)}), 400, "trades"},
		{"trades repeated", with(map[string]any{"trades": []string{"Pintura", "pintura", " PINTURA "}}), 201, ""},
		{"trades missing", with(map[string]any{"trades": nil}), 400, "trades"},
		{"trades not list", with(map[string]any{"trades": "plomería"}), 400, "trades"},
		{"trade empty", with(map[string]any{"trades": []string{" "}}), 400, "trades"},
		{"documentId 32", with(map[string]any{"documentId": r("9", 32)}), 201, ""},
		{"documentId 33", with(map[string]any{"documentId": r("9", 33)}), 400, "documentId"},
		{"neighborhood 120", with(map[string]any{"neighborhood": r("b", 120)}), 201, ""},
		{"neighborhood 121", with(map[string]any{"neighborhood": r("b", 121)}), 400, "neighborhood"},
		{"professionalCard 120", with(map[string]any{"professionalCard": r("p", 120)}), 201, ""},
		{"professionalCard 121", with(map[string]any{"professionalCard": r("p", 121)}), 400, "professionalCard"},
		{"description 5000", with(map[string]any{"description": r("d", 5000)}), 201, ""},
		{"description 5001", with(map[string]any{"description": r("d", 5001)}), 400, "description"},
		{"serviceIds 51", with(map[string]any{"serviceIds": list(51, "s")}), 400, "serviceIds"},
		{"serviceIds unknown", with(map[string]any{"serviceIds": []string{"noexiste123"}}), 400, "serviceIds"},
		{"serviceIds not ids", with(map[string]any{"serviceIds": []string{"../x"}}), 400, "serviceIds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := k.Post("/api/register/camello", "", c.body)
			if res.Status != c.status {
				t.Fatalf("status %d, want %d: %s", res.Status, c.status, res.Raw)
			}
			if c.status == 400 {
				if res.Error() != httpapi.MsgInvalidData || len(res.FieldErrors(c.field)) == 0 {
					t.Fatalf("want fieldErrors.%s in %s", c.field, res.Raw)
				}
				if !strings.Contains(res.Str("detail"), c.field+":") {
					t.Fatalf("detail does not name %s: %s", c.field, res.Raw)
				}
			}
			if c.status == 201 {
				if res.Str("user.role") != "CAMELLOS" || res.Str("camello.status") != "PENDIENTE" {
					t.Fatalf("unexpected body %s", res.Raw)
				}
				if strings.Contains(string(res.Raw), "password") || strings.Contains(string(res.Raw), "tokenKey") {
					t.Fatalf("password field leaked: %s", res.Raw)
				}
			}
		})
	}
}

func TestRegisterCamelloWithServices(t *testing.T) {
	k := testkit.New(t)
	cat := k.CreateRecord("categories", map[string]any{"name": "Hogar", "nameKey": "hogar"})
	svc := k.CreateRecord("services", map[string]any{"name": "Destapes", "slug": "destapes", "category": cat.Id})
	res := k.Post("/api/register/camello", "", with(map[string]any{"serviceIds": []string{svc.Id, svc.Id}}))
	if res.Status != 201 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	if res.Str("camello.services.0.id") != svc.Id || res.Str("camello.services.0.slug") != "destapes" || res.Get("camello.services.1") != nil {
		t.Fatalf("services not summarised once: %s", res.Raw)
	}
}

func TestRegisterCamelloRejectsBadBodies(t *testing.T) {
	k := testkit.New(t)
	res := k.Post("/api/register/camello", "", `{"name": "Ana",`)
	if res.Status != 400 || res.Error() != httpapi.MsgInvalidJSON {
		t.Fatalf("malformed: %d %s", res.Status, res.Raw)
	}
	res = k.Post("/api/register/camello", "", `[1,2]`)
	if res.Status != 400 || res.Error() != httpapi.MsgInvalidJSON {
		t.Fatalf("array: %d %s", res.Status, res.Raw)
	}
	res = k.Do(testkit.Req{Method: "POST", Path: "/api/register/camello", Body: "name=x", Headers: map[string]string{"Content-Type": "text/plain"}})
	if res.Status != 415 {
		t.Fatalf("text/plain: %d %s", res.Status, res.Raw)
	}
	big := `{"description":"` + strings.Repeat("a", 7<<20) + `"}`
	res = k.Post("/api/register/camello", "", big)
	if res.Status != 413 || res.Error() == "" {
		t.Fatalf("7 MiB body: %d %s", res.Status, res.Raw)
	}
	if n := k.Count("users", ""); n != 0 {
		t.Fatalf("%d users left behind by refused requests", n)
	}
}

func TestRegisterCamelloDuplicateEmail(t *testing.T) {
	k := testkit.New(t)
	b := with(map[string]any{"email": "pepe@example.com"})
	if res := k.Post("/api/register/camello", "", b); res.Status != 201 {
		t.Fatalf("first: %d %s", res.Status, res.Raw)
	}
	for _, email := range []string{"pepe@example.com", "  PEPE@Example.COM ", "Pepe@example.com"} {
		res := k.Post("/api/register/camello", "", with(map[string]any{"email": email}))
		if res.Status != 409 || res.Error() != "El correo ya está registrado" {
			t.Fatalf("%q: %d %s", email, res.Status, res.Raw)
		}
	}
	// A client sign-up with the same address is refused too.
	res := k.Post("/api/auth/register", "", map[string]any{"name": "Pepe", "email": "PEPE@example.com",
		"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true})
	if res.Status != 409 {
		t.Fatalf("client with camello e-mail: %d %s", res.Status, res.Raw)
	}
	if n := k.Count("users", ""); n != 1 {
		t.Fatalf("want 1 user, got %d", n)
	}
}

func pngBytes(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := 0; x < 8; x++ {
		img.Set(x, x, color.RGBA{200, 40, 40, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func multipartBody(fields map[string]string, file []byte, filename string) *testkit.Multipart {
	m := testkit.NewMultipart()
	for k, v := range fields {
		m.Field(k, v)
	}
	if file != nil {
		m.File("file", filename, file)
	}
	return m.Close()
}

func multipartFields() map[string]string {
	trades, _ := json.Marshal([]string{"electricidad", "pintura"})
	return map[string]string{
		"name": "Luis Pérez", "email": "luis" + testkit.Unique() + "@example.com", "phone": "3109876543",
		"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": "true",
		"city": "Medellín", "trades": string(trades), "serviceIds": "[]",
	}
}

func TestRegisterCamelloMultipartPhoto(t *testing.T) {
	k := testkit.New(t)
	img := pngBytes(t)
	res := k.Post("/api/register/camello", "", multipartBody(multipartFields(), img, "yo.html"))
	if res.Status != 201 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	photo := res.Str("camello.photo")
	if !strings.HasPrefix(photo, "/uploads/camellos/") || !strings.HasSuffix(photo, ".png") {
		t.Fatalf("photo path %q", photo)
	}
	if got := res.Get("camello.trades.1"); got != "pintura" {
		t.Fatalf("trades from JSON string: %s", res.Raw)
	}
	// A PENDIENTE camello's photo is not public (issue 14): an admin sees it.
	if r := k.Get(photo, ""); r.Status != 404 {
		t.Fatalf("anonymous read of a pending camello's photo: %d", r.Status)
	}
	_, admin := k.UserWithSession(users.RoleAdmin)
	served := k.Get(photo, admin)
	if served.Status != 200 || !bytes.Equal(served.Raw, img) {
		t.Fatalf("serve photo: %d (%d bytes)", served.Status, len(served.Raw))
	}
	if ct := served.Header.Get("Content-Type"); ct != "image/png" {
		t.Fatalf("content type %q", ct)
	}
	if served.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatal("photo served without nosniff")
	}
	for _, p := range []string{"/uploads/camellos/..%2F..%2Fdata.db", "/uploads/camellos/nope.png", "/uploads/camellos/x.html",
		"/uploads/otros/x.png", "/uploads/camellos/a/b.png"} {
		if r := k.Get(p, ""); r.Status != 404 || r.Error() == "" {
			t.Fatalf("%s: %d %s", p, r.Status, r.Raw)
		}
	}
	// A wrong method is a 405 in the envelope, not PocketBase's own answer.
	if r := k.Post(photo, "", map[string]any{}); r.Status != 405 || r.Header.Get("Allow") != "GET, HEAD" || r.Error() != httpapi.MsgMethodNotAllowed {
		t.Fatalf("POST photo: %d %q %s", r.Status, r.Header.Get("Allow"), r.Raw)
	}
}

func TestRegisterCamelloMultipartRejects(t *testing.T) {
	k := testkit.New(t)
	html := []byte("<!doctype html><html><script>alert(1)</script></html>")
	fakePNG := append([]byte("\x89PNG\r\n\x1a\n"), []byte("not really a png")...)
	cases := []struct {
		name   string
		body   *testkit.Multipart
		status int
		field  string
	}{
		{"html as photo", multipartBody(multipartFields(), html, "foto.png"), 400, "file"},
		{"truncated png", multipartBody(multipartFields(), fakePNG, "foto.png"), 400, "file"},
		{"photo over 5 MiB", multipartBody(multipartFields(), append(pngBytes(t), make([]byte, 5<<20)...), "f.png"), 400, "file"},
		{"trades not JSON", multipartBody(func() map[string]string {
			f := multipartFields()
			f["trades"] = "plomería"
			return f
		}(), nil, ""), 400, "trades"},
		{"acceptTerms yes", multipartBody(func() map[string]string {
			f := multipartFields()
			f["acceptTerms"] = "yes"
			return f
		}(), nil, ""), 400, "acceptTerms"},
		{"acceptTerms false", multipartBody(func() map[string]string {
			f := multipartFields()
			f["acceptTerms"] = "false"
			return f
		}(), nil, ""), 400, "acceptTerms"},
		{"body over 6 MiB", multipartBody(multipartFields(), make([]byte, 7<<20), "big.png"), 413, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := k.Do(testkit.Req{Method: "POST", Path: "/api/register/camello", Body: c.body,
				Headers: map[string]string{"Expect": "100-continue"}})
			if res.Status != c.status {
				t.Fatalf("status %d want %d: %.300s", res.Status, c.status, res.Raw)
			}
			if c.field != "" && len(res.FieldErrors(c.field)) == 0 {
				t.Fatalf("no field error for %s: %s", c.field, res.Raw)
			}
		})
	}
	if n := k.Count("users", ""); n != 0 {
		t.Fatalf("refused registrations left %d users", n)
	}
}

// A failure after the user insert (here: the camello insert) rolls back the
// whole registration: no user is left behind.
func TestRegisterCamelloIsAtomic(t *testing.T) {
	k := testkit.New(t)
	k.App.OnRecordCreate("camellos").BindFunc(func(e *core.RecordEvent) error {
		if e.Record.GetString("name") == "Falla Forzada" {
			return httpapi.Conflict("fallo simulado")
		}
		return e.Next()
	})
	res := k.Post("/api/register/camello", "", multipartBody(func() map[string]string {
		f := multipartFields()
		f["name"] = "Falla Forzada"
		f["email"] = "falla@example.com"
		return f
	}(), pngBytes(t), "a.png"))
	if res.Status != 409 {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	if n := k.Count("users", "email = 'falla@example.com'"); n != 0 {
		t.Fatal("user left behind after the camello insert failed")
	}
	if n := k.Count("camellos", ""); n != 0 {
		t.Fatal("camello left behind")
	}
	// The same e-mail can register afterwards.
	if res := k.Post("/api/register/camello", "", with(map[string]any{"email": "falla@example.com"})); res.Status != http.StatusCreated {
		t.Fatalf("retry: %d %s", res.Status, res.Raw)
	}
}
