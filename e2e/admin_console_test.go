package e2e_test

import (
	"os"
	"strings"
	"testing"

	"camellos/internal/testkit"

	"github.com/chromedp/chromedp"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// TestAdminConsoleCandidatesAndRejection walks issue 24's admin console at
// both sizes: a job's candidates are those of its city (any spelling) and
// service, the soonest free first, and more load on demand; rejecting a
// pending camello shows the photos of its documents, and asks for the
// reason (refused without one), which is stored and mailed.
func TestAdminConsoleCandidatesAndRejection(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			w := seeded(t)
			k := w.k
			svc := k.CreateService()
			client, err := k.App.FindRecordById("users", w.client)
			if err != nil {
				t.Fatal(err)
			}
			job := k.CreateJob(testkit.JobOpts{Client: client, Service: svc, Title: "Arreglar la ducha"}) // Bogotá
			// 22 candidates: one free every day, one never free, and 20 more
			// (the first page holds 20); plus one of another city.
			mk := func(name, city string, days []int) *core.Record {
				_, cam, cookie := k.CreateCamello(testkit.CamelloOpts{Name: name, City: city, Services: []string{svc.Id}})
				if days != nil {
					weekly := []map[string]any{}
					for _, d := range days {
						weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
					}
					if r := k.Put("/api/agenda/availability", cookie, map[string]any{"weekly": weekly}); r.Status != 200 {
						t.Fatalf("availability: %s", r.Raw)
					}
				}
				return cam
			}
			mk("Zoe Sin Agenda", "Bogotá", nil)
			best := mk("Ana Siempre Libre", "bogota", []int{0, 1, 2, 3, 4, 5, 6})
			mk("Mario de Medellín", "Medellín", []int{0, 1, 2, 3, 4, 5, 6})
			for i := range 20 {
				mk("Extra "+string(rune('A'+i)), "BOGOTÁ", nil)
			}
			_, pending, _ := k.CreateCamello(testkit.CamelloOpts{Name: "Rita Pendiente", Status: "PENDIENTE"})
			// The photos of her document and professional card (issue 24).
			var docs []any
			for range 2 {
				raw, err := os.ReadFile(samplePhoto(t))
				if err != nil {
					t.Fatal(err)
				}
				f, _ := filesystem.NewFileFromBytes(raw, "documento.png")
				docs = append(docs, f)
			}
			pending.Set("documents", docs)
			if err := k.App.Save(pending); err != nil {
				t.Fatal(err)
			}

			b := newBrowser(t, k)
			b.viewport(vp.w, vp.h)
			b.signIn(w.admin)
			b.visit("/admin.html#abiertos")
			b.waitJS(`!document.querySelector('#legales').hidden && document.querySelector('#open-jobs li[data-id="`+job.Id+`"] button')`, "the open job")
			b.click(`#open-jobs li[data-id="` + job.Id + `"] button`)
			sel := `#assign-` + job.Id
			b.waitJS(`document.querySelectorAll('`+sel+` option').length === 20`, "the first page of candidates")
			if first := b.str(`document.querySelector('` + sel + `').selectedOptions[0].value`); first != best.Id {
				t.Errorf("preselected %s, want the one free soonest (%s)", first, best.Id)
			}
			if opts := b.str(`[...document.querySelectorAll('` + sel + ` option')].map(o => o.textContent).join('|')`); strings.Contains(opts, "Medellín") || !strings.Contains(opts, "libre") {
				t.Errorf("options: %s", opts)
			}
			if hint := b.str(`document.querySelector('#assign-hint-` + job.Id + `').textContent`); !strings.Contains(hint, "22 camellos") {
				t.Errorf("hint: %q", hint)
			}
			b.check("admin-candidatos")
			b.click(`#open-jobs li[data-id="` + job.Id + `"] form button[type=button]`)
			b.waitJS(`document.querySelectorAll('`+sel+` option').length === 22`, "every candidate after «Más candidatos»")
			if last := b.str(`[...document.querySelectorAll('` + sel + ` option')].pop().textContent`); !strings.Contains(last, "sin horarios") {
				t.Errorf("last candidate: %q", last)
			}

			// Rejecting: the reason is asked, required, then mailed.
			b.visit("/admin.html")
			li := `#pending li[data-id="` + pending.Id + `"]`
			b.waitJS(`document.querySelector('`+li+` .btn.danger')`, "the pending camello")
			// Her document photos are shown to the admin deciding, loaded.
			b.waitJS(`document.querySelectorAll('`+li+` .doc-photos img').length === 2 && [...document.querySelectorAll('`+li+` .doc-photos img')].every((i) => i.complete && i.naturalWidth === 64)`, "the document photos")
			if href := b.str(`document.querySelector('` + li + ` .doc-photos a').getAttribute('href')`); !strings.HasPrefix(href, "/api/files/camellos/"+pending.Id+"/") {
				t.Errorf("document link %q", href)
			}
			b.check("admin-documentos")
			b.click(li + ` .btn.danger`)
			b.waitJS(`!document.querySelector('#reject-`+pending.Id+`').hidden && document.activeElement.tagName === 'TEXTAREA'`, "the reason's form, focused")
			b.click(`#reject-` + pending.Id + ` button[type=submit]`)
			b.waitJS(`document.querySelector('#err-reject-`+pending.Id+`-reason').textContent.includes('motivo')`, "the reason required")
			b.check("admin-rechazo-sin-motivo")
			if rec, _ := k.App.FindRecordById("camellos", pending.Id); rec.GetString("status") != "PENDIENTE" {
				t.Fatalf("rejected without a reason")
			}
			b.do(chromedp.SendKeys(css(`#reject-`+pending.Id+`-reason`), "La foto del documento no se lee."))
			b.click(`#reject-` + pending.Id + ` button[type=submit]`)
			b.near(`#pend-msg-`+pending.Id, "rechazado", "the rejection beside the buttons")
			rec, _ := k.App.FindRecordById("camellos", pending.Id)
			if rec.GetString("status") != "RECHAZADO" || rec.GetString("rejectionReason") != "La foto del documento no se lee." {
				t.Fatalf("stored: %s %q", rec.GetString("status"), rec.GetString("rejectionReason"))
			}
			b.check("admin-rechazado")
		})
	}
}
