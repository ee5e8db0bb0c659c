package e2e_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"camellos/internal/mptest"
	"camellos/modules/ledger"
	"camellos/modules/payments"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/tests"
)

// historyNow is the URL of the tab's current history entry (the URL asked
// for, even when the page shown is Chrome's error page).
func (b *browser) historyNow() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	var at string
	_, _ = chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		h, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
		if err == nil && h.CurrentIndex >= 0 && int(h.CurrentIndex) < len(h.Entries) {
			at = h.Entries[h.CurrentIndex].URL
		}
		return err
	}))
	return at
}

// TestPaymentOnTheJobPage walks a job's payment in the browser, at both
// sizes, against mptest (Mercado Pago's published contract, signatures
// included), all on the job page's #pago (issue 24): the client of an
// assigned job with an agreed price sees the cancellation policy and pays
// (the page goes to the preference's checkout); the test plays the buyer
// (mptest's Pay) and Mercado Pago's signed webhook; the buyer's browser
// comes back by the preference's back URL (trabajo.html?id=…&pago=…) and
// sees the money held. The camello sees what is held for it, starts and
// completes; an old pago.html link brings the client to the job page, where
// it confirms and the money is released (phone) or opens a dispute with a
// reason (desktop); the camello sees it in "Ganancias".
//
// mptest serves Mercado Pago's API, not its checkout page (and on a
// self-signed certificate): the test waits until the tab went to the
// preference's checkout URL, then navigates to the back URL as the buyer's
// browser would after paying there.
func TestPaymentOnTheJobPage(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			dispute := vp.name == "desktop"
			mp := mptest.New(t)
			w := seeded(t, withEnv(map[string]string{"MERCADOPAGO_ACCESS_TOKEN": mp.Token,
				"MERCADOPAGO_WEBHOOK_SECRET": mp.Secret, "MERCADOPAGO_API_URL": mp.URL}),
				func(app *tests.TestApp) { payments.SetHTTPClient(app, mp.Client()) })
			k := w.k
			mp.Webhook = k.URL + payments.WebhookPath
			job, _, quote := quotedJob(t, w, "Arreglar la fuga del lavamanos", 120000, "Llevo el repuesto.")
			if r := k.Post("/api/quotes/"+quote+"/accept", k.Session(mustUser(t, w, w.client)), nil); r.Status != http.StatusOK {
				t.Fatalf("accept: %d %s", r.Status, r.Raw)
			}

			// The client finds the payment on the job page and pays.
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.signIn(w.client)
			b.visit("/trabajo.html?id=" + job)
			b.waitJS(`!document.querySelector('#pago').hidden && document.querySelector('#pay-btn') && !document.querySelector('#policy').hidden`, "the pay button and the policy on the job page")
			if txt := b.str(`document.querySelector('#pago').textContent`); !strings.Contains(txt, "Camellos guarda el dinero") {
				t.Errorf("the payment on the job page: %q", txt)
			}
			b.str(`(document.querySelector('#pago').scrollIntoView(), '')`) // the person scrolls to it
			b.near("#pay-btn", "Pagar .*120.000", "the price on the pay button")
			b.check("trabajo-pago-antes-de-pagar")
			b.click("#pay-btn")
			var pay *payments.Payment
			deadline := time.Now().Add(waitLimit)
			for pay == nil || pay.Status() != payments.StatusPending {
				if time.Now().After(deadline) {
					t.Fatalf("no pending payment after the pay button (at %s)", b.location())
				}
				time.Sleep(50 * time.Millisecond)
				if rec, err := k.App.FindFirstRecordByData(payments.Collection, "job", job); err == nil {
					pay, _ = payments.Find(k.App, rec.Id)
				}
			}
			pref := mp.PreferenceByRef(pay.Id)
			if pref == nil {
				t.Fatal("no preference for the payment")
			}
			// The page goes to the preference's checkout: the tab's current
			// history entry is its URL (mptest serves no checkout page, on a
			// self-signed certificate: Chrome shows its error page there).
			for at := ""; at != pref.InitPoint; at = b.historyNow() {
				if time.Now().After(deadline) {
					t.Fatalf("the page did not go to the checkout %s (at %s)", pref.InitPoint, at)
				}
				time.Sleep(50 * time.Millisecond)
			}
			// The buyer pays there; Mercado Pago notifies, signed.
			gid := mp.Pay(t, pref.ID, "approved", "accredited")
			if st := mptest.Deliver(k.Client, mp.Notification(gid)); st != http.StatusOK {
				t.Fatalf("webhook: %d", st)
			}
			back, err := url.Parse(pref.BackURLs["success"].(string))
			if err != nil || back.Path != "/trabajo.html" || back.Query().Get("id") != job || back.Query().Get("pago") != pay.Id {
				t.Fatalf("the back URL %v (%v)", pref.BackURLs["success"], err)
			}
			b.visit(back.RequestURI())
			b.waitJS(`!document.querySelector('#pay-state').hasAttribute('aria-busy')`, "the payment checked on the job page")
			b.str(`(document.querySelector('#pago').scrollIntoView(), '')`)
			b.near("#pay-state", "Camellos guarda .*120.000 hasta que el trabajo esté hecho", "the money held")
			b.check("trabajo-pago-retenido")

			// The camello starts and completes on the job page.
			b.clearCookies()
			b.signIn(w.camUser)
			b.visit("/trabajo.html?id=" + job)
			b.waitJS(`!document.querySelector('#pago').hidden && !document.querySelector('#pay-state').hasAttribute('aria-busy')`, "the payment on the camello's job page")
			b.str(`(document.querySelector('#pago').scrollIntoView(), '')`)
			b.near("#pay-state", "Camellos guarda .*120.000 hasta que el trabajo esté hecho", "what is held for the camello")
			if b.str(`String(!document.querySelector('#settle').hidden || !!document.querySelector('#pay-btn'))`) != "false" {
				t.Error("the camello is offered the client's payment steps")
			}
			b.waitJS(`(document.querySelector('#job-`+job+` .job-actions button')||{}).textContent === 'Iniciar'`, "the start button")
			b.click("#job-" + job + " .job-actions button")
			b.confirm(true)
			b.near("#job-msg", "Trabajo iniciado", "the job started")
			b.waitJS(`(document.querySelector('#job-`+job+` .job-actions button')||{}).textContent === 'Completar'`, "the complete button")
			b.click("#job-" + job + " .job-actions button")
			b.confirm(true)
			b.near("#job-msg", "Trabajo completado", "the job completed")
			b.check("trabajo-pago-camello-completado")

			// The client confirms (the money released) or disputes.
			b.clearCookies()
			b.signIn(w.client)
			// An old link (a notification, a bookmark) lands on the job page.
			b.visit("/pago.html?id=" + job)
			b.waitJS(`location.pathname === '/trabajo.html' && !document.querySelector('#settle').hidden`, "the confirmation or dispute on the job page")
			b.str(`(document.querySelector('#settle').scrollIntoView(), '')`)
			b.near("#settle-until", "liberamos el pago", "the client's window")
			b.check("trabajo-pago-confirmar-o-disputar")
			if dispute {
				b.click("#confirm-btn") // "No": nothing moves
				b.confirm(false)
				b.typeIn([][2]string{{"#reason", "Sigue goteando el lavamanos."}})
				b.click("#dispute-form button[type=submit]")
				b.near("#pay-state", "Pago en disputa", "the dispute opened")
				b.near("#pay-state", "Motivo de la disputa: Sigue goteando", "the reason shown")
				b.check("trabajo-pago-en-disputa")
			} else {
				b.click("#confirm-btn")
				b.confirm(true)
				b.near("#pay-state", "Pago liberado al camello", "the money released")
				b.check("trabajo-pago-liberado")
			}
			want := map[bool]string{false: payments.StatusReleased, true: payments.StatusDisputed}[dispute]
			if p, err := payments.Find(k.App, pay.Id); err != nil || p.Status() != want {
				t.Fatalf("the payment after the client's step: %v (%v), want %s", p.Status(), err, want)
			}

			// The camello sees it in Ganancias: its balance and what is held.
			b.clearCookies()
			b.signIn(w.camUser)
			b.visit("/ganancias.html")
			b.waitJS(`!document.querySelector('#months').hasAttribute('aria-busy') && document.querySelector('#policies input:checked')`, "the earnings")
			// A camello's account is credited (negative) with what it is owed.
			balance, err := ledger.Balance(k.App, "camello:"+w.camello)
			if err != nil {
				t.Fatal(err)
			}
			digits := regexp.MustCompile(`\D`)
			if got := digits.ReplaceAllString(b.str(`document.querySelector('#balance').textContent`), ""); got != strconv.FormatInt(-balance, 10) {
				t.Errorf("Ganancias shows a balance of %s, the ledger %d", got, balance)
			}
			if dispute {
				if got := b.str(`document.querySelector('#pending').textContent`); !strings.Contains(got, "120.000") {
					t.Errorf("the disputed money is not shown held: %q", got)
				}
			} else if balance == 0 {
				t.Error("the released payment left the camello's balance at 0")
			}
			t.Logf("Ganancias: balance %s, held %s (ledger %d)", b.str(`document.querySelector('#balance').textContent`), b.str(`document.querySelector('#pending').textContent`), balance)
			b.check("ganancias-" + map[bool]string{false: "liberado", true: "en-disputa"}[dispute])
		})
	}
}
