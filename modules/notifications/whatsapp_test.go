package notifications_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/watest"
	"camellos/modules/notifications"
	"camellos/modules/users"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/pocketbase/tests"
)

// waKit is the service with WhatsApp pointed at a local model of the Cloud
// API, every template approved there.
func waKit(t *testing.T) (*testkit.Kit, *watest.Server) {
	t.Helper()
	wa := watest.New(t)
	for _, tp := range whatsapp.Templates {
		wa.Approve(tp.Name, whatsapp.Language, tp.Params(), tp.Category == whatsapp.CategoryAuthentication)
	}
	for k, v := range wa.Env() {
		t.Setenv(k, v)
	}
	k := newKit(t, nil, func(app *tests.TestApp) {
		whatsapp.SetOptions(app, whatsapp.Options{HTTPClient: wa.Client(), Poll: 50 * time.Millisecond})
	})
	wa.Webhook = k.URL + "/api/whatsapp/webhook"
	return k, wa
}

// waIdle waits for the deliveries and the WhatsApp outbox.
func waIdle(t *testing.T, k *testkit.Kit) {
	t.Helper()
	drain(t, k)
	if !whatsapp.WaitIdle(k.App, time.Minute) {
		t.Fatal("WhatsApp outbox did not drain")
	}
}

// A conversation's messages within the window go out on WhatsApp as the
// mail coalescer sends its mails: the first at once, the rest as one
// digest with their count and the latest message; another conversation is
// not held back by the first one's window.
func TestWhatsAppConversationDigest(t *testing.T) {
	k, wa := waKit(t)
	user, cookie := k.UserWithSession(users.RoleClient)
	testkit.Expect(t, k.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3007770000"}), http.StatusAccepted, "")
	waIdle(t, k)
	code := wa.Sent()[0].Params[0]
	testkit.Expect(t, k.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": code}), http.StatusOK, "")
	before := len(wa.Sent())
	say := func(job string, i int) {
		t.Helper()
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindMessage,
			Title: "Mensaje de Carlos", Body: fmt.Sprintf("mensaje %d", i), URL: "/trabajo.html?id=" + job,
			Data: map[string]any{"jobId": job, "camelloId": "c1"}}); err != nil {
			t.Fatal(err)
		}
		waIdle(t, k)
	}
	for i := 1; i <= 4; i++ {
		say("j1", i)
	}
	say("j2", 1) // another conversation: at once
	notifications.FlushMails(k.App)
	waIdle(t, k)
	sent := wa.Sent()[before:]
	if len(sent) != 3 {
		t.Fatalf("sent %d messages, want the first of each conversation and one digest: %+v", len(sent), sent)
	}
	for _, m := range sent {
		if m.Template != whatsapp.TemplateDigest.Name {
			t.Fatalf("template %s", m.Template)
		}
	}
	if sent[0].Params[0] != "1 mensaje" || sent[0].Params[2] != "mensaje 1" {
		t.Fatalf("first: %+v", sent[0])
	}
	if sent[1].Params[0] != "1 mensaje" || sent[1].Params[3] != "http://127.0.0.1:8090/trabajo.html?id=j2" {
		t.Fatalf("other conversation: %+v", sent[1])
	}
	if sent[2].Params[0] != "3 mensajes" || sent[2].Params[2] != "mensaje 4" {
		t.Fatalf("digest: %+v", sent[2])
	}
}
