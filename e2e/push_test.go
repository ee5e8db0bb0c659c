package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/watest"
	"camellos/modules/users"
	"camellos/modules/whatsapp"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/tests"
)

// TestServiceWorkerShowsPush registers sw.js from the notifications page,
// delivers a push with the service's payload through the DevTools protocol
// and checks the notification it shows (title, body, the url to open).
func TestServiceWorkerShowsPush(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	user, _ := k.UserWithSession(users.RoleClient)
	b := newBrowser(t, k)
	b.signIn(user.Id)
	b.visit("/notificaciones.html")

	if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: k.URL,
		BrowserContextID: b.contextID(),
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

	// The service's payload (Declarative Web Push), the earlier one, and
	// one the worker cannot read: each shows a notification.
	for _, tc := range []struct {
		name, payload, want string
	}{
		{"declarative", `{"web_push":8030,"notification":{"title":"Recordatorio de cita","body":"Mañana a las 9:00 con Rosa",` +
			`"navigate":"` + k.URL + `/trabajos.html?id=abc123","lang":"es-CO","dir":"ltr","tag":"n1","silent":false,` +
			`"data":{"kind":"APPOINTMENT_REMINDER","id":"n1","url":"/trabajos.html?id=abc123"}}}`,
			"Recordatorio de cita|Mañana a las 9:00 con Rosa|" + k.URL + "/trabajos.html?id=abc123|n1"},
		{"earlier form", `{"title":"Trabajo asignado","body":"Plomería en Chapinero","url":"/trabajos.html?id=j9","kind":"JOB_ASSIGNED","id":"n2"}`,
			"Trabajo asignado|Plomería en Chapinero|/trabajos.html?id=j9|n2"},
		{"unreadable", `esto no es JSON`, "Camellos|Tienes un aviso nuevo en Camellos.|/notificaciones.html|camellos"},
	} {
		title := strings.SplitN(tc.want, "|", 2)[0]
		// A push that reaches the worker while it is still starting up can be
		// dropped by the browser: deliver again until it is shown. The first
		// reading that found it stays: a later one, still in flight when the
		// poll ended, may land while a re-delivery replaces the notification
		// of the same tag (seen under load: "" read after it was shown).
		shown := `(navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => {
			const v = ns.filter(n => n.title === ` + "`" + title + "`" + `).map(n => [n.title, n.body, n.data && n.data.url, n.tag].join('|')).join(',');
			if (v) window.__shown = v;
		}), (window.__shown || '').length > 0)`
		b.do(chromedp.Evaluate[chromedp.Void](`window.__shown = ''`))
		for try := 0; ; try++ {
			if _, err := chromedp.Call(b.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
				Origin: k.URL, RegistrationID: regID, Data: tc.payload,
			}); err != nil {
				t.Fatalf("%s: deliver push: %v", tc.name, err)
			}
			pctx, pcancel := context.WithTimeout(b.ctx, 3*time.Second)
			_, err := chromedp.Run(pctx, chromedp.Poll[bool](shown, chromedp.WithPollingTimeout(2*time.Second)))
			pcancel()
			if err == nil {
				break
			}
			if try == 4 {
				t.Fatalf("%s: no notification shown after %d pushes: %v", tc.name, try+1, err)
			}
		}
		if got := b.str(`window.__shown`); got != tc.want {
			t.Fatalf("%s: notification %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestIOSGuide: on an iPhone's Safari outside a home-screen app Web Push
// cannot work, so the notifications page shows the Spanish guide
// "Compartir → Agregar a inicio" in place of the button, on a phone and on
// a wide screen (an iPad), with no axe violation; another browser keeps the
// button.
func TestIOSGuide(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	user, _ := k.UserWithSession(users.RoleClient)
	const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.4 Mobile/15E148 Safari/604.1"
	for _, tc := range []struct {
		name  string
		ua    string
		w, h  int64
		guide bool
	}{
		{"iphone-390", iphone, 390, 844, true},
		{"iphone-1366", iphone, 1366, 900, true},
		{"chromium-390", "", 390, 844, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, k)
			if tc.ua != "" {
				b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
					_, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: tc.ua, Platform: "iPhone"})
					return err
				}))
			}
			b.viewport(tc.w, tc.h)
			b.signIn(user.Id)
			b.visit("/notificaciones.html")
			b.waitJS(`!document.querySelector('#prefs-box').hidden`, "the inbox and preferences")
			guide := b.str(`(() => { const g = document.querySelector('#ios-guide'); return g.hidden || !g.getClientRects().length ? '' : g.textContent; })()`)
			button := b.str(`String(document.querySelector('#push-btn').getClientRects().length > 0)`)
			if tc.guide {
				if !strings.Contains(guide, "Compartir") || !strings.Contains(guide, "Agregar a inicio") || button != "false" {
					t.Fatalf("guide %q, button shown %s", guide, button)
				}
			} else if guide != "" || button != "true" {
				t.Fatalf("guide %q, button shown %s", guide, button)
			}
			b.check("notificaciones-ios-" + tc.name)
		})
	}
}

// TestWhatsAppOptIn: the notifications page registers a number, the code
// arrives over WhatsApp (the local model of the Cloud API), typed in it
// confirms the channel; on a phone, with no axe violation.
func TestWhatsAppOptIn(t *testing.T) {
	t.Parallel()
	wa := watest.New(t)
	for _, tp := range whatsapp.Templates {
		wa.Approve(tp.Name, whatsapp.Language, tp.Params(), tp.Category == whatsapp.CategoryAuthentication)
	}
	k := testkit.New(t, withEnv(wa.Env()), func(app *tests.TestApp) {
		whatsapp.SetOptions(app, whatsapp.Options{HTTPClient: wa.Client(), Poll: 50 * time.Millisecond})
	})
	user, _ := k.UserWithSession(users.RoleClient)
	b := newBrowser(t, k)
	b.viewport(390, 844)
	b.signIn(user.Id)
	b.visit("/notificaciones.html")
	b.waitJS(`!document.querySelector('#wa-box').hidden && document.querySelector('#wa-phone')`, "the WhatsApp card")
	b.check("notificaciones-whatsapp")
	b.typeIn([][2]string{{"#wa-phone", "300 123 4567"}})
	b.click(`#wa-phone-form button[type=submit]`)
	b.near("#wa-msg", "Te enviamos un código", "the code sent")
	if !whatsapp.WaitIdle(k.App, 20*time.Second) {
		t.Fatal("the code was not sent")
	}
	sent := wa.Sent()
	if len(sent) != 1 || sent[0].To != "573001234567" {
		t.Fatalf("sent %+v", sent)
	}
	b.check("notificaciones-whatsapp-codigo")
	b.typeIn([][2]string{{"#wa-code", sent[0].Params[0]}})
	b.click(`#wa-code-form button[type=submit]`)
	b.near("#wa-body", "Recibes los avisos en .573001234567", "the channel confirmed")
	b.check("notificaciones-whatsapp-confirmado")
}
