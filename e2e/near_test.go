package e2e_test

import (
	"context"
	"math"
	"net/http"
	"sort"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestNearMe: at both sizes, "Cerca de mí" asks the browser for the position
// (an emulated one in Teusaquillo, Bogotá) and lists the camellos who reach
// it, nearest first, each with its distance; when the position is refused,
// the barrio picker is the way, with the same answer. No axe violation,
// no layout jump, in both states.
//
// From Teusaquillo (4.6430, −74.0900), worked by hand: Chapinero (4.6480,
// −74.0620) is 3.15 km away, Kennedy (4.6165, −74.14597) 6.87 km; Suba
// (4.7400, −74.0830, radius 5) is 10.81 km away and does not reach it.
func TestNearMe(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	area := func(name string, lat, lng float64, radius int) {
		_, _, cookie := k.CreateCamello(testkit.CamelloOpts{Name: name})
		testkit.Expect(t, k.Put("/api/me/camello/area", cookie, map[string]any{"lat": lat, "lng": lng, "radiusKm": radius}), http.StatusOK, "")
	}
	area("Ana Chapinero", 4.6480, -74.0620, 10)
	area("Beto Kennedy", 4.6165, -74.14597, 20)
	area("Caro Suba", 4.7400, -74.0830, 5)

	cards := `JSON.stringify([...document.querySelectorAll('#results .camello-card')].map((c) => c.querySelector('h3 a').textContent + ' ' + (c.querySelector('.distance') || {}).textContent))`
	want := `["Ana Chapinero a 3,2 km","Beto Kennedy a 6,9 km"]`
	for _, vp := range viewports {
		for _, tc := range []struct {
			name    string
			setting cdpbrowser.PermissionSetting
		}{
			{"ubicacion", cdpbrowser.PermissionSettingGranted},
			{"barrio", cdpbrowser.PermissionSettingDenied},
		} {
			t.Run(vp.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				b := newBrowser(t, k)
				b.viewport(vp.w, vp.h)
				if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
					Permission: &cdpbrowser.PermissionDescriptor{Name: "geolocation"}, Setting: tc.setting, Origin: k.URL,
					BrowserContextID: b.contextID(),
				}); err != nil {
					t.Fatalf("permission: %v", err)
				}
				lat, lng, acc := 4.6430, -74.0900, 50.0
				b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
					_, err := chromedp.Call(ctx, emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{Latitude: &lat, Longitude: &lng, Accuracy: &acc})
					return err
				}))
				b.visit("/")
				b.waitJS(`document.querySelector('#results').getAttribute('aria-busy') === null && document.querySelectorAll('#results .camello-card').length === 3`, "the listing")
				b.click("#near-me")
				if tc.name == "barrio" {
					b.waitJS(`!document.querySelector('#barrio-form').hidden`, "the barrio picker after the refusal")
					b.near("#barrio-why", "No pudimos usar tu ubicación", "why the picker")
					b.typeIn([][2]string{{"#barrio", "Teusa"}})
					b.waitJS(`[...document.querySelectorAll('#barrios option')].some((o) => o.value === 'Teusaquillo')`, "the gazetteer's suggestion")
					b.typeIn([][2]string{{"#barrio", "quillo"}})
					b.click(`#barrio-form button[type=submit]`)
				}
				b.waitJS(`document.querySelectorAll('#results .distance').length === 2 && window.__inflight === 0`, "the camellos by distance")
				if got := b.str(cards); got != want {
					t.Fatalf("cards %s, want %s", got, want)
				}
				chip := b.str(`document.querySelector('[data-filter="near"]') && document.querySelector('[data-filter="near"]').textContent`)
				if tc.name == "ubicacion" && chip != "Cerca de ti×" || tc.name == "barrio" && chip != "Cerca de Teusaquillo×" {
					t.Fatalf("chip %q", chip)
				}
				b.check("inicio-cerca-" + tc.name)
				// The chip removed: the whole listing again, no distances.
				b.click(`[data-filter="near"] button`)
				b.waitJS(`document.querySelectorAll('#results .camello-card').length === 3 && !document.querySelector('#results .distance')`, "the listing again")
			})
		}
	}
}

// TestCamelloSetsItsZone: on a phone, a camello picks its barrio from the
// gazetteer and its radius in "Mi cuenta"; the listing finds it from a
// client's position at once. No axe violation.
func TestCamelloSetsItsZone(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	user, cam, _ := k.CreateCamello(testkit.CamelloOpts{Name: "Dora Zona"})
	b := newBrowser(t, k)
	b.viewport(390, 844)
	b.signIn(user.Id)
	b.visit("/cuenta.html")
	b.waitJS(`document.querySelector('#area-form')`, "the zone form")
	b.waitJS(`document.querySelector('#area-now').textContent.includes('Aún no dices dónde trabajas')`, "no zone yet")
	b.typeIn([][2]string{{"#area-placeId", "Chapin"}})
	b.waitJS(`[...document.querySelectorAll('#area-places option')].some((o) => o.value === 'Chapinero (Bogotá)')`, "the gazetteer's suggestion")
	b.do(chromedp.SetValue(css("#area-placeId"), "Chapinero (Bogotá)"), chromedp.SetValue(css("#area-radiusKm"), "101"))
	b.click(`#area-form button[type=submit]`)
	b.near("#err-area-radiusKm", "de 1 a 100 km", "the radius just outside its bound")
	b.expectConsoleErrors() // the 400 of that save
	b.do(chromedp.SetValue(css("#area-radiusKm"), "100"))
	b.click(`#area-form button[type=submit]`)
	b.near("#area-msg", "Zona guardada", "the zone saved")
	b.waitJS(`document.querySelector('#area-now').textContent === 'Trabajas desde Chapinero y llegas hasta 100 km.'`, "the zone said")
	b.check("cuenta-zona")
	r := k.Get("/api/camellos?lat=4.6430&lng=-74.0900", "")
	if r.Str("camellos.0.id") != cam.Id || r.Get("camellos.0.distanceKm") != 3.2 {
		t.Fatalf("the listing from Teusaquillo: %s", r.Raw)
	}
}

// TestWhatsAppPreferenceColumn: the notification preferences have a
// WhatsApp column, a box only for the kinds WhatsApp carries; switching one
// off is saved through the API. On a phone, no axe violation.
func TestWhatsAppPreferenceColumn(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	user, cookie := k.UserWithSession(users.RoleClient)
	b := newBrowser(t, k)
	b.viewport(390, 844)
	b.signIn(user.Id)
	b.visit("/notificaciones.html")
	b.waitJS(`!document.querySelector('#prefs-box').hidden && document.querySelector('#prefs table')`, "the preferences")
	if head := b.str(`[...document.querySelectorAll('#prefs thead th')].map((n) => n.textContent).join('|')`); head != "Tipo|En la app|Push|Correo|WhatsApp" {
		t.Fatalf("columns %q", head)
	}
	r := k.Get("/api/notifications/preferences", cookie)
	testkit.Expect(t, r, http.StatusOK, "")
	prefs, _ := r.Get("preferences").(map[string]any)
	var on, off []string // kinds WhatsApp carries, and not
	for kind, chans := range prefs {
		if _, ok := chans.(map[string]any)["whatsapp"]; ok {
			on = append(on, kind)
		} else {
			off = append(off, kind)
		}
	}
	if len(on) == 0 || len(off) == 0 {
		t.Fatalf("kinds on WhatsApp %v, not %v: %s", on, off, r.Raw)
	}
	boxes := b.str(`[...document.querySelectorAll('#prefs input[name$=".whatsapp"]')].map((n) => n.name.split('.')[0]).sort().join(',')`)
	sort.Strings(on)
	if boxes != strings.Join(on, ",") {
		t.Fatalf("WhatsApp boxes %s, want %v", boxes, on)
	}
	b.click(`#p-` + on[0] + `-whatsapp`)
	b.click(`#prefs-form button[type=submit]`)
	b.near("#prefs-msg", "Preferencias guardadas", "the preferences saved")
	b.check("notificaciones-whatsapp-columna")
	r = k.Get("/api/notifications/preferences", cookie)
	if r.Get("preferences."+on[0]+".whatsapp") != false || r.Get("preferences."+on[0]+".email") != true {
		t.Fatalf("after saving: %s", r.Raw)
	}
}

// TestAdminEditsPlaces: the admin console's "Lugares" adds a barrio with
// its source (a decimal comma accepted), corrects its point and removes
// it; each step is the gazetteer's at once. At both sizes, no axe violation.
func TestAdminEditsPlaces(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			adminEditsPlaces(t, vp.w, vp.h)
		})
	}
}

func adminEditsPlaces(t *testing.T, w, h int64) {
	k := testkit.New(t)
	admin, adminCookie := k.UserWithSession(users.RoleAdmin)
	for _, slug := range []string{"terminos", "privacidad"} { // the console shows the published texts too
		testkit.Expect(t, k.Put("/api/admin/legal-documents/"+slug, adminCookie, map[string]any{"title": "Texto " + slug,
			"sections": []map[string]any{{"title": "Uno", "content": "Contenido de prueba."}}}), http.StatusOK, "")
	}
	b := newBrowser(t, k)
	b.viewport(w, h)
	b.signIn(admin.Id)
	b.visit("/admin.html#lugares")
	b.waitJS(`!document.querySelector('#lugares').hidden && document.querySelectorAll('#places-list li').length > 0`, "the places")
	b.typeIn([][2]string{{"#place-name", "Galerías"}, {"#place-city", "bogota"}, {"#place-lat", "4,6420"}, {"#place-lng", "-74.0760"}, {"#place-source", "visita de campo 2026"}})
	b.click(`#place-form button[type=submit]`)
	b.near("#place-msg", "Galerías agregado", "the place added")
	b.waitJS(`[...document.querySelectorAll('#places-list li strong')].some((n) => n.textContent === 'Galerías')`, "the place listed")
	b.check("admin-lugares")
	found := func() (lat float64, ok bool) {
		r := k.Get("/api/places?q=galerias&city=Bogotá", "")
		if r.Str("places.0.name") != "Galerías" {
			return 0, false
		}
		if r.Str("places.0.source") != "visita de campo 2026" || r.Str("places.0.city") != "Bogotá" || r.Str("places.0.kind") != "BARRIO" {
			t.Fatalf("added: %s", r.Raw)
		}
		return r.Get("places.0.lat").(float64), true
	}
	if lat, ok := found(); !ok || lat != 4.642 {
		t.Fatalf("added at %v (%v)", lat, ok)
	}
	b.do(chromedp.SetValue(css("#place-lat"), "4.6431"))
	b.click(`#place-form button[type=submit]`)
	b.waitJS(`document.querySelector('#place-msg').textContent === 'Galerías corregido.'`, "the place corrected")
	if lat, ok := found(); !ok || lat != 4.6431 {
		t.Fatalf("corrected to %v (%v)", lat, ok)
	}
	b.click("#place-delete")
	b.confirm(true)
	b.waitJS(`document.querySelector('#place-msg').textContent === 'Galerías eliminado.'`, "the place removed")
	if _, ok := found(); ok {
		t.Fatal("a removed place is still found")
	}
}

// TestCamelloMarksItsPointOnTheMap (issue 26: "from a map tap or their
// barrio"), at both sizes: "Dónde trabajas" draws Bogotá from the
// gazetteer; a tap beside Chapinero marks the point and names the nearest
// place; saved, the listing finds the camello from Teusaquillo about 3 km
// away. The keyboard moves the point (two ArrowUp: 0.01° north) and saves
// it too. No axe violation, no layout jump.
func TestCamelloMarksItsPointOnTheMap(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			k := testkit.New(t)
			user, cam, cookie := k.CreateCamello(testkit.CamelloOpts{Name: "Eva Mapa", City: "Bogotá"})
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.signIn(user.Id)
			b.visit("/cuenta.html")
			b.waitJS(`document.querySelector('#area-map circle[data-place="Chapinero"]')`, "the map of Bogotá")
			b.check("cuenta-mapa")
			// A tap a little east of Chapinero's point.
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#area-map').scrollIntoView({block: 'center'})`))
			b.waitJS(`(() => { const r = document.querySelector('#area-map').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`, "the map in view")
			x, y := b.float(`(() => { const r = document.querySelector('#area-map circle[data-place="Chapinero"]').getBoundingClientRect(); return r.left + r.width / 2 + 3; })()`),
				b.float(`(() => { const r = document.querySelector('#area-map circle[data-place="Chapinero"]').getBoundingClientRect(); return r.top + r.height / 2; })()`)
			b.do(chromedp.MouseClickXY(x, y))
			b.near("#area-map-said", "Punto marcado a [0-9],[0-9] km de Chapinero", "the tapped point named")
			b.click(`#area-form button[type=submit]`)
			b.near("#area-msg", "Zona guardada", "the zone saved")
			b.waitJS(`document.querySelector('#area-now').textContent === 'Trabajas desde el punto que marcaste y llegas hasta 10 km.'`, "the zone said")
			b.check("cuenta-mapa-guardado")
			r := k.Get("/api/camellos?lat=4.6430&lng=-74.0900", "")
			if r.Str("camellos.0.id") != cam.Id {
				t.Fatalf("the listing from Teusaquillo: %s", r.Raw)
			}
			if d, _ := r.Get("camellos.0.distanceKm").(float64); d < 2.5 || d > 4.5 {
				t.Errorf("from Teusaquillo the tapped point is %v km away, want about 3.2 (Chapinero)", d)
			}
			me := k.Get("/api/me", cookie)
			lat, _ := me.Get("camello.area.lat").(float64)
			lng, _ := me.Get("camello.area.lng").(float64)
			if lat < 4.62 || lat > 4.68 || lng < -74.08 || lng > -74.03 || me.Get("camello.area.placeId") != "" && me.Get("camello.area.placeId") != nil {
				t.Fatalf("the saved point %v,%v (%s)", lat, lng, me.Raw)
			}

			// The keyboard: two ArrowUp move the point 0.01° north.
			b.do(chromedp.Focus(css("#area-map")), chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowUp))
			b.near("#area-map-said", "Punto marcado a", "the moved point named")
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#area-msg').textContent = ''`))
			b.click(`#area-form button[type=submit]`)
			b.waitJS(`/Zona guardada/.test(document.querySelector('#area-msg').textContent)`, "the moved point saved")
			b.settle()
			me = k.Get("/api/me", cookie)
			if got, _ := me.Get("camello.area.lat").(float64); math.Abs(got-(lat+0.01)) > 0.00002 {
				t.Fatalf("after two ArrowUp the point is at %v, want %v", got, lat+0.01)
			}
			b.check("cuenta-mapa-teclado")
		})
	}
}
