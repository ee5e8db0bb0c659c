package e2e_test

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/mail"

	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/tests"
)

var mailLink = regexp.MustCompile(`https?://[^\s"<>]+`)

// linkTo returns the path and query of the link to page in a mail.
func linkTo(t *testing.T, m mail.Caught, page string) string {
	t.Helper()
	for _, l := range mailLink.FindAllString(m.Text, -1) {
		u, err := url.Parse(strings.ReplaceAll(l, "&amp;", "&"))
		if err == nil && u.Path == "/"+page {
			return u.RequestURI()
		}
	}
	t.Fatalf("no link to %s in %q", page, m.Text)
	return ""
}

// mailEnv points a service at a test mailbox (Mailbox.Env without
// t.Setenv, for a parallel test).
func mailEnv(mb *testkit.Mailbox) map[string]string {
	return map[string]string{"SMTP_HOST": mb.Host, "SMTP_PORT": strconv.Itoa(mb.Port), "SMTP_TLS": "off",
		"MAIL_FROM": "Camellos <no-responder@camellos.co>"}
}

// TestAccountPages walks the account pages with real mail (an SMTP server
// on 127.0.0.1): sign-up, the verification link opened in the browser, the
// account page showing the state; forgot password, the reset link, the new
// password signing in; the data export link; the account deleted after a
// confirmation.
func TestAccountPages(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			mb := testkit.NewMailbox(t)
			k := testkit.New(t, withEnv(mailEnv(mb)), func(app *tests.TestApp) {
				mail.SetOptions(app, mail.Options{Backoff: []time.Duration{100 * time.Millisecond, 300 * time.Millisecond}, Poll: 100 * time.Millisecond})
			})
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			const email, password = "lucia.verifica@example.com", "clave-segura-123"

			b.visit("/registro.html")
			b.typeIn([][2]string{{"#name", "Lucía Verifica"}, {"#email", email}, {"#password", password}, {"#confirmPassword", password}})
			b.click("#acceptTerms")
			b.click(`#form button[type=submit]`)
			b.waitJS(`location.pathname === '/' && /Cuenta/.test(document.querySelector('#nav').textContent)`, "signed up")
			b.visit("/cuenta.html")
			b.near("#verified", "Sin verificar", "the verification state")
			b.check("cuenta-sin-verificar")
			verify := mb.Wait(email, 1, 15*time.Second)[0]
			b.visit(linkTo(t, verify, "verificar.html"))
			b.near("#result", "verificado", "the address verified")
			b.check("verificar-hecho")
			b.visit("/cuenta.html")
			b.near("#verified", "Verificado", "the verified state")
			b.waitJS(`document.querySelector('#export').getAttribute('href') === '/api/me/export'`, "the export link")

			// Forgotten password: the same answer for every address, then the link.
			b.clearCookies()
			b.visit("/olvide.html")
			b.typeIn([][2]string{{"#email", email}})
			b.click(`#form button[type=submit]`)
			b.near("#alert", "te enviamos un enlace", "the forgot answer beside the button")
			b.check("olvide-enviado")
			var reset mail.Caught
			for _, m := range mb.Wait(email, 2, 15*time.Second) {
				if strings.Contains(m.Text, "restablecer.html") {
					reset = m
				}
			}
			b.visit(linkTo(t, reset, "restablecer.html"))
			b.typeIn([][2]string{{"#password", "otra-clave-456"}, {"#confirmPassword", "otra-clave-45"}})
			b.click(`#form button[type=submit]`)
			b.near("#err-confirmPassword", "no coinciden", "the mismatch beside the field")
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#confirmPassword').value = ''`))
			b.typeIn([][2]string{{"#confirmPassword", "otra-clave-456"}})
			b.click(`#form button[type=submit]`)
			b.near(".alert.ok", "contraseña quedó guardada", "the password reset")
			b.check("restablecer-hecho")
			b.visit("/ingresar.html?next=%2Fcuenta.html")
			b.typeIn([][2]string{{"#email", email}, {"#password", "otra-clave-456"}})
			b.click(`#form button[type=submit]`)
			b.waitJS(`location.pathname === '/cuenta.html' && document.querySelector('#del-form')`, "signed in with the new password")

			// Deleting the account asks first.
			b.typeIn([][2]string{{"#del-password", "otra-clave-456"}})
			b.click(`#del-form button[type=submit]`)
			b.confirm(true)
			b.near("#deleted", "eliminada", "the account deleted")
			// The session is gone: the page drops the signed-in navigation (issue 24, defect 8).
			b.waitJS(`!document.querySelector('#logout') && document.querySelector('#nav a[href="/ingresar.html"]') && !document.querySelector('#nav a[href="/cuenta.html"]')`, "the guest navigation")
			b.check("cuenta-eliminada")
		})
	}
}
