package e2e_test

import (
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/chromedp/chromedp"
)

// TestToastsNeverCoverContent (issue 24, defect 8: "toasts repeat the
// inline message and cover content"), at both sizes, on the account page:
//   - a save answered beside its button is not toasted again;
//   - a toast whose place at the bottom would cover the focused button
//     moves to the top; with a button there too it is only announced
//     (screen readers), never drawn over what the finger is on;
//   - a toast with room shows at the bottom, covering nothing.
//
// Every b.check of the suite also runs the same oracle (toastClear).
func TestToastsNeverCoverContent(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			user, _ := k.UserWithSession(users.RoleClient)
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.signIn(user.Id)
			b.visit("/cuenta.html")
			b.waitJS(`document.querySelector('#me-form')`, "the account page")

			// A save said beside its button: no toast repeats it.
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#me-city').value = 'Cali'`))
			b.click(`#me-form button[type=submit]`)
			b.near("#me-msg", "Datos guardados", "the save beside its button")
			if shown := b.str(`(document.querySelector('#toast.show:not(.quiet)') || {}).textContent || ''`); shown != "" {
				t.Errorf("a toast repeats the message in view: %q", shown)
			}
			b.toastClear("cuenta-guardada")

			// A focused field or button sits where the toast goes (the bottom centre,
			// above the phone's bar): the toast goes elsewhere or only speaks.
			// A probe drawn as the toast was finds that place.
			got := b.str(`(() => {
				const p = document.createElement('div'); p.className = 'toast show'; p.textContent = 'Tus cambios quedaron guardados en la cuenta.';
				document.querySelector('main').append(p); const pr = p.getBoundingClientRect(); p.remove();
				for (const n of document.querySelectorAll('main button, main input:not([type=hidden]):not([type=checkbox]), main textarea')) {
					const r0 = n.getBoundingClientRect();
					if (!n.offsetParent || r0.left >= pr.right || r0.right <= pr.left) continue;
					n.scrollIntoView({block: 'center'}); const r = n.getBoundingClientRect();
					scrollBy(0, r.bottom - pr.bottom); n.focus({preventScroll: true});
					const q = n.getBoundingClientRect();
					if (q.top < pr.bottom && q.bottom > pr.top) return n.id || n.name || n.textContent;
				}
				return 'none';
				})()`)
			if got == "none" {
				t.Fatalf("no button can sit under the toast's place (%s)", got)
			}
			b.do(chromedp.Evaluate[chromedp.Void](`import('/js/app.js').then((m) => { m.toast('Tus cambios quedaron guardados en la cuenta.'); window.__toasted = true; })`))
			b.waitJS(`window.__toasted && document.querySelector('#toast').textContent === 'Tus cambios quedaron guardados en la cuenta.'`, "the toast said")
			if place := b.str(`document.querySelector('#toast').className`); place == "toast show ok" {
				t.Errorf("the toast stayed at the bottom over the focused button")
			}
			b.toastClear("toast-sobre-boton")

			// With room at the bottom (scrolled to the top of the page, the
			// focus on the page), the toast is drawn there.
			b.do(chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0); document.activeElement.blur(); import('/js/app.js').then((m) => { m.toast('Otro aviso sin tapar nada.'); window.__toasted2 = true; })`))
			b.waitJS(`window.__toasted2 && document.querySelector('#toast').textContent === 'Otro aviso sin tapar nada.'`, "the second toast")
			if b.str(`document.querySelector('#toast').className`) == "toast show quiet ok" {
				// Only when both places hold a button: say which.
				t.Logf("no free place for the toast on an unscrolled account page (%dx%d)", vp.w, vp.h)
			}
			b.toastClear("toast-libre")
			b.check("cuenta-toast")
		})
	}
}
