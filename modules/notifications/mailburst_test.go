package notifications_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/mail"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/tests"
)

// A burst of messages in one conversation mails its recipient once: the
// first message at once, the ones that follow within the quarter hour
// together in one mail carrying their count when the window ends (here
// FlushMails ends it), through the outbox and a real SMTP server. The
// inbox keeps every message; another conversation (the other recipient)
// has its own window.
func TestMessageBurstIsMailedOnce(t *testing.T) {
	mb := testkit.NewMailbox(t)
	mb.Env(t, "off")
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t, func(app *tests.TestApp) {
		mail.SetOptions(app, mail.Options{Backoff: []time.Duration{100 * time.Millisecond}, Poll: 100 * time.Millisecond})
	})
	k := p.K
	job := p.Job("ASIGNADO")
	path := "/api/jobs/" + job.Id + "/messages"
	camEmail := p.CamUser.Email()
	mailsTo := func(user string) int {
		return k.Count("mail_outbox", "user = {:u} AND kind = {:k}", map[string]any{"u": user, "k": mail.KindNotification + ":" + notifications.KindMessage})
	}
	const burst = 30
	for i := 0; i < burst; i++ {
		testkit.Expect(t, k.Post(path, p.ClientCookie, map[string]any{"body": fmt.Sprintf("Mensaje %d", i)}), 201, "")
	}
	drain(t, k)
	if n := mailsTo(p.CamUser.Id); n != 1 {
		t.Fatalf("%d messages wrote %d mails to the camello, want 1", burst, n)
	}
	first := mb.Wait(camEmail, 1, 20*time.Second)
	if len(first) != 1 || !strings.Contains(first[0].Text, "Mensaje 0") {
		t.Fatalf("first mail: %+v", first)
	}
	if n := k.Count("notifications", "user = {:u} AND kind = 'MESSAGE'", map[string]any{"u": p.CamUser.Id}); n != burst {
		t.Fatalf("inbox holds %d messages, want %d", n, burst)
	}

	// The window ends: one mail with the count of the messages held back.
	notifications.FlushMails(k.App)
	got := mb.Wait(camEmail, 2, 20*time.Second)
	if len(got) != 2 {
		t.Fatalf("mails after the window: %d", len(got))
	}
	summary := got[1]
	if !strings.Contains(summary.Subject+summary.Text, fmt.Sprintf("%d mensajes nuevos", burst-1)) || !strings.Contains(summary.Text, fmt.Sprintf("Mensaje %d", burst-1)) {
		t.Fatalf("summary mail: %q\n%s", summary.Subject, summary.Text)
	}

	// A new window started with that mail: one more message waits for it.
	testkit.Expect(t, k.Post(path, p.ClientCookie, map[string]any{"body": "Uno más"}), 201, "")
	drain(t, k)
	if n := mailsTo(p.CamUser.Id); n != 2 {
		t.Fatalf("a message within the new window was mailed at once (%d mails)", n)
	}
	notifications.FlushMails(k.App)
	got = mb.Wait(camEmail, 3, 20*time.Second)
	if len(got) != 3 || !strings.Contains(got[2].Subject+got[2].Text, "1 mensaje nuevo") {
		t.Fatalf("third mail: %d %+v", len(got), got[len(got)-1].Subject)
	}
	notifications.FlushMails(k.App) // nothing held back: nothing sent
	drain(t, k)
	if n := mailsTo(p.CamUser.Id); n != 3 {
		t.Fatalf("an empty window mailed (%d mails)", n)
	}

	// The other side of the conversation has its own window.
	testkit.Expect(t, k.Post(path, p.CamCookie, map[string]any{"body": "Voy en camino"}), 201, "")
	drain(t, k)
	if n := mailsTo(p.Client.Id); n != 1 {
		t.Fatalf("the client's first message mail: %d", n)
	}
}
