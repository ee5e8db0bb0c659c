package main

import (
	"camellos/internal/geo"
	"camellos/modules/places"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand"
	"strings"
	"time"

	"camellos/internal/text"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// Fixed parts of every data set.
const (
	nCategories   = 30
	nServices     = 300
	nCities       = 50
	nSlotAppts    = 300 // booked on the slots camello over 31 days
	nLanes        = 64  // writer lanes: a client, a camello and their jobs each
	laneJobs      = 100 // ASIGNADO jobs per lane (bookings: ≤ 10 per job)
	laneOpenJobs  = 400 // open PENDIENTE jobs per lane (quotes on them)
	laneQuoters   = 20  // camellos quoting a lane's open jobs, in turn
	nStreamUsers  = 2000
	seedPassword  = "secreto-123"
	dbTimeFormat  = "2006-01-02 15:04:05.000Z"
	benchSuperPwd = "bench-superuser-123"
)

// sizes is a data set's shape.
type sizes struct {
	Name      string
	Camellos  int
	Clients   int
	DuePer    int // appointments per camello due within 24 h
	FuturePer int // appointments per camello beyond the booking horizon
	PastPer   int // COMPLETADA appointments per camello
	Quotes    int
	Messages  int
}

// Jobs is two per camello: one ASIGNADO (its appointments hang on it) and
// one open PENDIENTE job (the open board).
func (s sizes) Jobs() int         { return 2 * s.Camellos }
func (s sizes) Appointments() int { return s.Camellos * (s.DuePer + s.FuturePer + s.PastPer) }
func (s sizes) Due() int          { return s.Camellos * s.DuePer }

var scales = map[string]sizes{
	// Today's set (issue #7), plus quotes and messages in proportion.
	"small": {Name: "small", Camellos: 10_000, Clients: 2_000, DuePer: 10, Quotes: 10_000, Messages: 50_000},
	// Ten times: 100,000 camellos, 1,000,000 clients, 200,000 jobs,
	// 1,000,000 appointments (100,000 due, 400,000 later, 500,000 past).
	"large": {Name: "large", Camellos: 100_000, Clients: 1_000_000, DuePer: 1, FuturePer: 4, PastPer: 5, Quotes: 100_000, Messages: 500_000},
}

// growthSizes is the set of a cost-growth point: n camellos, one due
// appointment each, the fixed catalog, the slots camello and the lanes.
func growthSizes(n int) sizes {
	return sizes{Name: fmt.Sprintf("growth-%d", n), Camellos: n, Clients: 2_000, DuePer: 1}
}

var cityNames = []string{
	"Bogotá", "Medellín", "Cali", "Barranquilla", "Cartagena", "Cúcuta", "Soacha", "Bucaramanga", "Soledad", "Bello",
	"Villavicencio", "Ibagué", "Santa Marta", "Valledupar", "Manizales", "Pereira", "Montería", "Neiva", "Pasto", "Armenia",
	"Sincelejo", "Popayán", "Floridablanca", "Palmira", "Buenaventura", "Barrancabermeja", "Dosquebradas", "Tuluá", "Envigado", "Cartago",
	"Riohacha", "Maicao", "Tunja", "Girardot", "Facatativá", "Zipaquirá", "Chía", "Fusagasugá", "Itagüí", "Sogamoso",
	"Duitama", "Yopal", "Quibdó", "Florencia", "Apartadó", "Turbo", "Magangué", "Ocaña", "Ipiales", "Girón",
}

var tradeNames = []string{"plomería", "electricidad", "pintura", "carpintería", "cerrajería", "jardinería", "limpieza",
	"mudanzas", "albañilería", "soldadura", "tapicería", "refrigeración", "gas", "techos", "vidriería"}

// lane is one writer's world: a client and a camello (both signed in),
// laneJobs ASIGNADO jobs between them, and laneOpenJobs open jobs of the
// client in a service the camello offers.
type lane struct {
	ClientID, ClientCookie   string
	CamelloID, CamelloCookie string
	CamelloUserID            string
	Jobs, OpenJobs           []string
	Quoters                  []string // sessions of camellos offering the open jobs' service
}

// streamUser is a camello that opens /api/events, its ASIGNADO job and a
// session of the job's client (who posts the messages).
type streamUser struct {
	UserID, Cookie, Job, PosterCookie string
}

// dataset is what the scenarios need to know about the seeded data.
type dataset struct {
	Floor  floorSource // the write floor's tables, read before the service runs
	Dir    string
	Size   sizes
	Combos [][2]string // (city, service id) pairs with results
	// NearQueries are clients' positions ("lat=…&lng=…") around the city
	// centres the camellos work from: the listing by distance.
	NearQueries   []string
	SlotCamello   string
	ClientCookie  string
	BoardCookie   string // an ACTIVO camello (the open board)
	AdminCookie   string
	SuperEmail    string
	CategoryCount int
	SeedTime      time.Duration
	Appointments  int
	Jobs          int
	Users         int
	Quotes        int // 0 when the table is not there
	Messages      int
	Missing       []string // tables of the set that do not exist on this branch
	Lanes         []lane
	CamelloIDs    []string // a sample of ACTIVO camello ids (profiles)
	Streams       []streamUser
	QuoteJob      string // an open job with quotes, and its client's session
	QuoteCookie   string
	MessageJob    string // an ASIGNADO job with messages, and its client's session
	MessageCookie string
	Tables        map[string]bool
	Rules         bool // availability has the booking rules (notice, buffer, horizon)
}

func dbTime(t time.Time) string { return t.UTC().Format(dbTimeFormat) }

// seeder holds the seeding transaction and its prepared statements.
type seeder struct {
	db    *sql.DB
	tx    *sql.Tx
	err   error
	stmts map[string]*sql.Stmt
}

func (s *seeder) exec(query string, args ...any) {
	if s.err != nil {
		return
	}
	st := s.stmts[query]
	if st == nil {
		st, s.err = s.tx.Prepare(query)
		if s.err != nil {
			return
		}
		s.stmts[query] = st
	}
	_, s.err = st.Exec(args...)
}

// commit ends the transaction and opens the next one (big transactions;
// the statements are prepared again per transaction).
func (s *seeder) commit() {
	if s.err != nil {
		return
	}
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = map[string]*sql.Stmt{}
	if s.err = s.tx.Commit(); s.err != nil {
		return
	}
	s.tx, s.err = s.db.Begin()
}

// dropIndexes removes the secondary indexes of tables and returns their
// CREATE statements: building them once after the insert is cheaper than
// keeping them up to date row by row.
func dropIndexes(db *sql.DB, tables ...string) ([]string, error) {
	var creates []string
	for _, t := range tables {
		rows, err := db.Query(`SELECT name, sql FROM sqlite_master WHERE type='index' AND tbl_name=? AND sql IS NOT NULL`, t)
		if err != nil {
			return nil, err
		}
		var names []string
		for rows.Next() {
			var name, q string
			if err := rows.Scan(&name, &q); err != nil {
				rows.Close()
				return nil, err
			}
			names = append(names, name)
			creates = append(creates, q)
		}
		rows.Close()
		for _, n := range names {
			if _, err := db.Exec(`DROP INDEX "` + n + `"`); err != nil {
				return nil, err
			}
		}
	}
	return creates, nil
}

func tableExists(db *sql.DB, name string) bool {
	var n int
	_ = db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name=?`, name).Scan(&n)
	return n == 1
}

// columns of a table (empty when it does not exist).
func columns(db *sql.DB, table string) map[string]bool {
	out := map[string]bool{}
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			out[n] = true
		}
	}
	return out
}

// newToken is a session token and the hash the sessions table keeps
// (session.CreateSession's scheme: 32 random bytes base64url, SHA-256 hex).
func newToken() (token, hash string) {
	buf := make([]byte, 32)
	_, _ = rand.Read(buf)
	token = base64.RawURLEncoding.EncodeToString(buf)
	sum := sha256.Sum256([]byte(token))
	return token, hex.EncodeToString(sum[:])
}

func camUserID(i int) string    { return fmt.Sprintf("ucam%011d", i) }
func camID(i int) string        { return fmt.Sprintf("cam%012d", i) }
func camTokenKey(i int) string  { return fmt.Sprintf("tk%028d", i) }
func cliUserID(i int) string    { return fmt.Sprintf("ucli%011d", i) }
func cliTokenKey(i int) string  { return fmt.Sprintf("tc%028d", i) }
func jobID(j int) string        { return fmt.Sprintf("job%012d", j) }
func serviceID(s int) string    { return fmt.Sprintf("svc%012d", s) }
func laneJobID(l, j int) string { return fmt.Sprintf("jla%04d%08d", l, j) }
func laneOpenID(l, j int) string {
	return fmt.Sprintf("jlo%04d%08d", l, j)
}

// seed builds the data set in dir with the migrations applied, by raw SQL
// with prepared statements in a few big transactions, secondary indexes
// dropped during the insert and built after it; the folded columns follow
// text.Fold and every user shares one precomputed password hash.
func seed(dir string, sz sizes) (*dataset, error) {
	start := time.Now()
	app := core.NewBaseApp(core.BaseAppConfig{DataDir: dir})
	if err := app.Bootstrap(); err != nil {
		return nil, err
	}
	defer app.ResetBootstrapState()
	if err := app.RunAllMigrations(); err != nil {
		return nil, err
	}
	rng := mrand.New(mrand.NewSource(42))
	ds := &dataset{Dir: dir, Size: sz, SuperEmail: "bench@example.com", CategoryCount: nCategories, Tables: map[string]bool{}}

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

	// One user saved normally gives the password hash every seeded user
	// shares (client 0).
	usersCol, err := app.FindCollectionByNameOrId(users.Collection)
	if err != nil {
		return nil, err
	}
	first := core.NewRecord(usersCol)
	first.Id = cliUserID(0)
	first.SetEmail("cliente0@example.com")
	users.SetPassword(first, seedPassword)
	first.Set("name", "Cliente 0")
	first.Set("role", users.RoleClient)
	first.Set("city", "Bogotá")
	if err := app.Save(first); err != nil {
		return nil, err
	}
	var hash string
	if err := app.DB().NewQuery("SELECT password FROM users WHERE id={:id}").Bind(map[string]any{"id": first.Id}).Row(&hash); err != nil {
		return nil, err
	}

	db := app.NonconcurrentDB().(interface{ DB() *sql.DB }).DB()
	for _, t := range []string{"quotes", "messages"} {
		ds.Tables[t] = tableExists(db, t)
		if !ds.Tables[t] {
			ds.Missing = append(ds.Missing, t)
		}
	}
	now := time.Now().UTC()
	created := dbTime(now.Add(-24 * time.Hour))
	indexed := []string{"users", "camellos", "jobs", "appointments", "sessions"}
	for t, ok := range ds.Tables {
		if ok {
			indexed = append(indexed, t)
		}
	}
	// jobs.cityKey (the open board's folded city) exists once the quotes
	// branch has landed.
	jobCityKey := columns(db, "jobs")["cityKey"]
	ds.Rules = columns(db, "availability")["bufferMinutes"]
	creates, err := dropIndexes(db, indexed...)
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec("PRAGMA synchronous=OFF"); err != nil {
		return nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	s := &seeder{db: db, tx: tx, stmts: map[string]*sql.Stmt{}}

	session := func(userID, tokenKey string) string {
		token, h := newToken()
		s.exec(`INSERT INTO sessions (id, user, tokenHash, userTokenKey, expiresAt, ip, userAgent, created) VALUES (?,?,?,?,?,?,?,?)`,
			"ses"+h[:12], userID, h, tokenKey, dbTime(now.Add(30*24*time.Hour)), "127.0.0.1", "bench", created)
		return token
	}
	const userSQL = `INSERT INTO users (id, email, password, tokenKey, verified, emailVisibility, name, role, phone, city, disabled, created, updated)
		VALUES (?,?,?,?,0,0,?,?,?,?,0,?,?)`

	// Catalog.
	serviceNames := make([]string, nServices)
	for c := 0; c < nCategories; c++ {
		name := fmt.Sprintf("Categoría %02d", c)
		s.exec(`INSERT INTO categories (id, name, nameKey, description, color, icon, sortOrder, created, updated) VALUES (?,?,?,?,?,?,?,?,?)`,
			fmt.Sprintf("cat-%02d", c), name, text.Fold(name), "Servicios del hogar", "#3366cc", "casa", c, created, created)
	}
	for i := 0; i < nServices; i++ {
		serviceNames[i] = fmt.Sprintf("Servicio %03d %s", i, tradeNames[i%len(tradeNames)])
		s.exec(`INSERT INTO services (id, name, slug, category, description, created, updated) VALUES (?,?,?,?,?,?,?)`,
			serviceID(i), serviceNames[i], fmt.Sprintf("servicio-%03d", i), fmt.Sprintf("cat-%02d", i%nCategories), "", created, created)
	}
	// An admin (broadcasts).
	s.exec(userSQL, "uadm00000000001", "admin@example.com", hash, "tkadmin", "Admin Bench", users.RoleAdmin, "", "Bogotá", created, created)
	ds.AdminCookie = session("uadm00000000001", "tkadmin")

	// Camello users and profiles, each working from a point within ~8 km
	// of its city's centre (the gazetteer's), travelling 3–20 km.
	centres := cityCentres()
	for i := 0; i < 200; i++ {
		c := centres[cityNames[i%nCities]]
		ds.NearQueries = append(ds.NearQueries, fmt.Sprintf("lat=%.5f&lng=%.5f", c.Lat+(rng.Float64()-0.5)*0.08, c.Lng+(rng.Float64()-0.5)*0.08))
	}
	combos := map[[2]string]bool{}
	camServices := make([][]int, sz.Camellos)
	camCity := make([]string, sz.Camellos)
	for i := 0; i < sz.Camellos && s.err == nil; i++ {
		name := fmt.Sprintf("Camello %06d", i)
		city := cityNames[rng.Intn(nCities)]
		camCity[i] = city
		trades := []string{tradeNames[rng.Intn(len(tradeNames))]}
		svc := []string{}
		names := []string{}
		for k := 0; k < 1+rng.Intn(3); k++ {
			x := rng.Intn(nServices)
			camServices[i] = append(camServices[i], x)
			svc = append(svc, serviceID(x))
			names = append(names, serviceNames[x])
			if len(combos) < 400 {
				combos[[2]string{city, serviceID(x)}] = true
			}
		}
		tradesJSON, _ := json.Marshal(trades)
		svcJSON, _ := json.Marshal(svc)
		desc := "Trabajo garantizado en " + city
		search := text.Fold(strings.Join(append([]string{name, strings.Join(trades, " "), city, "Centro", desc}, names...), " "))
		ts := dbTime(now.Add(-time.Duration(i) * time.Second))
		s.exec(userSQL, camUserID(i), fmt.Sprintf("camello%d@example.com", i), hash, camTokenKey(i), name, users.RoleCamello, "3001234567", city, ts, ts)
		centre := centres[city]
		s.exec(`INSERT INTO camellos (id, user, name, trades, status, premium, services, documentId, phone, city, neighborhood,
		professionalCard, photo, notes, description, timezone, ratingAvg, ratingCount, searchText, cityKey, created, updated,
		hasBase, baseLat, baseLng, radiusKm)
		VALUES (?,?,?,?,'ACTIVO',?,?,?,?,?,?,?,'','',?,'America/Bogota',?,?,?,?,?,?,1,?,?,?)`,
			camID(i), camUserID(i), name, string(tradesJSON), rng.Intn(10) == 0, string(svcJSON), "", "3001234567", city, "Centro",
			"", desc, float64(rng.Intn(51))/10, rng.Intn(200), search, text.Fold(city), ts, ts,
			centre.Lat+(rng.Float64()-0.5)*0.15, centre.Lng+(rng.Float64()-0.5)*0.15, 3+rng.Intn(18))
		if i%1000 == 0 && len(ds.CamelloIDs) < 1000 {
			ds.CamelloIDs = append(ds.CamelloIDs, camID(i))
		}
	}
	for c := range combos {
		ds.Combos = append(ds.Combos, c)
	}
	byService := servicesIndex(camServices)
	ds.BoardCookie = session(camUserID(1), camTokenKey(1))
	s.commit()

	// Clients (client 0 exists).
	for i := 1; i < sz.Clients && s.err == nil; i++ {
		s.exec(userSQL, cliUserID(i), fmt.Sprintf("cliente%d@example.com", i), hash, cliTokenKey(i),
			fmt.Sprintf("Cliente %d", i), users.RoleClient, "", "Bogotá", created, created)
		if i%100_000 == 0 {
			s.commit()
		}
	}
	ds.Users = 1 + sz.Camellos + sz.Clients
	ds.ClientCookie = session(cliUserID(0), "")
	s.commit()
	if s.err != nil {
		return nil, fmt.Errorf("seed users: %w", s.err)
	}

	// Jobs: job j (j < N) ASIGNADO to camello j; job N+j open (PENDIENTE,
	// no provider) in one of camello j's services and city.
	clientOf := func(j int) string { return cliUserID(j % sz.Clients) }
	job := func(id, title, desc, status, city, service, client, provider, ts string) {
		if jobCityKey {
			s.exec(`INSERT INTO jobs (id, title, description, status, source, city, neighborhood, service, client, provider, cityKey, created, updated)
		VALUES (?,?,?,?,'EXPLORE',?,'Centro',?,?,?,?,?,?)`, id, title, desc, status, city, service, client, provider, text.Fold(city), ts, ts)
			return
		}
		s.exec(`INSERT INTO jobs (id, title, description, status, source, city, neighborhood, service, client, provider, created, updated)
		VALUES (?,?,?,?,'EXPLORE',?,'Centro',?,?,?,?,?)`, id, title, desc, status, city, service, client, provider, ts, ts)
	}
	for j := 0; j < sz.Camellos && s.err == nil; j++ {
		job(jobID(j), "Trabajo "+fmt.Sprint(j), "Arreglo en casa", "ASIGNADO", camCity[j], serviceID(camServices[j][0]), clientOf(j), camID(j), created)
		ts := dbTime(now.Add(-time.Duration(j) * time.Second))
		job(jobID(sz.Camellos+j), "Trabajo abierto "+fmt.Sprint(j), "Necesito ayuda con un arreglo en casa", "PENDIENTE",
			camCity[(j*7)%sz.Camellos], serviceID(camServices[(j*7)%sz.Camellos][0]), clientOf(j+1), "", ts)
		if j%100_000 == 99_999 {
			s.commit()
		}
	}
	ds.Jobs = sz.Jobs()
	s.commit()

	// Appointments: per camello DuePer due within the next 24 h (2 h
	// apart, never on the hour), FuturePer beyond the booking horizon (days
	// 62+), PastPer COMPLETADA in the past; all on the camello's job.
	const apptSQL = `INSERT INTO appointments (id, job, camello, client, start, end, status, reminderSentAt, created, updated)
		VALUES (?,?,?,?,?,?,?,?,?,?)`
	base := now.Truncate(time.Hour).Add(107 * time.Minute) // 47–107 min ahead, never on the hour
	n := 0
	for k := 0; k < sz.DuePer+sz.FuturePer+sz.PastPer && s.err == nil; k++ {
		var st time.Time
		status, sent := "PROGRAMADA", ""
		switch {
		case k < sz.DuePer:
			st = base.Add(time.Duration(k) * 2 * time.Hour)
		case k < sz.DuePer+sz.FuturePer:
			st = base.Add(time.Duration(62+k) * 24 * time.Hour)
		default:
			st = base.Add(-time.Duration(2+k) * 24 * time.Hour)
			status, sent = "COMPLETADA", dbTime(st.Add(-time.Hour))
		}
		for cam := 0; cam < sz.Camellos && s.err == nil; cam++ {
			s.exec(apptSQL, fmt.Sprintf("apt%012d", n), jobID(cam), camID(cam), clientOf(cam), dbTime(st), dbTime(st.Add(time.Hour)), status, sent, created, created)
			n++
			if n%200_000 == 0 {
				s.commit()
			}
		}
	}
	// The slots camello: open 06:00–22:00 every day (Bogotá), 300 of its
	// slots over the next 31 days booked. Lane camellos: open 06:00–22:00.
	slotCam := sz.Camellos - 1
	ds.SlotCamello = camID(slotCam)
	weekly := []map[string]any{}
	for d := 0; d < 7; d++ {
		weekly = append(weekly, map[string]any{"weekday": d, "start": "06:00", "end": "22:00"})
	}
	weeklyJSON, _ := json.Marshal(weekly)
	// Booking rules (once the booking branch has landed): the slots camello
	// has them all on (2 h notice, 15 min buffer, 60-day horizon); the lanes
	// keep no buffer so that consecutive hours can be booked.
	avail := func(id, cam string, buffer int) {
		if ds.Rules {
			s.exec(`INSERT INTO availability (id, camello, timezone, weekly, blockedDates, minNoticeMinutes, bufferMinutes, horizonDays, created, updated) VALUES (?,?,?,?,?,?,?,?,?,?)`,
				id, cam, "America/Bogota", string(weeklyJSON), "[]", 120, buffer, 60, created, created)
			return
		}
		s.exec(`INSERT INTO availability (id, camello, timezone, weekly, blockedDates, created, updated) VALUES (?,?,?,?,?,?,?)`,
			id, cam, "America/Bogota", string(weeklyJSON), "[]", created, created)
	}
	avail("avlslot00000001", camID(slotCam), 15)
	bogota, _ := time.LoadLocation("America/Bogota")
	day0 := time.Now().In(bogota).AddDate(0, 0, 1)
	day0 = time.Date(day0.Year(), day0.Month(), day0.Day(), 0, 0, 0, 0, bogota)
	for b := 0; b < nSlotAppts && s.err == nil; b++ {
		d, h := b/10, 7+(b%10)
		st := day0.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour).UTC()
		s.exec(apptSQL, fmt.Sprintf("aps%012d", b), jobID(slotCam), camID(slotCam), clientOf(slotCam), dbTime(st), dbTime(st.Add(time.Hour)), "PROGRAMADA", "", created, created)
		n++
	}
	ds.Appointments = n
	s.commit()

	// Writer lanes: camello l (l < nLanes, never the slots camello) and
	// client l+1, laneJobs ASIGNADO jobs between them, laneOpenJobs open
	// jobs of the client in the camello's first service.
	quoterUsed := map[int]bool{}
	for l := 0; l < nLanes && s.err == nil; l++ {
		ln := lane{ClientID: cliUserID(l + 1), CamelloID: camID(l), CamelloUserID: camUserID(l)}
		ln.ClientCookie = session(ln.ClientID, cliTokenKey(l+1))
		ln.CamelloCookie = session(camUserID(l), camTokenKey(l))
		if l != slotCam {
			avail(fmt.Sprintf("avllane%08d", l), camID(l), 0)
		}
		for j := 0; j < laneJobs; j++ {
			id := laneJobID(l, j)
			job(id, fmt.Sprintf("Trabajo de carril %d-%d", l, j), "Arreglo en casa", "ASIGNADO", camCity[l], serviceID(camServices[l][0]), ln.ClientID, ln.CamelloID, created)
			ln.Jobs = append(ln.Jobs, id)
		}
		for j := 0; j < laneOpenJobs; j++ {
			id := laneOpenID(l, j)
			ts := dbTime(now.Add(-time.Duration(l*laneOpenJobs+j) * time.Second)) // posted one by one
			job(id, fmt.Sprintf("Trabajo abierto de carril %d-%d", l, j), "Necesito ayuda", "PENDIENTE", camCity[l], serviceID(camServices[l][0]), ln.ClientID, "", ts)
			ln.OpenJobs = append(ln.OpenJobs, id)
		}
		// Quoters: up to laneQuoters camellos offering the lane's service,
		// not used by another lane where possible (the service limits the
		// quotes of one camello per hour).
		for _, c := range byService[camServices[l][0]] {
			if len(ln.Quoters) >= laneQuoters {
				break
			}
			if !quoterUsed[c] && c != slotCam {
				quoterUsed[c] = true
				ln.Quoters = append(ln.Quoters, session(camUserID(c), camTokenKey(c)))
			}
		}
		if len(ln.Quoters) == 0 {
			ln.Quoters = []string{ln.CamelloCookie}
		}
		ds.Jobs += laneJobs + laneOpenJobs
		ds.Lanes = append(ds.Lanes, ln)
	}
	// Stream users (live events): camellos 100..2099 open /api/events; the
	// client of each one's ASIGNADO job (job i ↔ camello i) posts to it.
	posters := map[string]string{}
	for i := 0; i < nStreamUsers && 100+nStreamUsers <= sz.Camellos && s.err == nil; i++ {
		cam := 100 + i
		su := streamUser{UserID: camUserID(cam), Job: jobID(cam)}
		su.Cookie = session(camUserID(cam), camTokenKey(cam))
		cl := cam % sz.Clients
		if posters[clientOf(cam)] == "" {
			key := cliTokenKey(cl)
			if cl == 0 {
				key = ""
			}
			posters[clientOf(cam)] = session(clientOf(cam), key)
		}
		su.PosterCookie = posters[clientOf(cam)]
		ds.Streams = append(ds.Streams, su)
	}
	// Open job 0 (client 1 = lane 0's client) has quotes, job 1 (client 1)
	// messages, when those tables exist.
	ds.QuoteJob, ds.QuoteCookie = jobID(sz.Camellos), ds.Lanes[0].ClientCookie
	ds.MessageJob, ds.MessageCookie = jobID(1), ds.Lanes[0].ClientCookie
	s.commit()
	if s.err != nil {
		return nil, fmt.Errorf("seed jobs and appointments: %w", s.err)
	}

	if ds.Tables["quotes"] {
		if err := seedQuotes(s, ds, sz, camServices, now); err != nil {
			return nil, fmt.Errorf("seed quotes: %w", err)
		}
	}
	if ds.Tables["messages"] {
		if err := seedMessages(s, ds, sz, now); err != nil {
			return nil, fmt.Errorf("seed messages: %w", err)
		}
	}
	if err := s.tx.Commit(); err != nil {
		return nil, err
	}
	// Client 0's sessions must carry its real tokenKey.
	if _, err := db.Exec(`UPDATE sessions SET userTokenKey = (SELECT tokenKey FROM users WHERE id = ?) WHERE user = ?`, cliUserID(0), cliUserID(0)); err != nil {
		return nil, err
	}
	for _, q := range creates {
		if _, err := db.Exec(q); err != nil {
			return nil, fmt.Errorf("index after insert: %w (%s)", err, q)
		}
	}
	if _, err := db.Exec("PRAGMA synchronous=NORMAL"); err != nil {
		return nil, err
	}
	if _, err := db.Exec("ANALYZE"); err != nil {
		return nil, err
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return nil, err
	}
	ds.SeedTime = time.Since(start)
	ds.Floor = readFloorSource(dir)
	return ds, nil
}

// servicesIndex lists, per service, the camellos that offer it.
func servicesIndex(camServices [][]int) map[int][]int {
	byService := map[int][]int{}
	for c, svcs := range camServices {
		for _, x := range svcs {
			if l := byService[x]; len(l) == 0 || l[len(l)-1] != c { // a camello may list a service twice
				byService[x] = append(l, c)
			}
		}
	}
	return byService
}

// seedQuotes puts 5 PENDIENTE quotes on each of the first Quotes/5 open
// jobs (open job N+j), by 5 camellos that offer the job's service.
func seedQuotes(s *seeder, ds *dataset, sz sizes, camServices [][]int, now time.Time) error {
	n := sz.Camellos
	if n < 10 {
		return nil
	}
	byService := servicesIndex(camServices)
	created, expires := dbTime(now.Add(-time.Hour)), dbTime(now.Add(7*24*time.Hour))
	q := 0
	for j := 0; j < n && q < sz.Quotes && s.err == nil; j++ {
		cams := byService[camServices[(j*7)%n][0]]
		for k := 0; k < 5 && k < len(cams) && q < sz.Quotes; k++ {
			s.exec(`INSERT INTO quotes (id, job, camello, amount, currency, message, status, expiresAt, created, updated) VALUES (?,?,?,?,?,?,?,?,?,?)`,
				fmt.Sprintf("quo%012d", q), jobID(n+j), camID(cams[(j+k)%len(cams)]), 100000+1000*(q%50), "COP",
				"Puedo ir mañana en la mañana, incluye materiales básicos", "PENDIENTE", expires, created, created)
			q++
			if q%200_000 == 0 {
				s.commit()
			}
		}
	}
	ds.Quotes = q
	s.commit()
	return s.err
}

// seedMessages writes Messages/N messages on each ASIGNADO job (job i ↔
// camello i), the client and the camello in turn.
func seedMessages(s *seeder, ds *dataset, sz sizes, now time.Time) error {
	n := sz.Camellos
	if n == 0 {
		return nil
	}
	per := sz.Messages / n
	m := 0
	for k := 0; k < per && s.err == nil; k++ {
		ts := dbTime(now.Add(-time.Duration(per-k) * time.Hour))
		for j := 0; j < n && s.err == nil; j++ {
			author := cliUserID(j % sz.Clients)
			body := "Hola, ¿a qué hora llega mañana? Dejo la llave con el portero."
			if k%2 == 1 {
				author, body = camUserID(j), "Llego a las 9. Llevo los materiales."
			}
			s.exec(`INSERT INTO messages (id, job, camello, author, body, created) VALUES (?,?,?,?,?,?)`, fmt.Sprintf("msg%012d", m), jobID(j), camID(j), author, body, ts)
			m++
			if m%200_000 == 0 {
				s.commit()
			}
		}
	}
	ds.Messages = m
	s.commit()
	return s.err
}

// cityCentres are the bench cities' points in the gazetteer's seed (a city
// missing there works from Bogotá's).
func cityCentres() map[string]geo.Point {
	rows, _ := places.SeedRows()
	out := map[string]geo.Point{}
	for _, p := range rows {
		if p.Kind == places.KindCity {
			if _, ok := out[p.City]; !ok {
				out[p.City] = p.Point()
			}
		}
	}
	for _, c := range cityNames {
		if _, ok := out[c]; !ok {
			out[c] = geo.Point{Lat: 4.60971, Lng: -74.08175}
		}
	}
	return out
}
