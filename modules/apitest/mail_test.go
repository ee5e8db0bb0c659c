package apitest_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	netmail "net/mail"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/mail"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

func options(ca *testkit.Mailbox) testkit.Option {
	return func(app *tests.TestApp) {
		o := mail.Options{
			Backoff: []time.Duration{150 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond,
				300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond},
			Poll: 100 * time.Millisecond,
		}
		if ca != nil {
			o.RootCAs = ca.CA
		}
		mail.SetOptions(app, o)
	}
}

func boot(t *testing.T, mb *testkit.Mailbox, tlsMode string) *testkit.Kit {
	t.Helper()
	mb.Env(t, tlsMode)
	t.Setenv("AUTH_IP_LIMIT", "0")
	return testkit.New(t, options(mb))
}

// forgot asks for a reset link for a new user and returns its address.
func forgot(t *testing.T, k *testkit.Kit) string {
	t.Helper()
	u := k.CreateUser(users.RoleClient)
	if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": u.Email()}); res.Status != 202 {
		t.Fatalf("forgot: %d %s", res.Status, res.Raw)
	}
	return u.Email()
}

func outboxRow(t *testing.T, k *testkit.Kit, to string) *core.Record {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // only stops a hung test
	for {
		rec, err := k.App.FindFirstRecordByData(mail.Collection, "toAddress", to)
		if err == nil {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("no outbox row for %s", to)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSettingsAppliedToPocketBase(t *testing.T) {
	mb := testkit.NewMailbox(t)
	t.Setenv("SMTP_USERNAME", "usuario")
	t.Setenv("MAIL_FROM", "Camellos Pruebas <hola@camellos.test>")
	mb.Env(t, "tls")
	t.Setenv("MAIL_FROM", "Camellos Pruebas <hola@camellos.test>")
	k := testkit.New(t)
	s := k.App.Settings().SMTP
	if !s.Enabled || s.Host != "127.0.0.1" || s.Port != mb.Port || !s.TLS || s.Username != "usuario" {
		t.Fatalf("SMTP settings: %+v", s)
	}
	if m := k.App.Settings().Meta; m.SenderName != "Camellos Pruebas" || m.SenderAddress != "hola@camellos.test" {
		t.Fatalf("sender: %q %q", m.SenderName, m.SenderAddress)
	}
}

func TestNoSMTPHostMailsNothing(t *testing.T) {
	t.Setenv("SMTP_HOST", "")
	k := testkit.New(t)
	forgot(t, k)
	time.Sleep(100 * time.Millisecond)
	if n := k.Count(mail.Collection, ""); n != 0 {
		t.Fatalf("outbox rows without SMTP: %d", n)
	}
}

func TestStartTLSWithATestCertificate(t *testing.T) {
	mb := testkit.NewTLSMailbox(t)
	k := boot(t, mb, "starttls")
	to := forgot(t, k)
	m := mb.Wait(to, 1, 10*time.Second)[0]
	if m.Subject != "Restablece tu contraseña de Camellos" {
		t.Fatalf("subject %q", m.Subject)
	}
	if !mail.WaitIdle(k.App, time.Minute) {
		t.Fatal("outbox did not drain")
	}
	if rec := outboxRow(t, k, to); rec.GetString("status") != mail.StatusSent || rec.GetString("html") != "" || rec.GetString("text") != "" {
		t.Fatalf("outbox after sending: %s %q", rec.GetString("status"), rec.GetString("text"))
	}
}

func TestStartTLSRequiredIsNeverSkipped(t *testing.T) {
	mb := testkit.NewMailbox(t) // offers no STARTTLS
	k := boot(t, mb, "starttls")
	to := forgot(t, k)
	deadline := time.Now().Add(time.Minute) // only stops a hung test
	for {
		rec := outboxRow(t, k, to)
		if rec.GetInt("attempts") >= 1 {
			if !strings.Contains(rec.GetString("lastError"), "STARTTLS") || rec.GetString("status") == mail.StatusSent {
				t.Fatalf("row: %s %q", rec.GetString("status"), rec.GetString("lastError"))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no attempt")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(mb.Mails()); n != 0 {
		t.Fatalf("%d mails went out in plain text", n)
	}
}

func TestServerDownThenBack(t *testing.T) {
	mb := testkit.NewMailbox(t)
	k := boot(t, mb, "off")
	mb.Stop()
	to := forgot(t, k)                      // the request succeeds while the server is down
	deadline := time.Now().Add(time.Minute) // only stops a hung test
	for outboxRow(t, k, to).GetInt("attempts") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("not retried")
		}
		time.Sleep(20 * time.Millisecond)
	}
	rec := outboxRow(t, k, to)
	if rec.GetString("status") != mail.StatusPending || rec.GetString("lastError") == "" {
		t.Fatalf("row while down: %s %q", rec.GetString("status"), rec.GetString("lastError"))
	}
	mb.Start()
	mb.Wait(to, 1, 10*time.Second)
	if !mail.WaitIdle(k.App, time.Minute) {
		t.Fatal("outbox did not drain")
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(mb.To(to)); n != 1 {
		t.Fatalf("mails = %d, want exactly 1", n)
	}
}

func TestServerAnswering5xx(t *testing.T) {
	mb := testkit.NewMailbox(t)
	k := boot(t, mb, "off")
	k.App.Settings().Logs.MaxDays = 1 // the test app keeps no log otherwise
	mb.Fail(554)
	to := forgot(t, k)
	deadline := time.Now().Add(time.Minute) // only stops a hung test
	for mb.Tried() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("not retried")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if rec := outboxRow(t, k, to); !strings.Contains(rec.GetString("lastError"), "554") {
		t.Fatalf("lastError %q", rec.GetString("lastError"))
	}
	mb.Fail(0)
	mb.Wait(to, 1, 10*time.Second)
	if !mail.WaitIdle(k.App, time.Minute) {
		t.Fatal("outbox did not drain")
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(mb.To(to)); n != 1 {
		t.Fatalf("mails = %d, want exactly 1", n)
	}
	// The failures were logged (PocketBase writes its log in batches).
	deadline = time.Now().Add(2 * time.Minute) // only stops a hung test
	for {
		var n int
		err := k.App.LogQuery().Select("count(*)").Where(dbx.HashExp{"message": "mail: send failed, will retry"}).Row(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("failures logged: %d", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestGivesUpAfterTheLastRetry(t *testing.T) {
	mb := testkit.NewMailbox(t)
	k := boot(t, mb, "off")
	mb.Fail(550)
	to := forgot(t, k)
	deadline := time.Now().Add(2 * time.Minute) // only stops a hung test
	for outboxRow(t, k, to).GetString("status") != mail.StatusFailed {
		if time.Now().After(deadline) {
			t.Fatal("never given up")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := mb.Tried(); n != 7 { // the first attempt and six retries
		t.Fatalf("attempts = %d", n)
	}
}

// TestOutboxSurvivesTheProcess: a mail written to the outbox by another
// process (or before a restart) is sent by this one's sender.
func TestOutboxSurvivesTheProcess(t *testing.T) {
	mb := testkit.NewMailbox(t)
	k := boot(t, mb, "off")
	u := k.CreateUser(users.RoleClient)
	k.CreateRecord(mail.Collection, map[string]any{
		"user": u.Id, "kind": "prueba", "toAddress": u.Email(), "subject": "Correo pendiente", "text": "hola", "html": "<p>hola</p>",
		"status": mail.StatusPending, "attempts": 0, "nextAttemptAt": time.Now().Add(-time.Minute).UTC(),
	})
	m := mb.Wait(u.Email(), 1, 10*time.Second)[0]
	if m.Subject != "Correo pendiente" || strings.TrimSpace(m.Text) != "hola" {
		t.Fatalf("mail: %q %q", m.Subject, m.Text)
	}
	// The server has the mail before the sender records it sent: wait for the record.
	if !mail.WaitIdle(k.App, time.Minute) {
		t.Fatal("the outbox did not drain")
	}
	if n, _ := k.App.CountRecords(mail.Collection, dbx.HashExp{"status": mail.StatusSent}); n != 1 {
		t.Fatalf("sent rows = %d", n)
	}
}

func TestTemplatesRenderBothParts(t *testing.T) {
	for _, kind := range []string{mail.KindPasswordReset, mail.KindVerify, mail.KindNotification} {
		r, err := mail.Render(kind, map[string]any{"Name": "Ana <b>", "Link": "http://x/y?token=a&b=c",
			"Title": "Título", "Body": "Cuerpo", "Unsubscribe": "http://x/notificaciones.html"})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if r.Subject == "" || strings.Contains(r.Subject, "\n") || r.Text == "" || !strings.HasPrefix(r.HTML, "<!doctype html>") {
			t.Errorf("%s: %+v", kind, r)
		}
		if strings.Contains(r.HTML, "<b>") {
			t.Errorf("%s: HTML not escaped", kind)
		}
		if !strings.Contains(r.HTML, `lang="es"`) || !strings.Contains(r.HTML, "#0b5d4b") {
			t.Errorf("%s: not the service's look", kind)
		}
	}
}

// TestCatchCommandPrintsMails: `camellos mail catch` receives over SMTP and
// prints the decoded mail.
func TestCatchCommandPrintsMails(t *testing.T) {
	k := testkit.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if cmd, _, err := mail.Command(k.App).Find([]string{"catch"}); err != nil || cmd.Flags().Lookup("addr").DefValue != "127.0.0.1:2525" {
		t.Fatalf("mail catch command: %v", err)
	}
	var out, errOut testkit.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mail.Catch(ctx, addr, &out, &errOut) }()
	var c *smtp.Client
	for i := 0; i < 100; i++ {
		if c, err = smtp.Dial(addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	msg := "From: a@example.com\r\nTo: b@example.com\r\nSubject: =?utf-8?q?Hola_se=C3=B1or?=\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n\r\nCuerpo del correo\r\n"
	if err := c.Mail("a@example.com"); err != nil {
		t.Fatal(err)
	}
	_ = c.Rcpt("b@example.com")
	w, _ := c.Data()
	fmt.Fprint(w, msg)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_ = c.Quit()
	deadline := time.Now().Add(time.Minute) // only stops a hung test
	for !strings.Contains(out.String(), "Cuerpo del correo") {
		if time.Now().After(deadline) {
			t.Fatalf("printed: %q (stderr %q)", out.String(), errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "Subject: Hola señor") || !strings.Contains(errOut.String(), addr) {
		t.Fatalf("printed: %q / %q", out.String(), errOut.String())
	}
	// A busy address is an error (exit non-zero).
	if err := mail.Catch(context.Background(), addr, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Fatal("busy port accepted")
	}
}

// TestNoMailQueuedForAnErasedUser closes the window that made TestErasure
// flake in CI: the notification dispatcher reads the addressee's e-mail,
// the account is erased (its outbox rows deleted), then the dispatcher
// queues the mail. Queue checks the user in the insert's transaction, so
// that late mail is never written; a mail to an enabled user, or to no
// user, still is.
func TestNoMailQueuedForAnErasedUser(t *testing.T) {
	mb := testkit.NewMailbox(t)
	k := boot(t, mb, "off")
	mb.Fail(550) // keep rows in the outbox: nothing here is about sending
	erased := k.CreateUser(users.RoleClient)
	erasedAddress := erased.Email()
	if err := users.Erase(k.App, users.Wrap(erased)); err != nil {
		t.Fatal(err)
	}
	enabled := k.CreateUser(users.RoleCamello)
	cases := []struct {
		name string
		user string
		to   string
		rows int
	}{
		{"erased user, address read before the erasure", erased.Id, erasedAddress, 0},
		{"enabled user", enabled.Id, enabled.Email(), 1},
		{"unknown user", "nadie123456789a", "nadie@example.com", 0},
		{"no user (an address only)", "", "buzon@example.com", 1},
	}
	for _, tc := range cases {
		err := mail.Queue(k.App, mail.Message{UserID: tc.user, Kind: "prueba", To: netmail.Address{Address: tc.to},
			Subject: "Aviso", HTML: "<p>hola</p>", Text: "hola"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n := k.Count(mail.Collection, "toAddress = {:a}", map[string]any{"a": tc.to}); n != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, n, tc.rows)
		}
	}
}
