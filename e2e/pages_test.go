package e2e_test

import (
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/seed"
	"camellos/modules/users"

	"github.com/chromedp/chromedp"
)

// TestPagesRender opens every page on a seeded marketplace, as a guest, a
// client and a camello, checks that each draws without a JavaScript error,
// and saves phone and desktop screenshots.
func TestPagesRender(t *testing.T) {
	k := testkit.New(t)
	if _, err := seed.Run(k.App, seed.Options{Camellos: 30, Clients: 4}); err != nil {
		t.Fatalf("seed: %v", err)
	}
	b := newBrowser(t, k)
	client, err := k.App.FindAuthRecordByEmail(users.Collection, seed.ClientEmail)
	if err != nil {
		t.Fatal(err)
	}
	camUser, err := k.App.FindAuthRecordByEmail(users.Collection, seed.CamelloEmail)
	if err != nil {
		t.Fatal(err)
	}
	cam, err := k.App.FindFirstRecordByData("camellos", "user", camUser.Id)
	if err != nil {
		t.Fatal(err)
	}
	profile := "/camello.html?id=" + cam.Id

	pages := []struct {
		name  string
		as    string // "", client or camello
		path  string
		ready string // JS condition once the page has drawn
	}{
		{"home", "", "/", `document.querySelector('#results').children.length > 0 || document.querySelector('#alert').textContent`},
		{"perfil", "", profile, `document.querySelector('#profile h1')`},
		{"registro-camello", "", "/registro-camello.html", `!document.querySelector('#services p.muted') || !/Cargando/.test(document.querySelector('#services').textContent)`},
		{"registro", "", "/registro.html", `document.querySelector('#form')`},
		{"ingresar", "", "/ingresar.html", `document.querySelector('#form')`},
		{"legal-terminos", "", "/legal.html?slug=terminos", `!/Cargando/.test(document.querySelector('#doc').textContent)`},
		{"legal-privacidad", "", "/legal.html?slug=privacidad", `!/Cargando/.test(document.querySelector('#doc').textContent)`},
		{"perfil-cliente", "client", profile, `document.querySelector('#profile h1') && !/Cargando horarios/.test(document.querySelector('#profile').textContent)`},
		{"trabajos-cliente", "client", "/trabajos.html", `document.querySelector('#jobs').children.length > 0 || document.querySelector('#alert').textContent`},
		{"notificaciones", "client", "/notificaciones.html", `document.querySelector('#inbox').children.length > 0 || document.querySelector('#alert').textContent`},
		{"agenda", "camello", "/agenda.html", `document.querySelector('#appointments').children.length > 0`},
		{"trabajos-camello", "camello", "/trabajos.html", `document.querySelector('#jobs').children.length > 0 || document.querySelector('#alert').textContent`},
	}
	// An empty provider form: every required field says why, beside it,
	// and the first one gets the focus.
	t.Run("registro-camello-errores", func(t *testing.T) {
		b.t = t
		b.clearCookies()
		b.visit("/registro-camello.html")
		b.do(chromedp.Click(css("#submit")))
		b.waitJS(`document.querySelector('#err-name').textContent && document.activeElement && document.activeElement.id === 'name'`, "the field errors and the focus")
		for _, f := range []string{"name", "email", "phone", "password", "city", "trades", "acceptTerms"} {
			if msg := b.str(`document.querySelector('#err-` + f + `').textContent`); msg == "" {
				t.Errorf("no error beside %s", f)
			}
			if inv := b.str(`document.querySelector('[name="` + f + `"]').getAttribute('aria-invalid')`); inv != "true" {
				t.Errorf("%s not marked invalid", f)
			}
		}
		b.noJunk()
		b.shoot("registro-camello-errores")
	})
	// The printed demo login works on the sign-in page and returns to ?next=;
	// a wrong password answers in Spanish.
	t.Run("ingresar-demo", func(t *testing.T) {
		b.t = t
		b.clearCookies()
		b.visit("/ingresar.html?next=%2Ftrabajos.html")
		b.typeIn([][2]string{{"#email", seed.ClientEmail}, {"#password", "no-es-la-clave"}})
		b.do(chromedp.Click(css(`#form button[type=submit]`)))
		b.waitJS(`/Credenciales inválidas/.test(document.querySelector('#alert').textContent)`, "the wrong password refused")
		b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#password').value = ''`), chromedp.SendKeys(css("#password"), seed.ClientPassword), chromedp.Click(css(`#form button[type=submit]`)))
		b.waitJS(`location.pathname === '/trabajos.html' && document.querySelectorAll('#jobs .job').length > 0`, "the demo client's jobs")
		b.clearCookies()
	})
	signedAs := ""
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			b.t = t
			if p.as != signedAs {
				b.clearCookies()
				switch p.as {
				case "client":
					b.signIn(client.Id)
				case "camello":
					b.signIn(camUser.Id)
				}
				signedAs = p.as
			}
			before := len(b.jsErrors())
			b.visit(p.path)
			b.waitJS(p.ready, p.name+" drawn")
			if h1 := b.str(`(document.querySelector('h1')||{}).textContent||''`); h1 == "" {
				t.Errorf("%s has no h1", p.path)
			}
			b.noJunk()
			b.shoot(p.name)
			if errs := b.jsErrors()[before:]; len(errs) > 0 {
				t.Errorf("JavaScript errors on %s: %v", p.path, errs)
			}
		})
	}
}
