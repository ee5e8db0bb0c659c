package e2e_test

import (
	"context"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/seed"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestWithoutJavaScript (issue 24, defect 8) walks sign-in and publishing
// with JavaScript disabled (DevTools' Emulation.setScriptExecutionDisabled),
// at both sizes: a wrong password answers the page with the error and the
// e-mail kept; the right one signs in and goes to ?next=; a job refused
// (title too short) answers the form with every typed value and the service
// kept, the error beside the title; corrected, it is published and the
// browser lands on its page. Nothing typed is ever wiped.
func TestWithoutJavaScript(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			// The service's log: on a failure, what the server-side
			// forwards answered (modules/web logs a form page it could
			// not fill).
			log := &testkit.Buffer{}
			w := seeded(t, testkit.LogTo(log))
			k := w.k
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("service log (web):\n%s", lines(log, "web:", "/api/categories", "/api/services"))
				}
			})
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.scripts(false)
			submit := func(sel string) {
				b.do(chromedp.Click(css(sel + ` button[type=submit]`)))
			}
			b.do(chromedp.Navigate(k.URL + "/ingresar.html?next=/publicar.html"))
			b.do(chromedp.WaitVisible(css("#email")))
			if b.str(`document.querySelector('noscript') ? 'y' : ''`) != "y" {
				t.Fatal("no <noscript> notice")
			}
			b.typeIn([][2]string{{"#email", seed.ClientEmail}, {"#password", "no-es-la-clave"}})
			submit("#form")
			b.waitJS(`/Credenciales inválidas/.test(document.querySelector('#alert').textContent)`, "the wrong password said without JavaScript")
			if v := b.str(`document.querySelector('#email').value`); v != seed.ClientEmail {
				t.Errorf("the e-mail was wiped: %q", v)
			}
			if v := b.str(`document.querySelector('#password').value`); v != "" {
				t.Errorf("the password came back in the page")
			}
			b.consoleErrors() // the 401 of the refusal
			b.checkNoJS("sin-js-ingresar-error")
			b.typeIn([][2]string{{"#password", seed.ClientPassword}})
			submit("#form")
			b.waitJS(`location.pathname === '/publicar.html' && document.querySelectorAll('#serviceId option').length > 1`, "signed in, on the publish form with its services",
				`document.querySelector('#serviceId') && document.querySelector('#serviceId').outerHTML.slice(0, 600)`)

			// Publishing: refused (title too short), every value kept.
			b.typeIn([][2]string{{"#title", "ab"}, {"#description", "Dos paredes con humedad."}, {"#city", "Bogotá"},
				{"#neighborhood", "Chapinero"}, {"#address", "Calle 45 # 12-30"}})
			svc := b.str(`document.querySelector('#serviceId optgroup option').value`)
			b.do(chromedp.SetValue(css("#serviceId"), svc))
			submit("#form")
			b.waitJS(`document.querySelector('#err-title').textContent.length > 0`, "the title's error beside it")
			for sel, want := range map[string]string{"#title": "ab", "#description": "Dos paredes con humedad.", "#city": "Bogotá",
				"#neighborhood": "Chapinero", "#address": "Calle 45 # 12-30", "#serviceId": svc} {
				if got := b.str(`document.querySelector('` + sel + `').value`); got != want {
					t.Errorf("%s wiped: %q, want %q", sel, got, want)
				}
			}
			if b.str(`document.querySelector('#title').getAttribute('aria-invalid')`) != "true" || !strings.Contains(b.str(`document.querySelector('#alert').textContent`), "Datos inválidos") {
				t.Error("the refusal is not said on the form")
			}
			b.consoleErrors() // the 400 of the refusal
			b.checkNoJS("sin-js-publicar-error")
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#title').value = ''`))
			b.typeIn([][2]string{{"#title", "Pintar la sala sin JavaScript"}})
			submit("#form")
			b.waitJS(`location.pathname === '/trabajo.html' && new URLSearchParams(location.search).get('id')`, "the published job's page")
			job, err := k.App.FindFirstRecordByData("jobs", "title", "Pintar la sala sin JavaScript")
			if err != nil || job.GetString("address") != "Calle 45 # 12-30" || job.GetString("client") != w.client {
				t.Fatalf("the job published without JavaScript: %v %v", job, err)
			}
			if !strings.Contains(b.location(), job.Id) {
				t.Errorf("landed on %s, not the job's page", b.location())
			}
		})
	}
}

// TestWaitSeesChangesWithoutJavaScript: waitJS sees a condition become
// true while the page's JavaScript is off. A poller inside the page (the
// old waitJS, chromedp.Poll) runs on the page's timers, which do not fire
// then: it saw the first state only and waited out its deadline, which
// failed TestWithoutJavaScript in CI whenever the page was still being
// parsed at the first look.
func TestWaitSeesChangesWithoutJavaScript(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	b := newBrowser(t, k)
	b.scripts(false)
	b.do(chromedp.Navigate(k.URL + "/ingresar.html"))
	b.do(chromedp.Evaluate[chromedp.Void](`window.__since = Date.now()`))
	b.waitJS(`Date.now() - window.__since > 300`, "a condition that becomes true after the first look")
}

// checkNoJS is check for a page without JavaScript: axe and the touch
// targets need a script, so they run with scripts allowed for the check
// only (the page's own scripts are not run again: nothing reloads).
func (b *browser) checkNoJS(state string) {
	b.t.Helper()
	b.scripts(true)
	defer b.scripts(false)
	b.noJunk()
	if errs := b.consoleErrors(); len(errs) > 0 {
		b.t.Errorf("console errors on %s: %v", state, errs)
	}
	b.axe(state)
	b.shoot(state)
}

// scripts turns the page's JavaScript on or off (DevTools'
// Emulation.setScriptExecutionDisabled).
func (b *browser) scripts(on bool) {
	b.t.Helper()
	b.noScripts = !on
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on})
		return err
	}))
}

// lines returns the lines of log that contain one of subs.
func lines(log *testkit.Buffer, subs ...string) string {
	var out []string
	for _, line := range strings.Split(log.String(), "\n") {
		for _, sub := range subs {
			if strings.Contains(line, sub) {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
