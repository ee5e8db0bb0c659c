package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"camellos/hardening"

	"camellos/internal/testkit"
	"camellos/modules/seed"
	"camellos/modules/users"

	"github.com/chromedp/chromedp"
)

// viewports are the two sizes every page is checked at.
var viewports = []struct {
	name string
	w, h int64
}{{"phone", 390, 844}, {"desktop", 1366, 900}}

// world is a service on a seeded marketplace, with the ids of the demo
// users and the demo camello.
type world struct {
	k                      *testkit.Kit
	client, camUser, admin string
	camello, clientJob     string
	openJob, assignedJob   string
}

// seeded boots the service on a seeded marketplace and returns its world.
// The marketplace is seeded once for the package (the first caller seeds
// and snapshots it); every caller gets a service of its own on a copy.
func seeded(t *testing.T, opts ...testkit.Option) *world {
	t.Helper()
	defer spent("seeded", time.Now())
	seedSnap.once.Do(func() {
		dir, err := os.MkdirTemp("", "camellos-e2e-seed-")
		if err != nil {
			seedSnap.err = err
			return
		}
		seedSnap.dir = dir
		k := testkit.New(t)
		if _, err := seed.Run(k.App, seed.Options{Camellos: 30, Clients: 4}); err != nil {
			seedSnap.err = fmt.Errorf("seed: %w", err)
			return
		}
		seedSnap.err = testkit.Snapshot(k, filepath.Join(dir, "snap"))
	})
	if seedSnap.err != nil {
		t.Fatal(seedSnap.err)
	}
	k := testkit.NewFrom(t, filepath.Join(seedSnap.dir, "snap"), opts...)
	w := &world{k: k}
	for _, u := range []struct {
		email string
		dst   *string
	}{{seed.ClientEmail, &w.client}, {seed.CamelloEmail, &w.camUser}, {seed.AdminEmail, &w.admin}} {
		rec, err := k.App.FindAuthRecordByEmail(users.Collection, u.email)
		if err != nil {
			t.Fatal(err)
		}
		*u.dst = rec.Id
	}
	cam, err := k.App.FindFirstRecordByData("camellos", "user", w.camUser)
	if err != nil {
		t.Fatal(err)
	}
	w.camello = cam.Id
	if j, err := k.App.FindFirstRecordByFilter("jobs", "client = {:c} && provider = {:p}", map[string]any{"c": w.client, "p": w.camello}); err == nil {
		w.clientJob = j.Id
	}
	if j, err := k.App.FindFirstRecordByFilter("jobs", "client = {:c} && status = 'ASIGNADO' && provider = {:p}", map[string]any{"c": w.client, "p": w.camello}); err == nil {
		w.assignedJob = j.Id
	}
	if j, err := k.App.FindFirstRecordByFilter("jobs", "status = 'PENDIENTE' && provider = ''", nil); err == nil {
		w.openJob = j.Id
	}
	return w
}

// TestPagesRender opens every page on a seeded marketplace as a guest, a
// client, a camello and an admin, at phone and desktop size, and checks each
// as drawn: no JavaScript or console error, no layout jump, zero axe
// violations, a screenshot.
func TestPagesRender(t *testing.T) {
	t.Parallel()
	w := seeded(t)
	k := w.k
	profile := "/camello.html?id=" + w.camello
	job := "/trabajo.html?id=" + w.clientJob

	pages := []struct {
		name    string
		as      string // "", client, camello or admin
		path    string
		ready   string // JS condition once the page has drawn
		errorOK bool   // the page answers a refusal on purpose (logged by the browser)
		needs   []string
	}{
		{"home", "", "/", `document.querySelectorAll('#results .camello-card').length > 0`, false, nil},
		{"perfil", "", profile, `document.querySelector('#profile h1')`, false, nil},
		{"registro-camello", "", "/registro-camello.html", `!/Cargando/.test(document.querySelector('#services').textContent)`, false, nil},
		{"registro", "", "/registro.html", `document.querySelector('#form')`, false, nil},
		{"ingresar", "", "/ingresar.html", `document.querySelector('#form')`, false, nil},
		{"olvide", "", "/olvide.html", `document.querySelector('#form')`, false, nil},
		{"restablecer", "", "/restablecer.html?token=abc", `document.querySelector('#form')`, false, nil},
		{"verificar", "", "/verificar.html?token=abc", `!/Verificando/.test(document.querySelector('#result').textContent)`, true, nil},
		{"legal-terminos", "", "/legal.html?slug=terminos", `!/Cargando/.test(document.querySelector('#doc').textContent)`, false, nil},
		{"legal-privacidad", "", "/legal.html?slug=privacidad", `!/Cargando/.test(document.querySelector('#doc').textContent)`, false, nil},
		{"no-existe", "", "/no/existe", `document.querySelector('h1')`, true, nil},
		{"perfil-cliente", "client", profile, `document.querySelector('#profile h1') && !/Cargando horarios/.test(document.querySelector('#profile').textContent)`, false, nil},
		{"trabajos-cliente", "client", "/trabajos.html", `document.querySelectorAll('#jobs .job').length > 0`, false, nil},
		{"trabajo-cliente", "client", job, `!document.querySelector('#job').hasAttribute('aria-busy')`, false, []string{"GET /api/jobs/{id}/quotes", "GET /api/jobs/{id}/messages"}},
		{"publicar", "client", "/publicar.html", `document.querySelectorAll('#serviceId option').length > 1`, false, nil},
		{"pago", "client", "/pago.html?id=" + w.assignedJob, `location.pathname === '/trabajo.html' && !document.querySelector('#job').hasAttribute('aria-busy') && (document.querySelector('#pago').hidden || !document.querySelector('#pay-state').hasAttribute('aria-busy'))`, false, nil}, // old links land on the job page's #pago (issue 24)
		{"notificaciones", "client", "/notificaciones.html", `!document.querySelector('#inbox').hasAttribute('aria-busy')`, false, nil},
		{"cuenta-cliente", "client", "/cuenta.html", `document.querySelector('#me-form')`, false, nil},
		{"agenda", "camello", "/agenda.html", `!document.querySelector('#appointments').hasAttribute('aria-busy') && document.querySelector('#weekly .day-row')`, false, []string{"GET /api/agenda/calendar"}},
		{"trabajos-camello", "camello", "/trabajos.html", `document.querySelectorAll('#jobs .job').length > 0`, false, nil},
		{"ganancias", "camello", "/ganancias.html", `!document.querySelector('#months').hasAttribute('aria-busy') && document.querySelector('#policies input:checked')`, false, []string{"GET /api/me/earnings/monthly", "GET /api/me/cancellation-policy"}},
		{"tablero", "camello", "/tablero.html", `!document.querySelector('#board').hasAttribute('aria-busy')`, false, []string{"GET /api/jobs/open"}},
		{"cuenta-camello", "camello", "/cuenta.html", `document.querySelector('#cam-form')`, false, nil},
		{"admin", "admin", "/admin.html", `!document.querySelector('#pending').hasAttribute('aria-busy') && !document.querySelector('#open-jobs').hasAttribute('aria-busy') && document.querySelector('#legal-sections .legal-section')`, false, nil},
		{"trabajos-admin", "admin", "/trabajos.html", `document.querySelector('a[href="/admin.html"]')`, false, nil},
		{"admin-pagos", "admin", "/admin-pagos.html", `!document.querySelector('#disputes').hasAttribute('aria-busy') && !document.querySelector('#payouts').hasAttribute('aria-busy')`, false, []string{"GET /api/admin/disputes", "GET /api/admin/payouts"}},
	}
	ids := map[string]string{"client": w.client, "camello": w.camUser, "admin": w.admin}
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			signedAs := "-"
			for _, p := range pages {
				t.Run(p.name, func(t *testing.T) {
					b.t = t
					if p.as != signedAs {
						b.clearCookies()
						if p.as != "" {
							b.signIn(ids[p.as])
						}
						signedAs = p.as
					}
					before := len(b.jsErrors())
					b.consoleErrors()
					b.visit(p.path)
					b.waitJS(p.ready, p.name+" drawn")
					if h1 := b.str(`(document.querySelector('h1')||{}).textContent||''`); h1 == "" {
						t.Errorf("%s has no h1", p.path)
					}
					if p.errorOK || !landed(t, k, p.needs...) {
						b.expectConsoleErrors()
					}
					b.check(p.name)
					if errs := b.jsErrors()[before:]; len(errs) > 0 {
						t.Errorf("JavaScript errors on %s: %v", p.path, errs)
					}
				})
			}
		})
	}
	// An empty provider form: every required field says why, beside it,
	// and the first one gets the focus. Every answer comes 700 ms late and
	// "Enviar" is tapped as soon as the page is drawn, as a quick hand on a
	// slow network would: the services list came after the input window and
	// pushed everything under it down by its own height (CLS 0.524 in
	// latency mode, issue 24); its box now has its height from the start.
	t.Run("registro-camello-errores", func(t *testing.T) {
		t.Parallel()
		b := newBrowser(t, k)
		b.viewport(390, 844)
		b.lateAnswers(700)
		b.visit("/registro-camello.html")
		b.click("#submit")
		b.waitJS(`document.querySelector('#err-name').textContent && document.activeElement && document.activeElement.id === 'name'`, "the field errors and the focus")
		for _, f := range []string{"name", "email", "phone", "password", "city", "trades", "acceptTerms"} {
			if msg := b.str(`document.querySelector('#err-` + f + `').textContent`); msg == "" {
				t.Errorf("no error beside %s", f)
			}
			if inv := b.str(`document.querySelector('[name="` + f + `"]').getAttribute('aria-invalid')`); inv != "true" {
				t.Errorf("%s not marked invalid", f)
			}
		}
		b.check("registro-camello-errores")
	})
	// The printed demo login works on the sign-in page and returns to ?next=;
	// a wrong password answers in Spanish beside the button, and the stale
	// message goes when the next try succeeds.
	t.Run("ingresar-demo", func(t *testing.T) {
		t.Parallel()
		b := newBrowser(t, k)
		b.viewport(390, 844)
		b.visit("/ingresar.html?next=%2Ftrabajos.html")
		b.typeIn([][2]string{{"#email", seed.ClientEmail}, {"#password", "no-es-la-clave"}})
		b.click(`#form button[type=submit]`)
		b.near("#alert", "Credenciales inválidas", "the wrong password refused")
		b.expectConsoleErrors()
		b.check("ingresar-error")
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#password').value = ''`), chromedp.SendKeys(css("#password"), seed.ClientPassword))
		b.click(`#form button[type=submit]`)
		b.waitJS(`location.pathname === '/trabajos.html' && document.querySelectorAll('#jobs .job').length > 0`, "the demo client's jobs")
		b.clearCookies()
	})
}

var (
	routesOnce sync.Once
	routes     map[string]bool
)

// landed reports whether every route ("GET /api/jobs/open") is registered.
// Pages built against the contract before their API merged log a 404;
// it is then tolerated (and said).
func landed(t *testing.T, k *testkit.Kit, keys ...string) bool {
	routesOnce.Do(func() {
		routes = map[string]bool{}
		for _, r := range hardening.OwnedRoutes(t) {
			routes[r.Key()] = true
		}
	})
	for _, key := range keys {
		if !routes[key] {
			t.Logf("%s is not on this branch yet: its 404 in the console is tolerated", key)
			return false
		}
	}
	return true
}
