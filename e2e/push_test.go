package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/users"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"
)

// TestServiceWorkerShowsPush registers sw.js from the notifications page,
// delivers a push with the service's payload through the DevTools protocol
// and checks the notification it shows (title, body, the url to open).
func TestServiceWorkerShowsPush(t *testing.T) {
	k := testkit.New(t)
	user, _ := k.UserWithSession(users.RoleClient)
	b := newBrowser(t, k)
	b.signIn(user.Id)
	b.visit("/notificaciones.html")

	if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: k.URL,
	}); err != nil {
		t.Fatalf("grant notifications: %v", err)
	}
	regs := chromedp.Events(b.ctx, serviceworker.WorkerRegistrationUpdated)
	if _, err := chromedp.Call(b.ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("service worker domain: %v", err)
	}
	b.do(chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => navigator.serviceWorker.ready).then(() => { window.__swReady = true })`))
	b.waitJS(`window.__swReady`, "the service worker active")

	var regID serviceworker.RegistrationID
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	for ev, err := range regs {
		if err != nil {
			t.Fatalf("no registration event: %v", err)
		}
		for _, r := range ev.Registrations {
			if strings.HasPrefix(r.ScopeURL, k.URL) && !r.IsDeleted {
				regID = r.RegistrationID
			}
		}
		if regID != "" || ctx.Err() != nil {
			break
		}
	}
	if regID == "" {
		t.Fatal("the service worker registration was not reported")
	}

	payload := `{"title":"Recordatorio de cita","body":"Mañana a las 9:00 con Rosa","url":"/trabajos.html?id=abc123","kind":"APPOINTMENT_REMINDER","id":"n1"}`
	// A push that reaches the worker while it is still starting up can be
	// dropped by the browser: deliver again until it is shown.
	shown := `(navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => {
		window.__shown = ns.map(n => [n.title, n.body, n.data && n.data.url, n.tag].join('|')).join(',');
	}), (window.__shown || '').length > 0)`
	for try := 0; ; try++ {
		if _, err := chromedp.Call(b.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: k.URL, RegistrationID: regID, Data: payload,
		}); err != nil {
			t.Fatalf("deliver push: %v", err)
		}
		pctx, pcancel := context.WithTimeout(b.ctx, 3*time.Second)
		_, err := chromedp.Run(pctx, chromedp.Poll[bool](shown, chromedp.WithPollingTimeout(2*time.Second)))
		pcancel()
		if err == nil {
			break
		}
		if try == 4 {
			t.Fatalf("no notification shown after %d pushes: %v", try+1, err)
		}
	}
	if got, want := b.str(`window.__shown`), "Recordatorio de cita|Mañana a las 9:00 con Rosa|/trabajos.html?id=abc123|n1"; got != want {
		t.Fatalf("notification %q, want %q", got, want)
	}
}
