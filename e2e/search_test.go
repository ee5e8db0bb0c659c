package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestSearchInProblemWords (issue 24, "search that ranks instead of
// filtering"), at both sizes, as a guest on the home page of the seeded
// marketplace:
//   - the query in a person's words finds plomeros (it found none
//     when "fuga baño" was a filter): trade and city shown as chips, the
//     other words said as what the list is ordered by;
//   - a city where no camello works is relaxed, and the page says so
//     beside the chips.
func TestSearchInProblemWords(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			w := seeded(t)
			b := newBrowser(t, w.k)
			b.viewport(vp.w, vp.h)
			search := func(query string) {
				b.t.Helper()
				b.visit("/")
				b.waitJS(`document.querySelectorAll('#results .camello-card').length > 0`, "the listing")
				b.do(chromedp.SendKeys(css("#q"), query))
				b.click(`#search-form button[type=submit]`)
				b.waitJS(`document.querySelectorAll('#chips li').length > 0 && !document.querySelector('#results').hasAttribute('aria-busy')`, "the search's answer")
			}

			search("necesito alguien que me arregle una fuga en el baño en Bogotá el sábado")
			chips := b.str(`[...document.querySelectorAll('#chips li')].map((li) => li.textContent).join(' | ')`)
			if !strings.Contains(chips, "Oficio: plomería") || !strings.Contains(chips, "Ciudad: Bogotá") {
				t.Errorf("the trade and the city are not understood as chips: %q", chips)
			}
			trades := b.str(`[...document.querySelectorAll('#results .camello-card .trades')].map((p) => p.textContent).join(' | ')`)
			if trades == "" {
				t.Fatalf("the issue's query finds no camello (%s)", b.str(`document.querySelector('#results').textContent`))
			}
			for _, tr := range strings.Split(trades, " | ") {
				if !strings.Contains(strings.ToLower(tr), "plomería") {
					t.Errorf("a camello who is no plomero among the results: %q", tr)
				}
			}
			if notes := b.str(`document.querySelector('#understood').textContent`); !strings.Contains(notes, "ordenamos por «fuga") {
				t.Errorf("the problem's words are not said as what orders the list: %q", notes)
			}
			t.Logf("understood: %s", b.str(`document.querySelector('#understood').textContent`))
			b.check("busqueda-problema")

			search("plomero en Cúcuta")
			b.near("#relaxed", "Sin resultados en Cúcuta; mostramos camellos de otras ciudades", "the relaxed city said")
			if n := b.str(`String(document.querySelectorAll('#results .camello-card').length)`); n == "0" {
				t.Errorf("the relaxed search shows no camello")
			}
			b.check("busqueda-relajada")
		})
	}
}
