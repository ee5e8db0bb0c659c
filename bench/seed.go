package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Sizes of the data set.
const (
	nCamellos     = 10_000
	nCategories   = 30
	nServices     = 300
	nCities       = 50
	nClients      = 2_000
	nJobs         = 20_000
	nDueAppts     = 100_000 // due for a reminder within 24 h
	nSlotAppts    = 300     // booked on the slots camello over 31 days
	seedPassword  = "secreto-123"
	dbTimeFormat  = "2006-01-02 15:04:05.000Z"
	benchSuperPwd = "bench-superuser-123"
)

var cityNames = []string{
	"Bogotá", "Medellín", "Cali", "Barranquilla", "Cartagena", "Cúcuta", "Soacha", "Bucaramanga", "Soledad", "Bello",
	"Villavicencio", "Ibagué", "Santa Marta", "Valledupar", "Manizales", "Pereira", "Montería", "Neiva", "Pasto", "Armenia",
	"Sincelejo", "Popayán", "Floridablanca", "Palmira", "Buenaventura", "Barrancabermeja", "Dosquebradas", "Tuluá", "Envigado", "Cartago",
	"Riohacha", "Maicao", "Tunja", "Girardot", "Facatativá", "Zipaquirá", "Chía", "Fusagasugá", "Itagüí", "Sogamoso",
	"Duitama", "Yopal", "Quibdó", "Florencia", "Apartadó", "Turbo", "Magangué", "Ocaña", "Ipiales", "Girón",
}

var tradeNames = []string{"plomería", "electricidad", "pintura", "carpintería", "cerrajería", "jardinería", "limpieza",
	"mudanzas", "albañilería", "soldadura", "tapicería", "refrigeración", "gas", "techos", "vidriería"}

// dataset is what the scenarios need to know about the seeded data.
type dataset struct {
	Dir           string
	Combos        [][2]string // (city, service id) pairs with results
	SlotCamello   string
	ClientCookie  string
	SuperEmail    string
	CategoryCount int
	SeedTime      time.Duration
	Appointments  int
}

func dbTime(t time.Time) string { return t.UTC().Format(dbTimeFormat) }

// seed builds the data set in dir with the migrations applied, mostly by
// raw SQL in a few transactions; the folded columns follow text.Fold.
func seed(dir string) (*dataset, error) {
	start := time.Now()
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		return nil, err
	}
	defer app.ResetBootstrapState()
	if err := app.RunAllMigrations(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(42))
	ds := &dataset{Dir: dir, SuperEmail: "bench@example.com", CategoryCount: nCategories}

	// A superuser for PocketBase's generic API (the reference).
	supers, err := app.FindCollectionByNameOrId(core.CollectionNameSuperusers)
	if err != nil {
		return nil, err
	}
	su := core.NewRecord(supers)
	su.SetEmail(ds.SuperEmail)
	su.SetPassword(benchSuperPwd)
	if err := app.Save(su); err != nil {
		return nil, err
	}

	// One user saved normally gives the password hash every seeded user shares.
	usersCol, err := app.FindCollectionByNameOrId(users.Collection)
	if err != nil {
		return nil, err
	}
	first := core.NewRecord(usersCol)
	first.SetEmail("cliente0@example.com")
	users.SetPassword(first, seedPassword)
	first.Set("name", "Cliente 0")
	first.Set("role", users.RoleClient)
	if err := app.Save(first); err != nil {
		return nil, err
	}
	var hash string
	if err := app.DB().NewQuery("SELECT password FROM users WHERE id={:id}").Bind(map[string]any{"id": first.Id}).Row(&hash); err != nil {
		return nil, err
	}
	cookie, err := session.CreateSession(app, first, "127.0.0.1", "bench")
	if err != nil {
		return nil, err
	}
	ds.ClientCookie = cookie

	db := app.NonconcurrentDB().(interface{ DB() *sql.DB }).DB()
	now := time.Now().UTC()
	created := dbTime(now.Add(-24 * time.Hour))

	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	ins := func(query string, args ...any) {
		if err == nil {
			_, err = tx.Exec(query, args...)
		}
	}
	// Catalog.
	serviceNames := make([]string, nServices)
	serviceIDs := make([]string, nServices)
	for c := 0; c < nCategories; c++ {
		name := fmt.Sprintf("Categoría %02d", c)
		ins(`INSERT INTO categories (id, name, nameKey, description, color, icon, sortOrder, created, updated) VALUES (?,?,?,?,?,?,?,?,?)`,
			fmt.Sprintf("cat-%02d", c), name, text.Fold(name), "Servicios del hogar", "#3366cc", "casa", c, created, created)
	}
	for s := 0; s < nServices; s++ {
		serviceIDs[s] = fmt.Sprintf("svc%012d", s)
		serviceNames[s] = fmt.Sprintf("Servicio %03d %s", s, tradeNames[s%len(tradeNames)])
		ins(`INSERT INTO services (id, name, slug, category, description, created, updated) VALUES (?,?,?,?,?,?,?)`,
			serviceIDs[s], serviceNames[s], fmt.Sprintf("servicio-%03d", s), fmt.Sprintf("cat-%02d", s%nCategories), "", created, created)
	}
	// Camello users and profiles.
	userStmt, _ := tx.Prepare(`INSERT INTO users (id, email, password, tokenKey, verified, emailVisibility, name, role, phone, city, disabled, created, updated)
		VALUES (?,?,?,?,0,0,?,?,?,?,0,?,?)`)
	camStmt, _ := tx.Prepare(`INSERT INTO camellos (id, user, name, trades, status, premium, services, documentId, phone, city, neighborhood,
		professionalCard, photo, notes, description, timezone, ratingAvg, ratingCount, searchText, cityKey, created, updated)
		VALUES (?,?,?,?,'ACTIVO',?,?,?,?,?,?,?,'','',?,'America/Bogota',?,?,?,?,?,?)`)
	combos := map[[2]string]bool{}
	for i := 0; i < nCamellos && err == nil; i++ {
		uid := fmt.Sprintf("ucam%011d", i)
		cid := fmt.Sprintf("cam%012d", i)
		name := fmt.Sprintf("Camello %05d", i)
		city := cityNames[rng.Intn(nCities)]
		trades := []string{tradeNames[rng.Intn(len(tradeNames))]}
		svc := []string{}
		names := []string{}
		for k := 0; k < 1+rng.Intn(3); k++ {
			s := rng.Intn(nServices)
			svc = append(svc, serviceIDs[s])
			names = append(names, serviceNames[s])
			if len(combos) < 400 {
				combos[[2]string{city, serviceIDs[s]}] = true
			}
		}
		tradesJSON, _ := json.Marshal(trades)
		svcJSON, _ := json.Marshal(svc)
		desc := "Trabajo garantizado en " + city
		search := text.Fold(strings.Join(append([]string{name, strings.Join(trades, " "), city, "Centro", desc}, names...), " "))
		ts := dbTime(now.Add(-time.Duration(i) * time.Minute))
		_, err = userStmt.Exec(uid, fmt.Sprintf("camello%d@example.com", i), hash, fmt.Sprintf("tk%028d", i), name, users.RoleCamello, "3001234567", city, ts, ts)
		if err == nil {
			_, err = camStmt.Exec(cid, uid, name, string(tradesJSON), rng.Intn(10) == 0, string(svcJSON), "", "3001234567", city, "Centro",
				"", desc, float64(rng.Intn(51))/10, rng.Intn(200), search, text.Fold(city), ts, ts)
		}
	}
	for c := range combos {
		ds.Combos = append(ds.Combos, c)
	}
	// Clients.
	for i := 1; i < nClients && err == nil; i++ {
		ts := created
		_, err = userStmt.Exec(fmt.Sprintf("ucli%011d", i), fmt.Sprintf("cliente%d@example.com", i), hash, fmt.Sprintf("tc%028d", i),
			fmt.Sprintf("Cliente %d", i), users.RoleClient, "", "Bogotá", ts, ts)
	}
	if err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("seed users: %w", err)
	}
	if err = tx.Commit(); err != nil {
		return nil, err
	}

	// Jobs and appointments: 100,000 due within the next 24 h (10 per
	// camello, 2 h apart), plus 300 booked on one camello over 31 days.
	tx, err = db.Begin()
	if err != nil {
		return nil, err
	}
	jobStmt, _ := tx.Prepare(`INSERT INTO jobs (id, title, description, status, source, city, neighborhood, service, client, provider, created, updated)
		VALUES (?,?,?,'ASIGNADO','EXPLORE',?,'',?,?,?,?,?)`)
	apptStmt, _ := tx.Prepare(`INSERT INTO appointments (id, job, camello, client, start, end, status, reminderSentAt, created, updated)
		VALUES (?,?,?,?,?,?,'PROGRAMADA','',?,?)`)
	clientOf := func(j int) string {
		if j%nClients == 0 {
			return first.Id
		}
		return fmt.Sprintf("ucli%011d", j%nClients)
	}
	for j := 0; j < nJobs && err == nil; j++ {
		cam := j % nCamellos
		_, err = jobStmt.Exec(fmt.Sprintf("job%012d", j), "Trabajo "+fmt.Sprint(j), "", "Bogotá", serviceIDs[j%nServices], clientOf(j),
			fmt.Sprintf("cam%012d", cam), created, created)
	}
	base := now.Truncate(time.Hour).Add(107 * time.Minute) // 47–107 min ahead, never on the hour
	n := 0
	for a := 0; a < nDueAppts && err == nil; a++ {
		cam := a % nCamellos
		k := a / nCamellos // 0..9
		job := cam + (k%2)*nCamellos
		st := base.Add(time.Duration(k) * 2 * time.Hour)
		_, err = apptStmt.Exec(fmt.Sprintf("apt%012d", a), fmt.Sprintf("job%012d", job), fmt.Sprintf("cam%012d", cam), clientOf(job),
			dbTime(st), dbTime(st.Add(time.Hour)), created, created)
		n++
	}
	// The slots camello: open 06:00–22:00 every day (Bogotá), 300 of its
	// slots over the next 31 days booked.
	slotCam := fmt.Sprintf("cam%012d", nCamellos-1)
	ds.SlotCamello = slotCam
	weekly := []map[string]any{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
	}
	weeklyJSON, _ := json.Marshal(weekly)
	ins(`INSERT INTO availability (id, camello, timezone, weekly, blockedDates, created, updated) VALUES (?,?,?,?,?,?,?)`,
		"avl000000000001", slotCam, "America/Bogota", string(weeklyJSON), "[]", created, created)
	bogota, _ := time.LoadLocation("America/Bogota")
	day0 := time.Now().In(bogota).AddDate(0, 0, 1)
	day0 = time.Date(day0.Year(), day0.Month(), day0.Day(), 0, 0, 0, 0, bogota)
	for b := 0; b < nSlotAppts && err == nil; b++ {
		d, h := b/10, 7+(b%10)
		st := day0.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour).UTC()
		job := fmt.Sprintf("job%012d", nCamellos-1)
		_, err = apptStmt.Exec(fmt.Sprintf("aps%012d", b), job, slotCam, clientOf(nCamellos-1), dbTime(st), dbTime(st.Add(time.Hour)), created, created)
		n++
	}
	if err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("seed appointments: %w", err)
	}
	if err = tx.Commit(); err != nil {
		return nil, err
	}
	if _, err := db.Exec("ANALYZE"); err != nil {
		return nil, err
	}
	ds.Appointments = n
	ds.SeedTime = time.Since(start)
	return ds, nil
}
