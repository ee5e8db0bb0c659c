package e2e_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/chromedp/chromedp"
)

// samplePhoto writes a small PNG to upload as the provider's photo.
func samplePhoto(t *testing.T) string {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), 90, uint8(y * 4), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "foto.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMarketplaceFlow walks the whole marketplace in the browser: a provider
// registers with a photo and sets its week, an admin approves it, it shows
// on the home page, a client signs up and requests a job, the job is
// assigned, the client books a slot, the slot leaves the profile, and both
// inboxes show the notifications.
func TestMarketplaceFlow(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) { t.Parallel(); marketplaceFlow(t, vp.w, vp.h) })
	}
}

func marketplaceFlow(t *testing.T, vw, vh int64) {
	k := testkit.New(t)
	k.CreateRecord("categories", map[string]any{"id": "plomeria", "name": "Plomería", "nameKey": "plomeria", "color": "#1E6091"})
	svc := k.CreateRecord("services", map[string]any{"name": "Reparación de fugas", "slug": "reparacion-de-fugas", "category": "plomeria"})
	_, adminCookie := k.UserWithSession(users.RoleAdmin)
	b := newBrowser(t, k)
	b.viewport(vw, vh)

	const (
		camelloName  = "Rosa Elena Quintero"
		camelloEmail = "rosa.quintero@example.com"
		clientName   = "Tomás Cliente"
		clientEmail  = "tomas@example.com"
		password     = "clave-segura-123"
	)

	// 1. The provider registers with a photo (and is signed in).
	b.visit("/registro-camello.html")
	b.waitJS(`document.querySelector('#services input[value="`+svc.Id+`"]')`, "the service checkboxes")
	b.typeIn([][2]string{
		{"#name", camelloName}, {"#email", camelloEmail}, {"#phone", "3001234567"},
		{"#password", password}, {"#confirmPassword", password}, {"#city", "Bogotá"},
		{"#neighborhood", "Chapinero"}, {"#trades", "plomería, gas"},
		{"#description", "Plomera con 10 años de experiencia."},
	})
	// A file that only looks like a PNG (its bytes are no image) is refused
	// beside the photo field at the tap: the browser cannot draw it (the
	// server refuses it too: internal/imagecheck).
	fake := filepath.Join(t.TempDir(), "falsa.png")
	if err := os.WriteFile(fake, []byte("esto no es una imagen"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.click(`#services input[value="` + svc.Id + `"]`)
	b.click("#acceptTerms")
	b.do(chromedp.SetUploadFiles(css("#file"), []string{fake}))
	b.click("#submit")
	b.waitJS(`document.querySelector('#err-file').textContent.length > 0 && document.querySelector('#file').getAttribute('aria-invalid') === 'true'`, "the photo error beside the field")
	t.Logf("photo error shown: %q", b.str(`document.querySelector('#err-file').textContent`))
	b.expectConsoleErrors()
	b.check("flujo-registro-error-foto")
	if n := k.Count("camellos", ""); n != 0 {
		t.Fatalf("%d camellos saved after a refused registration", n)
	}
	b.do(chromedp.SetUploadFiles(css("#file"), []string{samplePhoto(t)}),
		chromedp.SetUploadFiles(css("#documents"), []string{samplePhoto(t), samplePhoto(t)}))
	b.waitJS(`!document.querySelector('#preview').hidden`, "the photo preview")
	b.shoot("flujo-registro-camello-lleno")
	b.click("#submit")
	b.waitJS(`!document.querySelector('#done').hidden`, "the registration confirmation")
	cam, err := k.App.FindFirstRecordByData("camellos", "name", camelloName)
	if err != nil {
		t.Fatalf("camello not saved: %v", err)
	}
	if cam.GetString("status") != "PENDIENTE" || cam.GetString("photo") == "" || len(cam.GetStringSlice("documents")) != 2 {
		t.Fatalf("camello saved as %s with photo %q and documents %v", cam.GetString("status"), cam.GetString("photo"), cam.GetStringSlice("documents"))
	}
	camUser := cam.GetString("user")

	// 2. The camello opens its agenda: "Lun–Vie 8–17", then every day of
	// the week, 00:00–23:00; the answer shows beside the button.
	b.visit("/agenda.html")
	b.waitJS(`document.querySelector('#weekly .day-row') && !document.querySelector('#avail-rest').hidden`, "the availability editor")
	b.click(`[data-preset="5"]`)
	b.waitJS(`document.querySelectorAll('#weekly .day-toggle[aria-pressed=true]').length === 5`, "Monday to Friday marked")
	b.near("#avail-msg", "lunes a viernes", "the preset's note")
	b.click(`.day-toggle[data-day="6"]`)
	b.click(`.day-toggle[data-day="0"]`)
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#weekly [data-k=start]').forEach(i => i.value = '00:00');
		document.querySelectorAll('#weekly [data-k=end]').forEach(i => i.value = '23:00')`))
	if !landed(t, k, "GET /api/agenda/calendar") {
		b.expectConsoleErrors()
	}
	b.check("flujo-agenda-semana")
	b.click("#save-avail")
	b.near("#avail-msg", "Disponibilidad guardada", "the availability saved")

	// 3. An admin approves it through the API.
	res := k.Patch("/api/admin/camellos/"+cam.Id, adminCookie, map[string]any{"status": "ACTIVO"})
	if res.Status != http.StatusOK || res.Str("camello.status") != "ACTIVO" {
		t.Fatalf("approve: %d %s", res.Status, res.Raw)
	}

	// 4. The camello signs out; the home page lists it.
	b.click("#logout")
	b.waitJS(`location.pathname === '/' && /Ingresar/.test(document.querySelector('#nav').textContent)`, "signed out")
	b.waitJS(`[...document.querySelectorAll('#results h3')].some(h => h.textContent.includes('`+camelloName+`'))`, "the camello on the home page")
	b.waitJS(`[...document.querySelectorAll('#results img')].some(i => i.src.includes('/uploads/camellos/') && i.complete && i.naturalWidth > 0)`, "its photo")
	b.check("flujo-inicio")

	// The search box: what it understood shows as chips that filter the list.
	b.do(chromedp.SendKeys(css("#q"), "Necesito un plomero en Bogotá"))
	b.click(`#search-form button[type=submit]`)
	b.waitJS(`document.querySelectorAll('#chips li').length > 0`, "the understood filters")
	b.waitJS(`!document.querySelector('#results').hasAttribute('aria-busy') && [...document.querySelectorAll('#results h3')].some(h => h.textContent.includes('`+camelloName+`'))`, "the camello among the search results")
	chips := b.str(`[...document.querySelectorAll('#chips li')].map(li => li.dataset.filter).join(',')`)
	t.Logf("search understood: %s (url %s)", chips, b.location())
	b.check("flujo-busqueda")
	b.click(`#chips li:first-child button`)
	b.waitJS(`[...document.querySelectorAll('#chips li')].map(li => li.dataset.filter).join(',') !== '`+chips+`'`, "a chip removed")

	// 5. A client signs up.
	b.visit("/registro.html")
	b.typeIn([][2]string{
		{"#name", clientName}, {"#email", clientEmail}, {"#city", "Bogotá"},
		{"#password", password}, {"#confirmPassword", password},
	})
	b.click("#acceptTerms")
	b.click(`#form button[type=submit]`)
	b.waitJS(`location.pathname === '/' && /Mis trabajos/.test(document.querySelector('#nav').textContent)`, "the client signed in")

	// 6. The client opens the profile from the list and requests a job.
	b.waitJS(`document.querySelector('#results a[href*="`+cam.Id+`"]')`, "the profile link")
	b.click(`#results a[href*="` + cam.Id + `"]`)
	b.waitJS(`document.querySelector('#job-form')`, "the job request form")
	b.typeIn([][2]string{{"#job-title", "Arreglar la fuga del lavamanos"}, {"#job-description", "Gotea desde ayer."}})
	b.click(`#job-form button[type=submit]`)
	b.near("#request .alert.ok", "Solicitud enviada", "the job requested, beside the form")
	b.check("flujo-solicitud-enviada")
	job, err := k.App.FindFirstRecordByData("jobs", "title", "Arreglar la fuga del lavamanos")
	if err != nil {
		t.Fatalf("job not saved: %v", err)
	}
	if job.GetString("source") != "PERFIL" || job.GetString("status") != "PENDIENTE" {
		t.Fatalf("job saved as %s/%s", job.GetString("source"), job.GetString("status"))
	}

	// 7. The camello and the admin give jobs their camello. A job requested
	// from the profile already names it: the camello accepts it in "Mis
	// trabajos". The admin assigns an open job (one the client posts with
	// no camello, or the requested one if it came without a provider).
	client, err := k.App.FindAuthRecordByEmail(users.Collection, clientEmail)
	if err != nil {
		t.Fatal(err)
	}
	open := job.Id
	if job.GetString("provider") != "" {
		t.Log("the requested job already names its camello: the camello accepts it; the admin assigns an open job")
		b.clearCookies()
		b.signIn(camUser)
		b.visit("/trabajos.html")
		b.waitJS(`document.querySelector('#job-`+job.Id+` .job-title a')`, "the request in the list")
		b.check("flujo-trabajos-camello")
		b.click(`#job-` + job.Id + ` .job-title a`)
		accept := `#job-` + job.Id + ` .job-actions button:first-child`
		b.waitJS(`(document.querySelector('`+accept+`')||{}).textContent === 'Aceptar'`, "the accept button")
		b.check("flujo-trabajo-camello")
		b.click(accept)
		b.confirm(true)
		b.waitJS(`(document.querySelector('#job-`+job.Id+`')||{dataset:{}}).dataset.status === 'ASIGNADO'`, "the job accepted")
		b.near(`#job-msg`, "Trabajo aceptado", "the acceptance beside the job's actions")
		b.clearCookies()
		b.signIn(client.Id)
		res = k.Post("/api/jobs", k.Session(client), map[string]any{"title": "Revisar el calentador", "serviceId": svc.Id, "city": "Bogotá"})
		if res.Status != http.StatusCreated || res.Get("job.provider") != nil {
			t.Fatalf("open job: %d %s", res.Status, res.Raw)
		}
		open = res.Str("job.id")
	}
	res = k.Post("/api/admin/jobs/"+open+"/assign", adminCookie, map[string]any{"camelloId": cam.Id})
	if res.Status != http.StatusOK || res.Str("job.status") != "ASIGNADO" {
		t.Fatalf("assign: %d %s", res.Status, res.Raw)
	}
	job, err = k.App.FindRecordById("jobs", open)
	if err != nil {
		t.Fatal(err)
	}

	// 8. The client books the first free slot from the job's page. Every
	// answer comes 700 ms late (a busy machine, a slow phone network) and
	// the client reads down to the footer as soon as the booking button
	// shows (a scroll is no input: whatever moves after it counts). In CI
	// the conversation, drawn after the rest, came late and pushed the
	// footer out of view (phone, CLS 0.055).
	b.lateAnswers(700)
	b.visit("/trabajo.html?id=" + job.Id)
	bookBtn := `#book-` + job.Id + ` > button`
	b.waitJS(`document.querySelector('`+bookBtn+`')`, "the booking button")
	b.do(chromedp.Evaluate[chromedp.Void](`scrollTo(0, document.documentElement.scrollHeight)`))
	b.settle()
	b.click(bookBtn)
	b.waitJS(`document.querySelector('#book-`+job.Id+` .slots button')`, "the free slots")
	start := b.str(`document.querySelector('#book-` + job.Id + ` .slots button').dataset.start`)
	b.check("flujo-agendar")
	b.lateAnswers(0)
	b.click(`#book-` + job.Id + ` .slots button`)
	b.confirm(true)
	b.near(`#visits-msg`, "Cita reservada para el", "the appointment booked, beside the visits")
	if msg := b.str(`document.querySelector('#visits-msg').textContent`); strings.Contains(msg, "..") {
		t.Errorf("double period: %q", msg)
	}
	b.check("flujo-cita-reservada")
	if n := k.Count("appointments", "job = {:j} AND status = 'PROGRAMADA'", map[string]any{"j": job.Id}); n != 1 {
		t.Fatalf("%d appointments saved", n)
	}

	// 9. The booked slot is gone from the profile.
	b.visit("/camello.html?id=" + cam.Id)
	b.waitJS(`document.querySelector('#slots .slots')`, "the profile's slots")
	if gone := b.str(`document.querySelector('#slots [data-start="` + start + `"]') === null`); gone != "true" {
		t.Fatalf("slot %s still offered on the profile", start)
	}
	b.check("flujo-perfil-cliente")

	// 10. The inboxes show the notifications.
	b.visit("/notificaciones.html")
	b.waitJS(`document.querySelectorAll('#inbox .notif').length > 0`, "the client's notifications")
	b.waitJS(`/sin leer/.test(document.querySelector('#unread-title').textContent)`, "the unread count")
	b.check("flujo-notificaciones-cliente")
	b.clearCookies()
	b.signIn(camUser)
	b.visit("/notificaciones.html")
	b.waitJS(`document.querySelectorAll('#inbox .notif').length > 0`, "the camello's notifications")

	if errs := b.jsErrors(); len(errs) > 0 {
		t.Fatalf("JavaScript errors: %v", errs)
	}
}
