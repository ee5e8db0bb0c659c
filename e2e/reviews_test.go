package e2e_test

import (
	"net/http"
	"testing"

	"camellos/modules/jobs"
	"camellos/modules/users"
)

// TestDoubleBlindReviewsOnTheJobPage: a job paid in cash (recorded by the
// camello, confirmed by the client) is under the double-blind rule. The
// client's sealed review is hidden from the camello, whose page says so and
// offers "Calificar al cliente"; the camello's review publishes both, and
// each side then reads the other's review on the job page.
func TestDoubleBlindReviewsOnTheJobPage(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			w := seeded(t)
			k := w.k
			cam, _ := k.App.FindRecordById("camellos", w.camello)
			client, _ := k.App.FindRecordById(users.Collection, w.client)
			camUser, _ := k.App.FindRecordById(users.Collection, w.camUser)
			cc, mc := k.Session(client), k.Session(camUser)
			res := k.Post("/api/jobs", cc, map[string]any{"title": "Pintar la sala", "serviceId": cam.GetStringSlice("services")[0],
				"city": cam.GetString("city"), "neighborhood": "Chapinero"})
			if res.Status != http.StatusCreated {
				t.Fatalf("open job: %d %s", res.Status, res.Raw)
			}
			job := res.Str("job.id")
			if err := jobs.AssignQuoted(k.App, job, w.camello, 120_000); err != nil {
				t.Fatal(err)
			}
			for _, s := range []struct {
				path, cookie string
				want         int
			}{
				{"/start", mc, http.StatusOK}, {"/complete", mc, http.StatusOK},
				{"/payment/cash", mc, http.StatusCreated}, {"/payment/cash/confirm", cc, http.StatusOK},
			} {
				if r := k.Post("/api/jobs/"+job+s.path, s.cookie, nil); r.Status != s.want {
					t.Fatalf("%s: %d %s", s.path, r.Status, r.Raw)
				}
			}
			if r := k.Post("/api/jobs/"+job+"/review", cc, map[string]any{"rating": 5, "comment": "Muy limpio."}); r.Status != http.StatusCreated || r.Get("review.published") != false {
				t.Fatalf("client's review: %d %s", r.Status, r.Raw)
			}

			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.signIn(w.camUser)
			b.visit("/trabajo.html?id=" + job)
			b.waitJS(`document.querySelector('#client-review-form')`, "the camello's form")
			b.near("#reviews-state", "quedan ocultas hasta que ambas partes califiquen o pasen 7 días .hasta el", "the sealed state")
			if b.str(`document.querySelector('#other-review') ? 'shown' : ''`) != "" {
				t.Error("the client's sealed review is shown to the camello")
			}
			if l := b.str(`[...document.querySelectorAll('#client-review-form label')].map((n) => n.htmlFor).join(',')`); l != "client-rating,client-comment" {
				t.Errorf("labels: %q", l)
			}
			b.check("trabajo-calificar-cliente")
			b.typeIn([][2]string{{"#client-comment", "Pagó a tiempo."}})
			b.click("#client-review-form button[type=submit]")
			b.near("#job-msg", "Gracias por calificar al cliente", "the review sent")
			// Under the answer in view, the block says the new state (read, not necessarily in view on a phone).
			b.waitJS(`/Reseñas publicadas/.test(document.querySelector('#reviews-state').textContent)`, "the published state")
			b.waitJS(`/Reseña del cliente: ★★★★★ .5.Muy limpio/.test((document.querySelector('#other-review') || {}).textContent)`, "the client's review, published")
			if b.str(`document.querySelector('#client-review-form') ? 'form' : ''`) != "" {
				t.Error("the form stays after the review")
			}
			b.check("trabajo-resenas-publicadas-camello")

			b.clearCookies()
			b.signIn(w.client)
			b.visit("/trabajo.html?id=" + job)
			b.waitJS(`/Reseña del camello: ★★★★★ .5.Pagó a tiempo/.test((document.querySelector('#other-review') || {}).textContent)`, "the camello's review, for the client")
			b.waitJS(`/Reseñas publicadas/.test(document.querySelector('#reviews-state').textContent)`, "the published state, for the client")
			b.check("trabajo-resenas-publicadas-cliente")
		})
	}
}
