package e2e_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"camellos/modules/users"

	"github.com/chromedp/chromedp"
)

// TestQuotesAndConversation: a client posts an open job, the camello finds
// it on the board and quotes, a second camello quotes too, the client sees
// both side by side and accepts one (confirmed), the job gets its camello
// and price; the conversation shows a message the camello posts while the
// client's page is open (live, through /api/events), and the client's own
// message with a photo.
func TestQuotesAndConversation(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			w := seeded(t)
			k := w.k
			if !landed(t, k, "GET /api/jobs/open", "POST /api/jobs/{id}/quotes", "GET /api/jobs/{id}/messages", "GET /api/events") {
				t.Skip("the quotes API is not on this branch")
			}
			cam, _ := k.App.FindRecordById("camellos", w.camello)
			services := cam.GetStringSlice("services")
			if len(services) == 0 {
				t.Fatal("the demo camello offers no service")
			}
			client, _ := k.App.FindRecordById(users.Collection, w.client)
			res := k.Post("/api/jobs", k.Session(client), map[string]any{"title": "Cambiar la llave del lavaplatos", "serviceId": services[0], "city": cam.GetString("city"), "address": "Carrera 7 # 45-10"})
			if res.Status != http.StatusCreated {
				t.Fatalf("open job: %d %s", res.Status, res.Raw)
			}
			job := res.Str("job.id")

			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			// Before any quote the client has nobody to write to: the page
			// says so instead of a form whose send fails.
			b.signIn(w.client)
			b.visit("/trabajo.html?id=" + job)
			b.waitJS(`document.querySelector('#chat-form')`, "the conversation's place")
			if b.str(`document.querySelector('#chat-form textarea') ? 'form' : document.querySelector('#chat-form').textContent`) == "form" {
				t.Error("a job nobody quoted offers a message form")
			}
			b.check("trabajo-sin-cotizaciones")
			b.clearCookies()
			b.signIn(w.camUser)
			b.visit("/tablero.html")
			card := "#job-" + job
			b.waitJS(`document.querySelector('`+card+`')`, "the open job on the board")
			b.check("tablero-trabajo")
			b.click(card + " button[aria-expanded]")
			b.typeIn([][2]string{{"#amount-" + job, "5000"}})
			b.click(card + " .quote-form button[type=submit]")
			b.near("#err-amount-"+job, "10.000", "the amount bound beside the field")
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#amount-` + job + `').value = ''`))
			b.typeIn([][2]string{{"#amount-" + job, "180000"}, {"#qmsg-" + job, "Incluye la llave y la mano de obra."}})
			b.click(card + " .quote-form button[type=submit]")
			b.near(card+" .card-msg", "Cotización enviada", "the quote sent, in the job's card")
			b.check("tablero-cotizado")

			// A second camello with the same service quotes through the API.
			other, err := k.App.FindFirstRecordByFilter("camellos", "status = 'ACTIVO' && id != {:me} && services ~ {:s}", map[string]any{"me": w.camello, "s": services[0]})
			if err == nil {
				u, _ := k.App.FindRecordById(users.Collection, other.GetString("user"))
				if r := k.Post("/api/jobs/"+job+"/quotes", k.Session(u), map[string]any{"amount": 150000, "message": "Puedo ir mañana."}); r.Status != http.StatusCreated {
					t.Fatalf("second quote: %d %s", r.Status, r.Raw)
				}
			}

			// The client compares and accepts the first camello's quote.
			b.clearCookies()
			b.signIn(w.client)
			b.visit("/trabajo.html?id=" + job)
			b.waitJS(`document.querySelectorAll('#quotes .quote').length >= 1 && !document.querySelector('#chat-box').hidden`, "the quotes and the conversation")
			b.check("trabajo-cotizaciones")
			q := b.str(`[...document.querySelectorAll('#quotes .quote')].find(q => /180/.test(q.textContent)).dataset.id`)
			// "Aceptar y agendar": the quote and the first visit in one step.
			b.click(`.quote[data-id="` + q + `"] .booking > button`)
			b.waitJS(`document.querySelector('.quote[data-id="`+q+`"] .slots button')`, "the quoting camello's free times")
			b.check("trabajo-aceptar-y-agendar")
			start := b.str(`document.querySelector('.quote[data-id="` + q + `"] .slots button').dataset.start`)
			b.click(`.quote[data-id="` + q + `"] .slots button`)
			b.confirm(true)
			b.near(`#job-msg`, "Aceptaste la cotización", "the acceptance and the visit, beside the job's actions")
			b.waitJS(`document.querySelector('#job-status').textContent === 'Asignado' && /180/.test(document.querySelector('#job-price').textContent)`, "the job assigned with its price")
			b.waitJS(`document.querySelectorAll('#visits .appt').length === 1`, "the visit on the page")
			if n := k.Count("appointments", "job = {:j} AND start = {:s} AND status = 'PROGRAMADA'", map[string]any{"j": job, "s": isoToDB(start)}); n != 1 {
				t.Fatalf("accept and book saved %d appointments at %s", n, start)
			}
			b.check("trabajo-aceptado")

			// Live: the camello writes while the client reads the conversation
			// (below the visits on the job page).
			b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#chat-box').scrollIntoView({block: 'start'})`))
			camUser, _ := k.App.FindRecordById(users.Collection, w.camUser)
			if r := k.Post("/api/jobs/"+job+"/messages", k.Session(camUser), map[string]any{"body": "Llego el jueves a las 9."}); r.Status != http.StatusCreated {
				t.Fatalf("camello message: %d %s", r.Status, r.Raw)
			}
			b.near("#messages .msg:last-child", "Llego el jueves", "the camello's message, live")
			b.typeIn([][2]string{{"#body", "Perfecto, lo espero."}})
			b.do(chromedp.SetUploadFiles(css("#files"), []string{samplePhoto(t)}))
			b.click(`#chat-form button[type=submit]`)
			b.near("#chat-msg", "Mensaje enviado", "the message sent beside the button")
			b.waitJS(`document.querySelector('#messages .msg.mine img') && document.querySelector('#messages .msg.mine img').complete && document.querySelector('#messages .msg.mine img').naturalWidth > 0`, "the photo in the conversation")
			b.check("trabajo-conversacion")
		})
	}
}

// TestBookingExtras: the calendar-feed link (copy, rotate confirmed), the
// booking rules saved, a weekly series booked and an appointment
// rescheduled from "Mis trabajos".
func TestBookingExtras(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			w := seeded(t)
			k := w.k
			if !landed(t, k, "GET /api/agenda/calendar", "POST /api/appointments/{id}/reschedule") {
				t.Skip("the booking API is not on this branch")
			}
			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.signIn(w.camUser)
			b.visit("/agenda.html")
			b.waitJS(`!document.querySelector('#cal-box').hidden && /\.ics$/.test(document.querySelector('#cal-url').value)`, "the calendar link")
			old := b.str(`document.querySelector('#cal-url').value`)
			b.check("agenda-calendario")
			b.click("#cal-rotate")
			b.confirm(true)
			b.near("#cal-msg", "Enlace nuevo", "the new link beside the buttons")
			if now := b.str(`document.querySelector('#cal-url').value`); now == old {
				t.Errorf("the link did not change")
			}
			u, err := url.Parse(old)
			if err != nil {
				t.Fatal(err)
			}
			if r := k.Get(u.Path, ""); r.Status != http.StatusNotFound {
				t.Errorf("the old feed answers %d", r.Status)
			}
			b.do(chromedp.SetValue(css("#minNoticeMinutes"), "60"), chromedp.SetValue(css("#bufferMinutes"), "0"))
			// Festivos: off by default, ticked here.
			if b.str(`String(document.querySelector('#worksHolidays').checked)`) != "false" {
				t.Errorf("worksHolidays is ticked by default")
			}
			b.click("#worksHolidays")
			b.click("#save-avail")
			b.near("#avail-msg", "Disponibilidad guardada", "the rules saved")
			camUser, _ := k.App.FindRecordById(users.Collection, w.camUser)
			if r := k.Get("/api/agenda/availability", k.Session(camUser)); r.Get("availability.minNoticeMinutes") != float64(60) ||
				r.Get("availability.worksHolidays") != true {
				t.Errorf("availability after saving: %s", r.Raw)
			}

			// The client books a weekly series, then moves one appointment.
			b.clearCookies()
			b.signIn(w.client)
			b.visit("/trabajo.html?id=" + w.assignedJob)
			book := "#book-" + w.assignedJob
			b.waitJS(`document.querySelector('`+book+` > button')`, "the booking button")
			b.click(book + " > button")
			b.waitJS(`document.querySelector('`+book+` .slots button')`, "the free slots")
			b.choose("#book-repeat", "Cada semana", "WEEK")
			b.choose("#book-count", "3", "3")
			b.check("trabajo-serie")
			b.click(book + " .slots li:last-child button")
			if q := b.str(`document.querySelector('dialog.confirm').textContent`); !strings.Contains(q, "cada semana") || !strings.Contains(q, "3 citas") || !strings.Contains(q, "hora de Colombia") {
				t.Errorf("the series' confirmation: %q", q)
			}
			b.confirm(true)
			b.near("#visits-msg", "3 citas reservadas", "the series booked, beside the visits")
			// The series reads as one, each visit with its weekday and end.
			b.waitJS(`/Serie semanal: 3 citas/.test(document.querySelector('#visits').textContent)`, "the series labelled as one")
			if row := b.str(`document.querySelector('.series .appt strong').textContent`); !strings.Contains(row, "–") || !regexp.MustCompile(`^(lunes|martes|miércoles|jueves|viernes|sábado|domingo), `).MatchString(row) {
				t.Errorf("a visit without weekday or end: %q", row)
			}
			b.check("trabajo-serie-reservada")
			appt := ".series .appt"
			b.click(appt + " .booking > button")
			b.waitJS(`document.querySelector('`+appt+` .slots button')`, "the slots to move to")
			b.click(appt + " .slots button")
			b.confirm(true)
			b.near("#visits-msg", "Cita movida", "the appointment moved, beside the visits")
			b.check("trabajo-reprogramada")
		})
	}
}
