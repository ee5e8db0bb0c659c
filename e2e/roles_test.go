package e2e_test

import (
	"strings"
	"testing"
	"time"

	"camellos/modules/seed"

	"github.com/chromedp/chromedp"
)

// TestRoleFlows walks what each role does on the pages of this issue, at
// phone and desktop size, asserting what the person sees: the answer next
// to the action (inside the viewport), stale errors gone, destructive
// actions confirmed, no layout jump, no console error, zero axe violations.
func TestRoleFlows(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			// Each role on a world of its own: the admin's assignment or
			// broadcast never lands in the client's walk.
			for _, role := range []struct {
				name string
				walk func(*testing.T, *browser, *world)
			}{{"cliente", clientFlow}, {"camello", camelloFlow}, {"admin", adminFlow}} {
				t.Run(role.name, func(t *testing.T) {
					t.Parallel()
					w := seeded(t)
					b := newBrowser(t, w.k)
					b.viewport(vp.w, vp.h)
					role.walk(t, b, w)
				})
			}
		})
	}
}

func clientFlow(t *testing.T, b *browser, w *world) {
	k := w.k
	b.clearCookies()
	b.signIn(w.client)

	// Booking from the profile: the confirmation stays beside the slots.
	b.visit("/camello.html?id=" + w.camello)
	b.waitJS(`document.querySelector('#slots .slots button')`, "the bookable slots")
	b.check("cliente-perfil")
	// One-tap booking asks first (issue 24, defect 8): "No" books nothing.
	before := k.Count("appointments", "status = 'PROGRAMADA'")
	b.click(`#slots .slots button`)
	b.confirm(false)
	if n := k.Count("appointments", "status = 'PROGRAMADA'"); n != before {
		t.Fatalf("a slot was booked without a yes (%d → %d)", before, n)
	}
	b.click(`#slots .slots button`)
	b.confirm(true)
	b.near("#slot-msg", "Cita reservada para el", "the booking confirmation")
	if msg := b.str(`document.querySelector('#slot-msg').textContent`); !strings.Contains(msg, "hora de Colombia") || !strings.Contains(msg, "–") {
		t.Errorf("the confirmation lacks the end time or the zone: %q", msg)
	}
	if hint := b.str(`document.querySelector('#slots p.muted').textContent`); hint == "" {
		t.Errorf("the hint was overwritten")
	}
	if msg := b.str(`document.querySelector('#slot-msg').textContent`); len(msg) > 0 && msg[len(msg)-1] == '.' && msg[len(msg)-2] == '.' {
		t.Errorf("double period: %q", msg)
	}
	b.check("cliente-perfil-cita")

	// A search's understood date filters: a "Fecha" chip, and each camello
	// says whether it is free that day.
	from := time.Now().Add(24 * time.Hour).UTC().Truncate(24 * time.Hour)
	b.visit("/?from=" + from.Format(time.RFC3339) + "&to=" + from.Add(24*time.Hour-time.Second).Format(time.RFC3339))
	b.waitJS(`document.querySelectorAll('#results .camello-card').length > 0 && [...document.querySelectorAll('#results .camello-card')].every(c => c.querySelector('.free-badge'))`, "every camello with its free-slots badge")
	if chips := b.str(`document.querySelector('#chips').textContent`); !strings.Contains(chips, "Fecha") {
		t.Errorf("no date chip: %q", chips)
	}
	b.check("inicio-fecha")
	b.click(`#chips li[data-filter="when"] button`)
	b.waitJS(`!document.querySelector('.free-badge') && !/from=/.test(location.search)`, "the date filter removed")

	// The job page: cancelling an appointment asks first; "No" keeps it.
	var apptJob string
	if err := k.App.DB().NewQuery("SELECT job FROM appointments WHERE client = {:c} AND status = 'PROGRAMADA' AND start > {:now} ORDER BY start LIMIT 1").
		Bind(map[string]any{"c": w.client, "now": time.Now().UTC().Format("2006-01-02 15:04:05.000Z")}).Row(&apptJob); err != nil {
		t.Fatalf("no appointment to cancel: %v", err)
	}
	b.visit("/trabajo.html?id=" + apptJob)
	b.waitJS(`document.querySelector('.appt button.danger')`, "an appointment with its cancel button")
	appt := b.str(`document.querySelector('.appt').dataset.id`)
	b.check("cliente-trabajo-citas")
	b.click(`.appt[data-id="` + appt + `"] button.danger`)
	b.confirm(false)
	if n := k.Count("appointments", "id = {:id} AND status = 'PROGRAMADA'", map[string]any{"id": appt}); n != 1 {
		t.Fatalf("the appointment was cancelled without a yes")
	}
	b.click(`.appt[data-id="` + appt + `"] button.danger`)
	b.confirm(true)
	b.near("#visits-msg", "Cita cancelada", "the cancellation beside the visits")
	b.check("cliente-cita-cancelada")

	// Posting an open job; a stale error goes when the form is right.
	b.visit("/publicar.html")
	b.waitJS(`document.querySelectorAll('#serviceId option').length > 1`, "the services")
	b.click("#submit")
	b.near("#err-title", "caracteres", "the title error beside the field")
	b.check("publicar-error")
	b.typeIn([][2]string{{"#title", "Pintar la sala y el comedor"}, {"#description", "Dos paredes con humedad."}, {"#neighborhood", "Chapinero"}, {"#address", "Calle 45 # 12-30"}})
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#serviceId').selectedIndex = 1`))
	b.click("#submit")
	b.near("#done", "Trabajo publicado", "the job published")
	if b.str(`document.querySelector('#alert') ? document.querySelector('#alert').textContent : ''`) != "" {
		t.Errorf("a stale error stays above the confirmation")
	}
	b.check("publicar-hecho")
	if _, err := k.App.FindFirstRecordByData("jobs", "title", "Pintar la sala y el comedor"); err != nil {
		t.Fatalf("job not saved: %v", err)
	}

	// Cancelling a job asks first and answers in its card.
	b.visit("/trabajos.html")
	b.click(`#filters button:nth-child(2)`) // "Pendiente"
	b.waitJS(`[...document.querySelectorAll('#jobs .job')].some(j => j.dataset.status === 'PENDIENTE' && /Pintar la sala/.test(j.textContent))`, "the posted job")
	id := b.str(`[...document.querySelectorAll('#jobs .job')].find(j => /Pintar la sala/.test(j.textContent)).id`)
	b.click("#" + id + " .job-title a")
	b.waitJS(`document.querySelector('#`+id+` .job-actions button.danger')`, "the job page")
	// A job without quotes offers no message form to nobody (issue 24,
	// defect 5: its send failed with "toCamelloId: Es obligatorio").
	b.waitJS(`document.querySelector('#chat-form')`, "the conversation of the job without quotes")
	if tag := b.str(`document.querySelector('#chat-form').tagName`); tag != "P" || b.str(`document.querySelector('#chat-box form, #toCamelloId') ? 'form' : ''`) != "" {
		t.Errorf("a job without quotes shows a message form (%s)", tag)
	}
	b.click("#" + id + " .job-actions button.danger")
	b.confirm(true)
	b.near("#job-msg", "Trabajo cancelado", "the job cancelled, beside its actions")
	b.check("cliente-trabajo-cancelado")

	// Account: data saved beside the button; a wrong password, then the
	// right one, and the old error is gone.
	b.visit("/cuenta.html")
	b.waitJS(`document.querySelector('#me-form')`, "the account page")
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#me-city').value = 'Medellín'`))
	b.click(`#me-form button[type=submit]`)
	b.near("#me-msg", "Datos guardados", "the profile saved")
	b.typeIn([][2]string{{"#pw-currentPassword", "no-es-la-clave"}, {"#pw-password", "Nueva-clave-2026"}, {"#pw-confirmPassword", "Nueva-clave-2026"}})
	b.click(`#pw-form button[type=submit]`)
	b.waitJS(`document.querySelector('#pw-msg').textContent || document.querySelector('#err-pw-currentPassword').textContent`, "the wrong current password refused")
	b.expectConsoleErrors()
	b.check("cuenta-error")
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#pw-currentPassword').value = ''`))
	b.typeIn([][2]string{{"#pw-currentPassword", seed.ClientPassword}})
	b.click(`#pw-form button[type=submit]`)
	b.near("#pw-msg", "Contraseña cambiada", "the password changed")
	if e := b.str(`document.querySelector('#err-pw-currentPassword').textContent`); e != "" {
		t.Errorf("stale field error: %q", e)
	}
	b.check("cuenta-clave-cambiada")

	// Push activation answers in Spanish within its timeout.
	b.visit("/notificaciones.html")
	b.waitJS(`!document.querySelector('#prefs-box').hidden`, "the inbox and preferences")
	b.click("#push-btn")
	b.waitJS(`/notificaciones|navegador|permiso/i.test(document.querySelector('#push-status').textContent) && !/Activando/.test(document.querySelector('#push-status').textContent)`, "the push answer")
	if s := b.str(`document.querySelector('#push-status').textContent`); !hasSpanish(s) {
		t.Errorf("push status not in Spanish: %q", s)
	}
	b.expectConsoleErrors()
	b.click(`#prefs-form button[type=submit]`)
	b.near("#prefs-msg", "Preferencias guardadas", "the preferences saved")
	b.check("notificaciones-guardadas")
}

func hasSpanish(s string) bool {
	for _, w := range []string{"notificaciones", "navegador", "permiso", "Notificaciones"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func camelloFlow(t *testing.T, b *browser, w *world) {
	b.clearCookies()
	b.signIn(w.camUser)

	// Profile editing with a new photo.
	b.visit("/cuenta.html")
	b.waitJS(`document.querySelector('#cam-form')`, "the camello profile form")
	b.do(chromedp.SetUploadFiles(css("#cam-file"), []string{samplePhoto(t)}))
	b.waitJS(`!document.querySelector('#cam-form .photo-preview').hidden`, "the photo preview")
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#cam-description').value = 'Plomero con 12 años de experiencia.'`))
	b.click(`#cam-form button[type=submit]`)
	b.near("#cam-msg", "Perfil guardado", "the profile saved")
	b.waitJS(`document.querySelector('#cam-form .avatar').src.includes('/uploads/camellos/')`, "the new photo")
	b.check("cuenta-camello-guardada")

	// Agenda: the zone defaults sensibly, a blocked day through a date picker.
	b.visit("/agenda.html")
	b.waitJS(`!document.querySelector('#avail-rest').hidden`, "the availability")
	if z := b.str(`document.querySelector('#timezone').value`); z != "America/Bogota" {
		t.Errorf("zone %q", z)
	}
	b.click("#add-blocked")
	day := time.Now().AddDate(0, 2, 0).Format("2006-01-02")
	b.do(chromedp.SetValue(css(`#blocked li:last-child input[type=date]`), day))
	b.click("#save-avail")
	b.near("#avail-msg", "Disponibilidad guardada", "the availability saved beside the button")
	if !landed(t, w.k, "GET /api/agenda/calendar") {
		b.expectConsoleErrors()
	}
	b.check("agenda-bloqueo")
	// Every time field shows its whole value ("08:00 a. m.", not "08:00 A";
	// issue 24, defect 8): its content box fits the longest value in its own
	// font, with room for the browser's clock button.
	if clipped := b.str(`[...document.querySelectorAll('input[type=time]')].filter((i) => i.offsetParent).map((i) => {
		const cs = getComputedStyle(i); const c = document.createElement('canvas').getContext('2d'); c.font = cs.font;
		const need = c.measureText('12:00 p. m.').width + 20; const box = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
		return box < need ? i.id + ' ' + Math.round(box) + ' < ' + Math.round(need) : ''; }).filter(Boolean).join(', ')`); clipped != "" {
		t.Errorf("time fields too narrow for their value (%dx%d): %s", b.w, b.h, clipped)
	}
	// "Publicar un trabajo" is a client's action: not drawn for a camello
	// (issue 24, defect 8: a .btn rule drew it over [hidden]).
	b.visit("/trabajos.html")
	b.waitJS(`document.querySelectorAll('#jobs .job').length > 0`, "the camello's jobs")
	if b.str(`(() => { const n = document.querySelector('#new-job'); return n && n.getClientRects().length ? 'shown' : ''; })()`) != "" {
		t.Error("«Publicar un trabajo» is shown to a camello")
	}
	b.visit("/agenda.html")
	b.waitJS(`[...document.querySelectorAll('#blocked input')].some(i => i.value === '`+day+`')`, "the blocked day kept")

	// The open-job board (when the quotes API is there).
	if landed(t, w.k, "GET /api/jobs/open") {
		b.visit("/tablero.html")
		b.waitJS(`!document.querySelector('#board').hasAttribute('aria-busy')`, "the board")
		b.check("tablero")
	}
}

func adminFlow(t *testing.T, b *browser, w *world) {
	k := w.k
	b.clearCookies()
	b.signIn(w.admin)
	b.visit("/admin.html")
	b.waitJS(`!document.querySelector('#legales').hidden`, "the admin console")
	b.check("admin")

	// Approve a pending camello.
	b.waitJS(`document.querySelector('#pending li[data-id] .btn:not(.danger)')`, "a pending camello")
	cam := b.str(`document.querySelector('#pending li[data-id]').dataset.id`)
	b.click(`#pending li[data-id="` + cam + `"] .btn:not(.danger)`)
	b.near(`#pend-msg-`+cam, "aprobado", "the approval beside the buttons")
	if rec, _ := k.App.FindRecordById("camellos", cam); rec == nil || rec.GetString("status") != "ACTIVO" {
		t.Fatalf("camello not approved")
	}
	b.check("admin-aprobado")

	// Assign an open job.
	b.waitJS(`document.querySelector('#open-jobs li[data-id] button')`, "an open job")
	job := b.str(`document.querySelector('#open-jobs li[data-id]').dataset.id`)
	b.click(`#open-jobs li[data-id="` + job + `"] button`)
	b.waitJS(`document.querySelector('#assign-`+job+` option')`, "the camellos to choose")
	b.click(`#open-jobs li[data-id="` + job + `"] form button`)
	b.near(`#open-msg-`+job, "asignado", "the assignment beside the form")
	if rec, _ := k.App.FindRecordById("jobs", job); rec == nil || rec.GetString("status") != "ASIGNADO" {
		t.Fatalf("job not assigned")
	}
	b.check("admin-asignado")

	// A broadcast, confirmed.
	b.typeIn([][2]string{{"#bc-title-in", "Mantenimiento"}, {"#bc-body", "El sábado a las 22:00 el servicio se detiene 10 minutos."}})
	b.click(`#bc-form button[type=submit]`)
	b.confirm(true)
	b.near("#bc-msg", "Aviso en camino", "the broadcast queued")

	// A legal text, confirmed: a new version.
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#legal-sections textarea').value += ' Texto añadido.'`))
	b.click(`#legal-form button[type=submit]`)
	b.confirm(true)
	b.near("#legal-msg", "Publicada la versión 2", "the new version")
	b.check("admin-legal")
}
