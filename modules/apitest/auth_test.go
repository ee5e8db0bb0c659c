package apitest_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

func clientBody(email string) map[string]any {
	return map[string]any{"name": "Carla Gómez", "email": email, "password": "secreto-123",
		"confirmPassword": "secreto-123", "acceptTerms": true}
}

func login(k *testkit.Kit, email, password string) (*testkit.Response, string) {
	res := k.Post("/api/auth/login", "", map[string]any{"email": email, "password": password})
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == session.SessionCookie {
			return res, c.Value
		}
	}
	return res, ""
}

func TestClientRegisterAndLogin(t *testing.T) {
	k := testkit.New(t)
	res := k.Post("/api/auth/register", "", clientBody("  Carla@Example.com "))
	if res.Status != 201 || res.Str("user.role") != "CLIENTE" || res.Str("user.email") != "carla@example.com" {
		t.Fatalf("register: %d %s", res.Status, res.Raw)
	}
	if strings.Contains(string(res.Raw), "password") {
		t.Fatal("password leaked")
	}
	if res.Header.Get("Set-Cookie") != "" {
		t.Fatal("sign-up must not open a session")
	}

	res, token := login(k, "CARLA@example.com ", "secreto-123")
	if res.Status != 200 || token == "" || res.Str("user.email") != "carla@example.com" {
		t.Fatalf("login: %d %s", res.Status, res.Raw)
	}
	cookie := res.Header.Get("Set-Cookie")
	for _, attr := range []string{"auth.session-token=", "Path=/", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(cookie, attr) {
			t.Fatalf("cookie %q lacks %s", cookie, attr)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Fatal("Secure cookie over plain http")
	}
	// Only the token's hash is stored.
	if n := k.Count("sessions", "tokenHash = {:t}", map[string]any{"t": token}); n != 0 {
		t.Fatal("raw token stored")
	}

	me := k.Get("/api/me", token)
	if me.Status != 200 || me.Str("user.email") != "carla@example.com" || me.Get("camello") != nil {
		t.Fatalf("me: %d %s", me.Status, me.Raw)
	}
	if _, ok := me.JSON["camello"]; !ok {
		t.Fatal("me must carry camello: null")
	}

	// Logout revokes the session server-side.
	if r := k.Post("/api/auth/logout", token, nil); r.Status != 200 {
		t.Fatalf("logout: %d", r.Status)
	}
	if r := k.Get("/api/me", token); r.Status != 401 || r.Error() != "No autenticado" {
		t.Fatalf("old cookie after logout: %d %s", r.Status, r.Raw)
	}
}

func TestClientRegisterValidation(t *testing.T) {
	k := testkit.New(t)
	body := func(changes map[string]any) map[string]any {
		b := clientBody("c" + testkit.Unique() + "@example.com")
		for kk, v := range changes {
			b[kk] = v
		}
		return b
	}
	cases := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"ok with phone and city", body(map[string]any{"phone": "+57 300 123 4567", "city": "Cali"}), 201, ""},
		{"name 1", body(map[string]any{"name": "C"}), 400, "name"},
		{"password 7", body(map[string]any{"password": "1234567", "confirmPassword": "1234567"}), 400, "password"},
		{"confirm differs", body(map[string]any{"confirmPassword": "x"}), 400, "confirmPassword"},
		{"no terms", body(map[string]any{"acceptTerms": false}), 400, "acceptTerms"},
		{"phone short", body(map[string]any{"phone": "123"}), 400, "phone"},
		{"phone letters", body(map[string]any{"phone": "abcdefgh"}), 400, "phone"},
		{"city 121", body(map[string]any{"city": strings.Repeat("c", 121)}), 400, "city"},
		{"email bad", body(map[string]any{"email": "a@"}), 400, "email"},
		{"malformed", `{"name":`, 400, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := k.Post("/api/auth/register", "", c.body)
			if res.Status != c.status {
				t.Fatalf("%d want %d: %s", res.Status, c.status, res.Raw)
			}
			if c.field != "" && len(res.FieldErrors(c.field)) == 0 {
				t.Fatalf("no error for %s: %s", c.field, res.Raw)
			}
		})
	}
}

func TestLoginFailuresAreUniformAndThrottled(t *testing.T) {
	k := testkit.New(t)
	k.CreateUser(users.RoleClient, testkit.UserOpts{Email: "ana@example.com"})
	wrong, _ := login(k, "ana@example.com", "incorrecta-1")
	unknown, _ := login(k, "nadie@example.com", "incorrecta-1")
	for _, r := range []*testkit.Response{wrong, unknown} {
		if r.Status != 401 || r.Error() != "Credenciales inválidas" {
			t.Fatalf("failure answer: %d %s", r.Status, r.Raw)
		}
	}
	if string(wrong.Raw) != string(unknown.Raw) {
		t.Fatal("wrong password and unknown e-mail answer differently")
	}
	if r, _ := login(k, "", ""); r.Status != 400 {
		t.Fatalf("empty login: %d", r.Status)
	}
	// 10 failures in the window (one already made): the 11th attempt is throttled,
	// even with the right password; another e-mail is not affected.
	for i := 0; i < 9; i++ {
		if r, _ := login(k, "ana@example.com", fmt.Sprintf("mala-%d-xx", i)); r.Status != 401 {
			t.Fatalf("attempt %d: %d", i, r.Status)
		}
	}
	r, token := login(k, "ana@example.com", testkit.DefaultPassword)
	if r.Status != 429 || token != "" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("11th attempt: %d %s", r.Status, r.Raw)
	}
	k.CreateUser(users.RoleClient, testkit.UserOpts{Email: "otra@example.com"})
	if r, _ := login(k, "otra@example.com", testkit.DefaultPassword); r.Status != 200 {
		t.Fatalf("other e-mail throttled: %d", r.Status)
	}
}

func TestLongPasswordsAreHonouredInFull(t *testing.T) {
	k := testkit.New(t)
	long := strings.Repeat("ñ", 100) + "A" // 201 bytes: more than bcrypt reads
	b := clientBody("largo@example.com")
	b["password"], b["confirmPassword"] = long, long
	if r := k.Post("/api/auth/register", "", b); r.Status != 201 {
		t.Fatalf("register: %d %s", r.Status, r.Raw)
	}
	if r, _ := login(k, "largo@example.com", strings.Repeat("ñ", 100)+"B"); r.Status != 401 {
		t.Fatalf("a different last character signed in: %d", r.Status)
	}
	if r, _ := login(k, "largo@example.com", long); r.Status != 200 {
		t.Fatalf("full password refused: %d", r.Status)
	}
}

func TestPatchMe(t *testing.T) {
	k := testkit.New(t)
	u, token := k.UserWithSession(users.RoleClient, testkit.UserOpts{Email: "pat@example.com"})
	other := k.Session(u)

	r := k.Patch("/api/me", token, map[string]any{"name": "Patricia", "city": "Cali", "phone": "3001112233"})
	if r.Status != 200 || r.Str("user.name") != "Patricia" || r.Str("user.city") != "Cali" {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	if r := k.Patch("/api/me", token, map[string]any{"name": "P"}); r.Status != 400 || len(r.FieldErrors("name")) == 0 {
		t.Fatalf("short name: %d %s", r.Status, r.Raw)
	}
	for _, phone := range []string{"123", "abcdefgh", strings.Repeat("1", 33)} {
		if r := k.Patch("/api/me", token, map[string]any{"phone": phone}); r.Status != 400 || len(r.FieldErrors("phone")) == 0 {
			t.Fatalf("phone %q: %d %s", phone, r.Status, r.Raw)
		}
	}
	if r := k.Patch("/api/me", token, map[string]any{"phone": ""}); r.Status != 200 || r.Str("user.phone") != "" {
		t.Fatalf("clearing the phone: %d %s", r.Status, r.Raw)
	}
	if r := k.Patch("/api/me", token, map[string]any{"role": "ADMIN"}); r.Status != 200 || r.Str("user.role") != "CLIENTE" {
		t.Fatalf("role must be ignored: %d %s", r.Status, r.Raw)
	}
	bad := k.Patch("/api/me", token, map[string]any{"password": "nueva-clave-1", "confirmPassword": "nueva-clave-1", "currentPassword": "equivocada"})
	if bad.Status != 400 || len(bad.FieldErrors("currentPassword")) == 0 {
		t.Fatalf("wrong current password: %d %s", bad.Status, bad.Raw)
	}
	ok := k.Patch("/api/me", token, map[string]any{"password": "nueva-clave-1", "confirmPassword": "nueva-clave-1", "currentPassword": testkit.DefaultPassword})
	if ok.Status != 200 || !strings.Contains(ok.Header.Get("Set-Cookie"), session.SessionCookie) {
		t.Fatalf("password change: %d %s", ok.Status, ok.Raw)
	}
	for _, old := range []string{token, other} {
		if r := k.Get("/api/me", old); r.Status != 401 {
			t.Fatalf("session survived the password change: %d", r.Status)
		}
	}
	if r, _ := login(k, "pat@example.com", "nueva-clave-1"); r.Status != 200 {
		t.Fatalf("login with new password: %d", r.Status)
	}
	if r := k.Patch("/api/me", "", map[string]any{"name": "X"}); r.Status != 401 || r.Error() != "No autenticado" {
		t.Fatalf("anonymous patch: %d %s", r.Status, r.Raw)
	}
}

func TestDisabledUserLosesSessions(t *testing.T) {
	k := testkit.New(t)
	u, token := k.UserWithSession(users.RoleClient, testkit.UserOpts{Email: "dis@example.com"})
	u.Set("disabled", true)
	if err := k.App.Save(u); err != nil {
		t.Fatal(err)
	}
	if r := k.Get("/api/me", token); r.Status != 401 {
		t.Fatalf("disabled user's session still works: %d", r.Status)
	}
	if n := k.Count("sessions", "user = {:u}", map[string]any{"u": u.Id}); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
	if r, _ := login(k, "dis@example.com", testkit.DefaultPassword); r.Status != 403 {
		t.Fatalf("disabled login: %d %s", r.Status, r.Raw)
	}
}

func TestForgedAndExpiredCookies(t *testing.T) {
	k := testkit.New(t)
	u, token := k.UserWithSession(users.RoleClient)
	for _, c := range []string{"forged", strings.Repeat("a", 43), strings.Repeat("x", 500)} {
		if r := k.Get("/api/me", c); r.Status != 401 {
			t.Fatalf("cookie %q: %d", c[:5], r.Status)
		}
	}
	if _, err := k.App.DB().NewQuery("UPDATE sessions SET expiresAt = '2000-01-01 00:00:00.000Z' WHERE user = {:u}").
		Bind(map[string]any{"u": u.Id}).Execute(); err != nil {
		t.Fatal(err)
	}
	if r := k.Get("/api/me", token); r.Status != 401 {
		t.Fatalf("expired session accepted: %d", r.Status)
	}
}

func TestConcurrentSignUpsOfOneEmail(t *testing.T) {
	k := testkit.New(t)
	var wg sync.WaitGroup
	statuses := make(chan int, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- k.Post("/api/auth/register", "", clientBody("carrera@example.com")).Status
		}()
	}
	wg.Wait()
	close(statuses)
	created := 0
	for s := range statuses {
		switch s {
		case 201:
			created++
		case 409:
		default:
			t.Fatalf("unexpected status %d", s)
		}
	}
	if created != 1 || k.Count("users", "") != 1 {
		t.Fatalf("created %d users", created)
	}
}

// PocketBase's own e-mail flows of the users collection neither send mail
// nor change e-mails: verification answers 204 like for an unknown address
// (our hook ends the chain before PocketBase's mailer), e-mail change 403.
func TestPocketBaseEmailFlowsAreClosed(t *testing.T) {
	k := testkit.New(t)
	u, token := k.UserWithSession(users.RoleClient, testkit.UserOpts{Email: "flow@example.com"})
	reached := false
	k.App.OnRecordRequestVerificationRequest().BindFunc(func(e *core.RecordRequestVerificationRequestEvent) error {
		reached = true
		return e.Next()
	})
	k.App.OnRecordRequestEmailChangeRequest().BindFunc(func(e *core.RecordRequestEmailChangeRequestEvent) error {
		reached = true
		return e.Next()
	})
	for _, email := range []string{"flow@example.com", "nadie@example.com"} {
		r := k.Post("/api/collections/users/request-verification", "", map[string]any{"email": email})
		if r.Status != http.StatusNoContent {
			t.Fatalf("request-verification %s: %d %s", email, r.Status, r.Raw)
		}
	}
	r := k.Post("/api/collections/users/request-email-change", token, map[string]any{"newEmail": "otro@example.com"})
	if r.Status != http.StatusForbidden {
		t.Fatalf("request-email-change: %d %s", r.Status, r.Raw)
	}
	if reached || k.App.TestMailer.TotalSend() != 0 {
		t.Fatalf("PocketBase's flow went on (mails %d)", k.App.TestMailer.TotalSend())
	}
	fresh, _ := k.App.FindRecordById(users.Collection, u.Id)
	if fresh.Email() != "flow@example.com" {
		t.Fatalf("e-mail changed: %s", fresh.Email())
	}
}

func TestDisablingACamelloUserSuspendsTheProfile(t *testing.T) {
	k := testkit.New(t)
	u, cam, _ := k.CreateCamello(testkit.CamelloOpts{Status: "ACTIVO"})
	fresh, _ := k.App.FindRecordById("users", u.Id)
	fresh.Set("disabled", true)
	if err := k.App.Save(fresh); err != nil {
		t.Fatal(err)
	}
	c, _ := k.App.FindRecordById("camellos", cam.Id)
	if c.GetString("status") != "SUSPENDIDO" {
		t.Fatalf("camello of a disabled user is %s", c.GetString("status"))
	}
	if r := k.Get("/api/camellos/"+cam.Id, ""); r.Status != 404 {
		t.Fatalf("still public: %d", r.Status)
	}
}

func TestRoleChangesKeepProfilesConsistent(t *testing.T) {
	k := testkit.New(t)
	camUser, _, _ := k.CreateCamello()
	client := k.CreateUser(users.RoleClient)
	cases := []struct {
		user *core.Record
		to   string
		ok   bool
	}{
		{camUser, users.RoleClient, false},
		{camUser, users.RoleAdmin, false},
		{client, users.RoleCamello, false},
		{client, users.RoleAdmin, true},
	}
	for _, c := range cases {
		fresh, _ := k.App.FindRecordById("users", c.user.Id)
		fresh.Set("role", c.to)
		err := k.App.Save(fresh)
		if (err == nil) != c.ok {
			t.Fatalf("%s → %s: %v", c.user.GetString("role"), c.to, err)
		}
	}
}

func TestTheLastActiveAdminStays(t *testing.T) {
	k := testkit.New(t)
	only := k.CreateUser(users.RoleAdmin)
	for _, change := range []map[string]any{{"role": users.RoleClient}, {"disabled": true}} {
		fresh, _ := k.App.FindRecordById("users", only.Id)
		for f, v := range change {
			fresh.Set(f, v)
		}
		if err := k.App.Save(fresh); err == nil {
			t.Fatalf("%v: the last admin was removed", change)
		}
	}
	k.CreateUser(users.RoleAdmin)
	fresh, _ := k.App.FindRecordById("users", only.Id)
	fresh.Set("role", users.RoleClient)
	if err := k.App.Save(fresh); err != nil {
		t.Fatalf("with another admin: %v", err)
	}
}
