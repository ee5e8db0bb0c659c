// Package seed fills a demo marketplace a newcomer can look at: categories,
// services, camellos with photos and weekly availability, clients, jobs in
// every state, reviews, legal texts and an administrator. Running it again
// finds what exists by its natural key (id, slug, e-mail, title) and adds
// only what is missing.
package seed

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"camellos/internal/cli"
	"camellos/internal/text"
	"camellos/modules/agenda"
	"camellos/modules/camellos"
	"camellos/modules/legal"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
	"github.com/spf13/cobra"
)

// Demo logins printed at the end of a run.
const (
	AdminEmail      = "admin@camellos.co"
	AdminPassword   = "Admin-demo-2026"
	ClientEmail     = "cliente@camellos.co"
	ClientPassword  = "Cliente-demo-2026"
	CamelloEmail    = "camello@camellos.co"
	CamelloPassword = "Camello-demo-2026"
	demoDomain      = "demo.camellos.co"
	demoTimezone    = "America/Bogota"
)

// Options size the demo marketplace.
type Options struct {
	Camellos int       // default 200
	Clients  int       // default 30
	Out      io.Writer // progress and logins; nil = discard
	// NoProgress leaves out the progress bars (the CLI sets it when
	// stdout is not a terminal: a log file gets the summary only).
	NoProgress bool
}

// MaxCount bounds --camellos and --clients of the CLI.
const MaxCount = 100_000

// Result counts what a run created (zero on a second run).
type Result struct {
	Categories, Services, Users, Camellos, Jobs, Reviews, Appointments, LegalDocuments int
}

// Command is `seed [--camellos N] [--clients N]`.
func Command(app core.App) *cobra.Command {
	var o Options
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Fill a demo marketplace (idempotent: running it twice adds nothing)",
		Args:  cobra.NoArgs,
		// Bad counts are refused before the data dir is touched.
		PreRunE: func(cmd *cobra.Command, args []string) error {
			if o.Camellos < 1 || o.Camellos > MaxCount {
				return fmt.Errorf("--camellos: se esperaba un entero entre 1 y %d", MaxCount)
			}
			if o.Clients < 1 || o.Clients > MaxCount {
				return fmt.Errorf("--clients: se esperaba un entero entre 1 y %d", MaxCount)
			}
			return nil
		},
		Run: func(cmd *cobra.Command, args []string) {
			cli.RunCommand(app, func() error {
				o.Out = cmd.OutOrStdout()
				o.NoProgress = !isTerminal(o.Out)
				_, err := Run(app, o)
				return err
			})
		},
	}
	cmd.Flags().IntVar(&o.Camellos, "camellos", 200, "number of demo camellos")
	cmd.Flags().IntVar(&o.Clients, "clients", 30, "number of demo clients")
	return cmd
}

type seeder struct {
	app        core.App
	out        io.Writer
	noProgress bool
	res        Result
	cats       map[string][]*core.Record // category id -> its services
	svcCat     map[string]string         // service id -> category id
	now        time.Time
}

// Run seeds app and returns what it created.
func Run(app core.App, o Options) (Result, error) {
	if o.Camellos <= 0 {
		o.Camellos = 200
	}
	if o.Clients <= 0 {
		o.Clients = 30
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	s := &seeder{app: app, out: o.Out, noProgress: o.NoProgress, cats: map[string][]*core.Record{}, svcCat: map[string]string{}, now: time.Now().UTC()}

	if _, err := s.user(users.RoleAdmin, AdminEmail, AdminPassword, "Administración Camellos", "", ""); err != nil {
		return s.res, fmt.Errorf("admin: %w", err)
	}
	if err := s.catalog(); err != nil {
		return s.res, fmt.Errorf("catálogo: %w", err)
	}
	if err := s.legal(); err != nil {
		return s.res, fmt.Errorf("textos legales: %w", err)
	}
	camellos, err := s.camellos(o.Camellos)
	if err != nil {
		return s.res, fmt.Errorf("camellos: %w", err)
	}
	clients, err := s.clients(o.Clients)
	if err != nil {
		return s.res, fmt.Errorf("clientes: %w", err)
	}
	if err := s.jobs(clients, camellos); err != nil {
		return s.res, fmt.Errorf("trabajos: %w", err)
	}
	if err := s.ratings(); err != nil {
		return s.res, fmt.Errorf("calificaciones: %w", err)
	}
	if err := s.inbox(clients[0]); err != nil {
		return s.res, fmt.Errorf("notificaciones: %w", err)
	}
	s.report()
	return s.res, nil
}

func (s *seeder) report() {
	r := s.res
	fmt.Fprintf(s.out, "\nCreados: %d categorías, %d servicios, %d usuarios, %d camellos, %d trabajos, %d reseñas, %d citas, %d textos legales.\n",
		r.Categories, r.Services, r.Users, r.Camellos, r.Jobs, r.Reviews, r.Appointments, r.LegalDocuments)
	fmt.Fprintln(s.out, "\nAccesos de demostración:")
	fmt.Fprintf(s.out, "  ADMIN     %-32s %s\n", AdminEmail, AdminPassword)
	fmt.Fprintf(s.out, "  CLIENTE   %-32s %s\n", ClientEmail, ClientPassword)
	fmt.Fprintf(s.out, "  CAMELLOS  %-32s %s\n", CamelloEmail, CamelloPassword)
	fmt.Fprintf(s.out, "  (los demás: cliente02..@%s con %s, camello002..@%s con %s)\n", demoDomain, ClientPassword, demoDomain, CamelloPassword)
}

// progress draws `\r[#####.....] 120/200 camellos` on the terminal.
func (s *seeder) progress(done, total int, what string) {
	if s.noProgress {
		return
	}
	const width = 30
	filled := done * width / max(total, 1)
	fmt.Fprintf(s.out, "\r[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, what)
	if done == total {
		fmt.Fprintln(s.out)
	}
}

func isNotFound(err error) bool {
	return err != nil && errors.Is(err, errNoRows)
}

// user finds a user by e-mail or creates it with the given role.
func (s *seeder) user(role, email, password, name, phone, city string) (*core.Record, error) {
	return s.userIn(s.app, role, email, password, name, phone, city)
}

func (s *seeder) userIn(app core.App, role, email, password, name, phone, city string) (*core.Record, error) {
	u, err := users.FindByEmail(app, email)
	if err == nil {
		return u, nil
	}
	if !isNotFound(err) {
		return nil, err
	}
	col, err := app.FindCachedCollectionByNameOrId(users.Collection)
	if err != nil {
		return nil, err
	}
	u = core.NewRecord(col)
	u.SetEmail(email)
	u.SetVerified(true)
	users.SetPassword(u, password)
	u.Set(users.FieldName, name)
	u.Set(users.FieldRole, role)
	u.Set(users.FieldPhone, phone)
	u.Set(users.FieldCity, city)
	if err := app.Save(u); err != nil {
		return nil, err
	}
	s.res.Users++
	return u, nil
}

func (s *seeder) catalog() error {
	catCol, err := s.app.FindCachedCollectionByNameOrId("categories")
	if err != nil {
		return err
	}
	svcCol, err := s.app.FindCachedCollectionByNameOrId("services")
	if err != nil {
		return err
	}
	for i, c := range categoryList {
		cat, err := s.app.FindRecordById(catCol, c.ID)
		if isNotFound(err) {
			cat = core.NewRecord(catCol)
			cat.Set("id", c.ID)
			cat.Set("name", c.Name)
			cat.Set("nameKey", text.Fold(c.Name))
			cat.Set("description", c.Description)
			cat.Set("color", c.Color)
			cat.Set("icon", c.Icon)
			cat.Set("sortOrder", i*10)
			if err := s.app.Save(cat); err != nil {
				return fmt.Errorf("%s: %w", c.ID, err)
			}
			s.res.Categories++
		} else if err != nil {
			return err
		}
		for _, sv := range c.Services {
			rec, err := s.app.FindFirstRecordByData(svcCol, "slug", sv[0])
			if isNotFound(err) {
				rec = core.NewRecord(svcCol)
				rec.Set("name", sv[1])
				rec.Set("slug", sv[0])
				rec.Set("category", cat.Id)
				rec.Set("description", sv[1]+" a domicilio.")
				if err := s.app.Save(rec); err != nil {
					return fmt.Errorf("%s: %w", sv[0], err)
				}
				s.res.Services++
			} else if err != nil {
				return err
			}
			s.cats[c.ID] = append(s.cats[c.ID], rec)
			s.svcCat[rec.Id] = c.ID
		}
	}
	return nil
}

func (s *seeder) legal() error {
	docCol, err := s.app.FindCachedCollectionByNameOrId("legal_documents")
	if err != nil {
		return err
	}
	verCol, err := s.app.FindCachedCollectionByNameOrId("legal_document_versions")
	if err != nil {
		return err
	}
	for _, d := range legalDocs {
		if _, err := s.app.FindFirstRecordByData(docCol, "slug", d.Slug); err == nil {
			continue
		} else if !isNotFound(err) {
			return err
		}
		sections := make([]map[string]string, 0, len(d.Sections))
		for _, sec := range d.Sections {
			sections = append(sections, map[string]string{"title": sec[0], "content": sec[1]})
		}
		err := s.app.RunInTransaction(func(tx core.App) error {
			doc := core.NewRecord(docCol)
			doc.Set(legal.DocumentFieldSlug, d.Slug)
			doc.Set(legal.DocumentFieldTitle, d.Title)
			doc.Set(legal.DocumentFieldSections, sections)
			doc.Set(legal.DocumentFieldVersion, 1)
			if err := tx.Save(doc); err != nil {
				return err
			}
			exists, err := tx.FindFirstRecordByFilter(verCol, "slug = {:slug} && version = 1", dbx.Params{"slug": d.Slug})
			if err == nil && exists != nil {
				return nil
			}
			ver := core.NewRecord(verCol)
			ver.Set(legal.DocumentVersionFieldSlug, d.Slug)
			ver.Set(legal.DocumentVersionFieldVersion, 1)
			ver.Set(legal.DocumentVersionFieldTitle, d.Title)
			ver.Set(legal.DocumentVersionFieldSections, sections)
			return tx.Save(ver)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", d.Slug, err)
		}
		s.res.LegalDocuments++
	}
	return nil
}

// camelloStatus spreads the demo camellos over the states, most ACTIVO.
func camelloStatus(i int) string {
	switch {
	case i == 0:
		return "ACTIVO"
	case i%17 == 5:
		return "PENDIENTE"
	case i%29 == 7:
		return "SUSPENDIDO"
	case i%31 == 11:
		return "RECHAZADO"
	}
	return "ACTIVO"
}

func camelloEmail(i int) string {
	if i == 0 {
		return CamelloEmail
	}
	return fmt.Sprintf("camello%03d@%s", i+1, demoDomain)
}

func clientEmail(i int) string {
	if i == 0 {
		return ClientEmail
	}
	return fmt.Sprintf("cliente%02d@%s", i+1, demoDomain)
}

func personName(i int) string {
	return firstNames[i%len(firstNames)] + " " + lastNames[(i*7+i/len(firstNames))%len(lastNames)]
}

// camellos creates n camellos (user, profile with photo, availability) and
// returns the ACTIVO ones in order.
func (s *seeder) camellos(n int) ([]*core.Record, error) {
	col, err := s.app.FindCachedCollectionByNameOrId("camellos")
	if err != nil {
		return nil, err
	}
	availCol, err := s.app.FindCachedCollectionByNameOrId("availability")
	if err != nil {
		return nil, err
	}
	active := []*core.Record{}
	for i := 0; i < n; i++ {
		var cam *core.Record
		err := s.app.RunInTransaction(func(tx core.App) error {
			cat := categoryList[i%len(categoryList)]
			city := cityList[(i/len(categoryList))%len(cityList)]
			hood := city.Neighborhoods[i%len(city.Neighborhoods)]
			name := personName(i)
			phone := fmt.Sprintf("300%07d", 1000000+i)
			u, err := s.userIn(tx, users.RoleCamello, camelloEmail(i), CamelloPassword, name, phone, city.Name)
			if err != nil {
				return err
			}
			cam, err = tx.FindFirstRecordByData(col, "user", u.Id)
			if err == nil {
				return nil
			}
			if !isNotFound(err) {
				return err
			}
			trades := []string{cat.Trade}
			services := []string{}
			for k, sv := range s.cats[cat.ID] {
				if k <= i%3+1 {
					services = append(services, sv.Id)
				}
			}
			if i%4 == 0 { // some camellos practise a second trade
				other := categoryList[(i/4+3)%len(categoryList)]
				if other.ID != cat.ID {
					trades = append(trades, other.Trade)
					services = append(services, s.cats[other.ID][0].Id)
				}
			}
			years := 2 + i%20
			desc := fmt.Sprintf("Soy %s, trabajo en %s hace %d años en %s y alrededores. Cumplido, ordenado y con herramientas propias. Presupuesto sin compromiso.",
				name, strings.Join(trades, " y "), years, city.Name)
			cam = core.NewRecord(col)
			cam.Set(camellos.FieldUser, u.Id)
			cam.Set(camellos.FieldName, name)
			cam.Set(camellos.FieldTrades, trades)
			cam.Set(camellos.FieldStatus, camelloStatus(i))
			cam.Set(camellos.FieldPremium, i%9 == 0)
			cam.Set(camellos.FieldServices, services)
			cam.Set(camellos.FieldDocumentID, fmt.Sprintf("%d", 10000000+i*7919))
			cam.Set(camellos.FieldPhone, phone)
			cam.Set(camellos.FieldCity, city.Name)
			cam.Set(camellos.FieldNeighborhood, hood)
			if i%3 == 0 {
				cam.Set(camellos.FieldProfessionalCard, fmt.Sprintf("TP-%05d", i))
			}
			cam.Set(camellos.FieldDescription, desc)
			cam.Set(camellos.FieldTimezone, demoTimezone)
			cam.Set(camellos.FieldSearchText, text.Fold(strings.Join([]string{name, strings.Join(trades, " "), desc, city.Name, hood}, " ")))
			cam.Set(camellos.FieldCityKey, text.Fold(city.Name))
			if i%10 != 9 { // a few camellos have no photo
				f, err := filesystem.NewFileFromBytes(avatarPNG(i), fmt.Sprintf("camello-%03d.png", i+1))
				if err != nil {
					return err
				}
				cam.Set(camellos.FieldPhoto, f)
			}
			if err := tx.Save(cam); err != nil {
				return err
			}
			avail := core.NewRecord(availCol)
			avail.Set(agenda.AvailabilityFieldCamello, cam.Id)
			avail.Set(agenda.AvailabilityFieldTimezone, demoTimezone)
			avail.Set(agenda.AvailabilityFieldWeekly, weeklyFor(i))
			avail.Set(agenda.AvailabilityFieldBlockedDates, []string{})
			if err := tx.Save(avail); err != nil {
				return err
			}
			s.res.Camellos++
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("camello %d: %w", i+1, err)
		}
		if cam.GetString(camellos.FieldStatus) == "ACTIVO" {
			active = append(active, cam)
		}
		s.progress(i+1, n, "camellos")
	}
	return active, nil
}

// weeklyFor is a camello's weekly availability: weekdays, some Saturdays.
func weeklyFor(i int) []map[string]any {
	start, end := "08:00", "17:00"
	if i%2 == 1 {
		start, end = "07:00", "15:00"
	}
	out := []map[string]any{}
	for wd := 1; wd <= 5; wd++ {
		out = append(out, map[string]any{"weekday": wd, "start": start, "end": end})
	}
	if i%3 == 0 {
		out = append(out, map[string]any{"weekday": 6, "start": "08:00", "end": "12:00"})
	}
	return out
}

func (s *seeder) clients(n int) ([]*core.Record, error) {
	out := make([]*core.Record, 0, n)
	for i := 0; i < n; i++ {
		city := cityList[i%len(cityList)]
		name := personName(i*3 + 11)
		if i == 0 {
			name = "Laura Cliente"
		}
		u, err := s.user(users.RoleClient, clientEmail(i), ClientPassword, name, fmt.Sprintf("310%07d", 2000000+i), city.Name)
		if err != nil {
			return nil, fmt.Errorf("cliente %d: %w", i+1, err)
		}
		out = append(out, u)
		s.progress(i+1, n, "clientes")
	}
	return out, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
