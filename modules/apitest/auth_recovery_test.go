package apitest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/writer"
	"camellos/modules/auth"
	"camellos/modules/mail"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

const appURL = "http://camellos.test"

// fastMail retries failed mails within a second (tests).
func fastMail(app *tests.TestApp) {
	mail.SetOptions(app, mail.Options{
		Backoff: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond,
			400 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond},
		Poll: 100 * time.Millisecond,
	})
}

// mailKit boots the service mailing through a real SMTP server on 127.0.0.1.
func mailKit(t *testing.T) (*testkit.Kit, *testkit.Mailbox) {
	t.Helper()
	mb := testkit.NewMailbox(t)
	mb.Env(t, "off")
	t.Setenv("APP_URL", appURL)
	t.Setenv("AUTH_IP_LIMIT", "0")
	return testkit.New(t, fastMail), mb
}

var linkRe = regexp.MustCompile(`https?://[^\s"<>]+`)

// followLink finds the link to page in both parts of a mail and returns
// its token, after checking the headers every mail carries.
func followLink(t *testing.T, m mail.Caught, to, page string) string {
	t.Helper()
	if m.Header.Get("From") != `"Camellos" <no-responder@camellos.co>` && m.Header.Get("From") != "Camellos <no-responder@camellos.co>" {
		t.Errorf("From = %q", m.Header.Get("From"))
	}
	if m.From != "no-responder@camellos.co" || len(m.To) != 1 || m.To[0] != to {
		t.Errorf("envelope %s → %v", m.From, m.To)
	}
	if !strings.Contains(m.Header.Get("To"), "<"+to+">") {
		t.Errorf("To = %q", m.Header.Get("To"))
	}
	if !strings.HasPrefix(m.Header.Get("Content-Type"), "multipart/alternative") || m.Text == "" || m.HTML == "" {
		t.Fatalf("mail lacks a part: %q text=%d html=%d", m.Header.Get("Content-Type"), len(m.Text), len(m.HTML))
	}
	var token string
	for _, body := range []string{m.Text, m.HTML} {
		found := ""
		for _, l := range linkRe.FindAllString(body, -1) {
			u, err := url.Parse(strings.ReplaceAll(l, "&amp;", "&"))
			if err == nil && u.Scheme+"://"+u.Host == appURL && u.Path == "/"+page {
				found = u.Query().Get("token")
			}
		}
		if found == "" {
			t.Fatalf("no %s link in %q", page, body)
		}
		if token != "" && token != found {
			t.Fatal("the two parts carry different links")
		}
		token = found
	}
	return token
}

// registerClient signs a client up over HTTP and returns the e-mail.
func registerClient(t *testing.T, k *testkit.Kit) string {
	t.Helper()
	email := "cliente" + testkit.Unique() + "@example.com"
	if res := k.Post("/api/auth/register", "", clientBody(email)); res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Raw)
	}
	return email
}

// settle waits for the account work and the outbox to finish.
func settle(t *testing.T, k *testkit.Kit) {
	t.Helper()
	auth.WaitBackground(k.App)
	if !mail.WaitIdle(k.App, time.Minute) {
		t.Fatal("outbox did not drain")
	}
}

func TestPasswordRecoveryThroughRealMail(t *testing.T) {
	k, mb := mailKit(t)
	email := registerClient(t, k)
	_, oldSession := login(k, email, "secreto-123")
	if oldSession == "" {
		t.Fatal("no session")
	}

	// Differently cased and padded: the same account.
	res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": "  " + strings.ToUpper(email) + " "})
	if res.Status != 202 || res.Get("ok") != true {
		t.Fatalf("forgot: %d %s", res.Status, res.Raw)
	}
	var reset mail.Caught
	for _, m := range mb.Wait(email, 2, 10*time.Second) { // verification + reset
		if strings.Contains(m.Subject, "contraseña") {
			reset = m
		}
	}
	if reset.Subject != "Restablece tu contraseña de Camellos" {
		t.Fatalf("subject %q", reset.Subject)
	}
	token := followLink(t, reset, email, "restablecer.html")
	if len(token) != 43 {
		t.Errorf("token %q is not 32 bytes base64url", token)
	}
	if n := k.Count(auth.Tokens, "tokenHash = {:t}", map[string]any{"t": token}); n != 0 {
		t.Fatal("raw token stored")
	}

	// Weak or mismatched passwords: 400 and the link still works.
	for _, tc := range []struct {
		name, pw, confirm, field string
	}{
		{"7 characters", "1234567", "1234567", "password"},
		{"129 characters", strings.Repeat("a", 129), strings.Repeat("a", 129), "password"},
		{"mismatch", "nueva-clave-1", "nueva-clave-2", "confirmPassword"},
		{"no confirmation", "nueva-clave-1", "", "confirmPassword"},
	} {
		res := k.Post("/api/auth/password/reset", "", map[string]any{"token": token, "password": tc.pw, "confirmPassword": tc.confirm})
		if res.Status != 400 || len(res.FieldErrors(tc.field)) == 0 {
			t.Errorf("%s: %d %s", tc.name, res.Status, res.Raw)
		}
	}
	// Tampered token.
	tampered := token[:len(token)-1] + map[bool]string{true: "A", false: "B"}[token[len(token)-1] != 'A']
	for _, bad := range []string{tampered, "", "x", strings.Repeat("a", 200)} {
		res := k.Post("/api/auth/password/reset", "", map[string]any{"token": bad, "password": "nueva-clave-1", "confirmPassword": "nueva-clave-1"})
		if res.Status != 400 || res.Error() != auth.MsgBadLink {
			t.Errorf("token %q: %d %s", bad, res.Status, res.Raw)
		}
	}

	// 128 characters is honoured in full.
	long := strings.Repeat("ñ", 127) + "x"
	res = k.Post("/api/auth/password/reset", "", map[string]any{"token": token, "password": long, "confirmPassword": long})
	if res.Status != 200 || res.Str("user.email") != email || res.Get("user.verified") != true {
		t.Fatalf("reset: %d %s", res.Status, res.Raw)
	}
	if strings.Contains(string(res.Raw), "password") {
		t.Fatal("password field in the answer")
	}
	// Every session is revoked: the old one is refused.
	if me := k.Get("/api/me", oldSession); me.Status != 401 {
		t.Fatalf("old session after reset: %d", me.Status)
	}
	if r, _ := login(k, email, "secreto-123"); r.Status != 401 {
		t.Fatalf("old password: %d", r.Status)
	}
	if r, _ := login(k, email, strings.Repeat("ñ", 127)+"y"); r.Status != 401 {
		t.Fatalf("a different 128-character password: %d", r.Status)
	}
	if r, s := login(k, email, long); r.Status != 200 || s == "" {
		t.Fatalf("new password: %d %s", r.Status, r.Raw)
	}
	// A second use of the link.
	res = k.Post("/api/auth/password/reset", "", map[string]any{"token": token, "password": "otra-clave-123", "confirmPassword": "otra-clave-123"})
	if res.Status != 400 || res.Error() != "Enlace inválido o vencido" {
		t.Fatalf("second use: %d %s", res.Status, res.Raw)
	}
}

func TestResetLinksOlderAndExpired(t *testing.T) {
	k, mb := mailKit(t)
	user := k.CreateUser(users.RoleClient)
	email := user.Email()
	for i := 0; i < 2; i++ {
		if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": email}); res.Status != 202 {
			t.Fatalf("forgot: %d", res.Status)
		}
		mb.Wait(email, i+1, 10*time.Second)
	}
	mails := mb.To(email)
	older := followLink(t, mails[0], email, "restablecer.html")
	newer := followLink(t, mails[1], email, "restablecer.html")
	body := func(tok string) map[string]any {
		return map[string]any{"token": tok, "password": "nueva-clave-1", "confirmPassword": "nueva-clave-1"}
	}
	if res := k.Post("/api/auth/password/reset", "", body(older)); res.Status != 400 || res.Error() != auth.MsgBadLink {
		t.Fatalf("older link: %d %s", res.Status, res.Raw)
	}
	// An expired link (the clock of the row moved back past its hour).
	if _, err := k.App.DB().Update(auth.Tokens, dbx.Params{"expiresAt": "2020-01-01 00:00:00.000Z"}, dbx.HashExp{"user": user.Id, "usedAt": ""}).Execute(); err != nil {
		t.Fatal(err)
	}
	if res := k.Post("/api/auth/password/reset", "", body(newer)); res.Status != 400 || res.Error() != auth.MsgBadLink {
		t.Fatalf("expired link: %d %s", res.Status, res.Raw)
	}
	// The lifetime written is one hour.
	if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": email}); res.Status != 202 {
		t.Fatal(res.Status)
	}
	fresh := followLink(t, mb.Wait(email, 3, 10*time.Second)[2], email, "restablecer.html")
	rec, err := k.App.FindFirstRecordByData(auth.Tokens, "tokenHash", sha(fresh))
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(rec.GetDateTime("expiresAt").Time()); left < 59*time.Minute || left > 61*time.Minute {
		t.Errorf("reset link valid for %s", left)
	}
	if res := k.Post("/api/auth/password/reset", "", body(fresh)); res.Status != 200 {
		t.Fatalf("fresh link: %d %s", res.Status, res.Raw)
	}
}

func TestForgotNeverTellsWhoExists(t *testing.T) {
	k, mb := mailKit(t)
	disabled := k.CreateUser(users.RoleClient, testkit.UserOpts{Disabled: true})
	for _, tc := range []struct {
		name   string
		email  any
		status int
	}{
		{"unknown", "nadie@example.com", 202},
		{"unknown, padded and cased", "  NADIE2@Example.com  ", 202},
		{"disabled account", disabled.Email(), 202},
		{"malformed", "no-es-correo", 400},
		{"two at signs", "a@b@example.com", 400},
		{"empty", "", 400},
		{"number", 42, 400},
		{"over 254", strings.Repeat("a", 250) + "@example.com", 400},
	} {
		res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": tc.email})
		if res.Status != tc.status {
			t.Errorf("%s: %d %s", tc.name, res.Status, res.Raw)
		}
		if tc.status == 202 && (res.Get("ok") != true || len(res.JSON) != 1) {
			t.Errorf("%s: answer %s", tc.name, res.Raw)
		}
		if tc.status == 400 && len(res.FieldErrors("email")) == 0 {
			t.Errorf("%s: no field error: %s", tc.name, res.Raw)
		}
	}
	settle(t, k)
	if n := len(mb.Mails()); n != 0 {
		t.Fatalf("%d mails for unknown or disabled addresses", n)
	}
	if n := k.Count(auth.Tokens, "id != ''"); n != 0 {
		t.Fatalf("%d tokens", n)
	}

	// Known and unknown addresses take the same time because the answer
	// does not wait for the lookup, the token or the mail: they run after
	// it. Shown without a stopwatch (a busy machine makes timings lie):
	// with the single writer held, so that no token can be written, every
	// address is still answered 202; the links follow once it is free.
	known := make([]string, 5)
	for i := range known {
		known[i] = k.CreateUser(users.RoleClient).Email()
	}
	settle(t, k)
	held, release := make(chan struct{}), make(chan struct{})
	writerDone := make(chan error, 1)
	go func() {
		writerDone <- writer.Transaction(k.App, func(core.App) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	answered := make(chan int, 2*len(known))
	go func() {
		for _, e := range known {
			for _, addr := range []string{e, "desconocido" + testkit.Unique() + "@example.com"} {
				answered <- k.Post("/api/auth/password/forgot", "", map[string]any{"email": addr}).Status
			}
		}
	}()
	for i := 0; i < 2*len(known); i++ {
		select {
		case status := <-answered:
			if status != 202 {
				t.Errorf("forgot with the writer held: %d", status)
			}
		case <-time.After(time.Minute): // only stops a hung test
			close(release)
			t.Fatalf("the answer waited for the writer (a token or a mail before the answer): %d of %d answered", i, 2*len(known))
		}
	}
	if n := k.Count(auth.Tokens, "id != ''"); n != 0 {
		t.Errorf("%d tokens written while the writer was held", n)
	}
	close(release)
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	settle(t, k)
	if n := len(mb.Mails()); n != 5 {
		t.Errorf("mails = %d, want 5", n)
	}
}

func TestForgotIsThrottled(t *testing.T) {
	k, _ := mailKit(t)
	email := "limite" + testkit.Unique() + "@example.com"
	for i := 0; i < 3; i++ {
		if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": email}); res.Status != 202 {
			t.Fatalf("request %d: %d", i+1, res.Status)
		}
	}
	res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": strings.ToUpper(email)})
	if res.Status != 429 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("4th request: %d %v", res.Status, res.Header)
	}
	// Another address from the same client is still served.
	if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": "otro" + email}); res.Status != 202 {
		t.Fatalf("other address: %d", res.Status)
	}
	// Bad reset tokens are throttled per client too.
	var last *testkit.Response
	for i := 0; i < 11; i++ {
		last = k.Post("/api/auth/password/reset", "", map[string]any{"token": "malo" + testkit.Unique(), "password": "nueva-clave-1", "confirmPassword": "nueva-clave-1"})
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" {
		t.Fatalf("11th bad token: %d", last.Status)
	}
}

func sha(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// TestResetLinkRace: of concurrent uses of one link exactly one wins.
func TestResetLinkRace(t *testing.T) {
	k, mb := mailKit(t)
	u := k.CreateUser(users.RoleClient)
	if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": u.Email()}); res.Status != 202 {
		t.Fatal(res.Status)
	}
	token := followLink(t, mb.Wait(u.Email(), 1, 10*time.Second)[0], u.Email(), "restablecer.html")
	const n = 8
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			pw := fmt.Sprintf("clave-nueva-%d", i)
			statuses <- k.Post("/api/auth/password/reset", "", map[string]any{"token": token, "password": pw, "confirmPassword": pw}).Status
		}(i)
	}
	wg.Wait()
	close(statuses)
	won := 0
	for s := range statuses {
		switch s {
		case 200:
			won++
		case 400:
		default:
			t.Errorf("status %d", s)
		}
	}
	if won != 1 {
		t.Fatalf("%d winners", won)
	}
}
