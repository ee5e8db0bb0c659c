package jobs

import (
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/readmodel"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/catalog"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The open board (GET /api/jobs/open, routed by the quotes area) is an
// in-memory projection of the open jobs (PENDIENTE, without provider): per
// service, newest first (created DESC, id DESC, as the SQL it replaces),
// and per service and folded city; each job's JSON values rendered once.
// A page is the merge of the caller's services' lists and the total the
// sum of their lengths: no SQL per request.
//
// It stays exact by patching, not by rebuilding: every committed write of
// a job (record saves and deletes, the conditional assignments of Assign
// and AssignQuoted) re-reads that one job; a client's write re-reads its
// name, a catalog write the services' names, a review write the job's
// "reviewed". Only a commit by another process (dbwatch) drops it whole;
// the next reader builds it again. Patches and builds are serialised
// (patchMu), and every patch re-reads the database after its commit, so
// the projection ends at the database's state whatever order the hooks of
// racing writes run in.

// boardState is one built projection.
type boardState struct {
	byID      map[string]*openJob
	reviewed  map[string]bool // open jobs with a review (normally none)
	byService map[string]*serviceJobs
	clients   map[string]*boardClient
	services  map[string]*boardService
}

// serviceJobs are the open jobs of one service, newest first, also by
// folded city.
type serviceJobs struct {
	all    []*openJob
	byCity map[string][]*openJob
}

// boardClient is a job's client as the board renders it; shared by the
// client's open jobs, patched when the user is written.
type boardClient struct {
	id       string
	nameJSON string
	jobs     int
}

// newBoardClient is a client's entry (its id stored once).
func newBoardClient(id, name string) *boardClient {
	return &boardClient{id: id, nameJSON: jsonString(name)}
}

// appendID appends the client's id as JSON.
func (c *boardClient) appendID(buf []byte) []byte {
	if !plainJSON(c.id) {
		return append(buf, jsonString(c.id)...) // only a raw-SQL id can need it
	}
	buf = append(buf, '"')
	buf = append(buf, c.id...)
	return append(buf, '"')
}

// boardService is a service as the board renders it (catalog.ServiceRef).
type boardService struct {
	id   string
	json string
}

// openJob is one open job: its order key, filter keys and JSON values in
// one string, each field after its length as a uvarint (f(i) is field i:
// ~40 B less per job than offsets beside it), the shared client and
// service. The
// fields that usually follow from others are stored empty then: the JSON
// id is the id quoted, createdAt the stored date with a "T", updatedAt
// the same as createdAt.
type openJob struct {
	s        string
	reviewed bool
	client   *boardClient
	service  *boardService
}

// The fields of an openJob, in the order they are stored.
const (
	fID      = iota // raw
	fCreated        // raw, as stored: the order key
	fCityKey        // raw
	fCity           // JSON from here on
	fDescription
	fNeighborhood
	fPrice
	fSource
	fTitle
	fIDJSON    // "" when it is the id quoted
	fCreatedAt // "" when it is the stored date with a "T"
	fUpdatedAt // "" when it is createdAt
	nFields
)

// f returns field i (the order key and the id come first: cheap).
func (j *openJob) f(i int) string {
	rest := j.s
	for {
		n, w := uvarint(rest)
		if i == 0 {
			return rest[w : w+n]
		}
		rest = rest[w+n:]
		i--
	}
}

// fields returns every field (one pass over s).
func (j *openJob) fields() (out [nFields]string) {
	rest := j.s
	for i := range out {
		n, w := uvarint(rest)
		out[i] = rest[w : w+n]
		rest = rest[w+n:]
	}
	return out
}

// uvarint decodes a length written by binary.AppendUvarint at the start
// of s: the length and the bytes it took.
func uvarint(s string) (n, w int) {
	shift := 0
	for {
		b := s[w]
		w++
		n |= int(b&0x7f) << shift
		if b < 0x80 {
			return n, w
		}
		shift += 7
	}
}

// newer reports whether a comes before b on the board.
func newer(a, b *openJob) bool {
	ac, bc := a.f(fCreated), b.f(fCreated)
	if ac != bc {
		return ac > bc
	}
	return a.f(fID) > b.f(fID)
}

// openBoard is the board of one app.
type openBoard struct {
	app     core.App
	patchMu sync.Mutex // one build or patch at a time (their reads included)
	mu      sync.RWMutex
	st      *boardState // nil until built, or after a drop
	gen     uint64      // counts drops: a build that raced one is not kept
	bodies  sync.Pool   // *[]byte: buffers of rendered pages (one of 20 is ~13 KB)
}

const boardKey = "camellos.jobs.board"

// boardOf returns the board of app (shared by its transactions).
func boardOf(app core.App) *openBoard {
	return app.Store().GetOrSet(boardKey, func() any { return &openBoard{app: app} }).(*openBoard)
}

// drop forgets the whole projection (a commit by another process:
// anything may have changed).
func (b *openBoard) drop() {
	b.mu.Lock()
	b.st = nil
	b.gen++
	b.mu.Unlock()
}

// declareBoard declares the open board (internal/readmodel): built from
// the jobs, their clients' names, the reviews and the catalog; checked
// against a fresh build, job by job and list by list.
func declareBoard(app core.App) {
	b := boardOf(app)
	readmodel.Declare(app, readmodel.Projection{
		Name:   "board",
		Tables: []string{Collection, users.Collection, camellos.ReviewsCollection, "services", "categories"},
		Bound:  "every open job (~350 B each: 35 MB at 100,000)",
		Drop:   b.drop,
		Check:  func(core.App) (int, error) { return b.compare() },
	})
}

// compare counts the jobs whose place or fields on the built board differ
// from a fresh build (0 when none is built). No patch runs meanwhile.
func (b *openBoard) compare() (int, error) {
	b.patchMu.Lock()
	defer b.patchMu.Unlock()
	b.mu.RLock()
	st := b.st
	b.mu.RUnlock()
	if st == nil {
		return 0, nil
	}
	fresh, err := b.build()
	if err != nil {
		return 0, err
	}
	b.mu.RLock() // patches replace fields in place under b.mu
	defer b.mu.RUnlock()
	diffs := 0
	for id, j := range fresh.byID {
		if old := st.byID[id]; old == nil || old.reviewed != j.reviewed || string(old.appendJSON(nil)) != string(j.appendJSON(nil)) {
			diffs++
		}
	}
	for id := range st.byID {
		if fresh.byID[id] == nil {
			diffs++
		}
	}
	for id := range fresh.reviewed {
		if !st.reviewed[id] {
			diffs++
		}
	}
	order := func(list []*openJob) string {
		var sb strings.Builder
		for _, j := range list {
			sb.WriteString(j.f(0))
			sb.WriteByte(',')
		}
		return sb.String()
	}
	for svc, l := range fresh.byService {
		old := st.byService[svc]
		if old == nil || order(old.all) != order(l.all) {
			diffs++
		}
	}
	return diffs, nil
}

// boardRow is the columns of an open job the board renders.
type boardRow struct {
	ID           string  `db:"id"`
	Created      string  `db:"created"`
	Updated      string  `db:"updated"`
	Title        string  `db:"title"`
	Description  string  `db:"description"`
	Source       string  `db:"source"`
	City         string  `db:"city"`
	CityKey      string  `db:"cityKey"`
	Neighborhood string  `db:"neighborhood"`
	Service      string  `db:"service"`
	Client       string  `db:"client"`
	PriceAmount  float64 `db:"priceAmount"`
	ClientName   string  `db:"clientName"`
	Reviewed     bool    `db:"reviewed"`
}

// boardSelect reads open jobs with what jobs.JSON adds to them: the
// client's name (users.Names: "" when unknown) and whether the job has its
// review (camellos.ReviewedJobs), looked up per row by primary key and
// idx_reviews_job. The condition is idx_jobs_open's.
const boardSelect = "SELECT j.id, j.created, j.updated, j.title, j.description, j.source, j.city, j.cityKey, " +
	"j.neighborhood, j.service, j.client, j.priceAmount, " +
	"COALESCE((SELECT u.name FROM " + users.Collection + " u WHERE u.id = j.client), '') AS clientName, " +
	"EXISTS (SELECT 1 FROM " + camellos.ReviewsCollection + " r WHERE r.job = j.id) AS reviewed " +
	"FROM " + Collection + " j WHERE j.status = 'PENDIENTE' AND j.provider = ''"

// build reads every open job in one query (rows rendered as they come)
// and their services in another.
func (b *openBoard) build() (*boardState, error) {
	var n int
	if err := b.app.DB().NewQuery("SELECT COUNT(*) FROM " + Collection + " WHERE status = 'PENDIENTE' AND provider = ''").Row(&n); err != nil {
		return nil, err
	}
	st := &boardState{byID: make(map[string]*openJob, n), reviewed: map[string]bool{}, byService: map[string]*serviceJobs{},
		clients: map[string]*boardClient{}, services: map[string]*boardService{}}
	rows, err := b.app.DB().NewQuery(boardSelect).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	serviceIDs := []string{}
	jobsOf := map[string][]*openJob{}
	for rows.Next() {
		var r boardRow
		if err := rows.ScanStruct(&r); err != nil {
			return nil, err
		}
		if st.clients[r.Client] == nil {
			st.clients[r.Client] = newBoardClient(r.Client, r.ClientName)
		}
		if st.services[r.Service] == nil {
			st.services[r.Service] = &boardService{id: r.Service}
			serviceIDs = append(serviceIDs, r.Service)
		}
		j := newOpenJob(&r, st)
		j.client.jobs++
		st.byID[j.f(fID)] = j
		if j.reviewed {
			st.reviewed[j.f(fID)] = true
		}
		jobsOf[r.Service] = append(jobsOf[r.Service], j)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := st.loadServices(b.app, serviceIDs); err != nil {
		return nil, err
	}
	for svc, list := range jobsOf {
		sort.Slice(list, func(a, b int) bool { return newer(list[a], list[b]) })
		sj := &serviceJobs{all: list, byCity: map[string][]*openJob{}}
		for _, j := range list {
			sj.byCity[j.f(fCityKey)] = append(sj.byCity[j.f(fCityKey)], j)
		}
		st.byService[svc] = sj
	}
	return st, nil
}

// loadServices (re)renders the services ids as catalog.ServiceRefs does;
// an unknown service renders as {id, "", ""} like jobs.JSON.
func (st *boardState) loadServices(app core.App, ids []string) error {
	refs, err := catalog.ServiceRefs(app, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		ref, ok := refs[id]
		if !ok {
			ref = catalog.ServiceRef{ID: id}
		}
		raw, err := json.Marshal(ref)
		if err != nil {
			return err
		}
		s := st.services[id]
		if s == nil {
			s = &boardService{id: id}
			st.services[id] = s
		}
		s.json = string(raw)
	}
	return nil
}

// newOpenJob renders one row (its client and service must be in st).
func newOpenJob(r *boardRow, st *boardState) *openJob {
	price := "null"
	if n := int(r.PriceAmount); n > 0 {
		price = `{"amount":` + strconv.Itoa(n) + `,"currency":"` + Currency + `"}`
	}
	parts := [nFields]string{
		fID: r.ID, fCreated: r.Created, fCityKey: r.CityKey,
		fCity: jsonString(r.City), fDescription: jsonString(r.Description), fNeighborhood: jsonString(r.Neighborhood),
		fPrice: price, fSource: jsonString(r.Source), fTitle: jsonString(r.Title),
	}
	if id := jsonString(r.ID); id != `"`+r.ID+`"` {
		parts[fIDJSON] = id
	}
	created := jsonString(timefmt.ISOOfStored(r.Created))
	if created != derivedISO(r.Created) {
		parts[fCreatedAt] = created
	}
	if r.Updated != r.Created {
		if updated := jsonString(timefmt.ISOOfStored(r.Updated)); updated != created {
			parts[fUpdatedAt] = updated
		}
	}
	j := &openJob{reviewed: r.Reviewed, client: st.clients[r.Client], service: st.services[r.Service]}
	n := 0
	for _, p := range parts {
		n += len(p) + binary.MaxVarintLen32
	}
	buf := make([]byte, 0, n)
	for _, p := range parts {
		buf = binary.AppendUvarint(buf, uint64(len(p)))
		buf = append(buf, p...)
	}
	j.s = string(buf)
	return j
}

// jsonString renders s as encoding/json does (HTML characters escaped):
// quoted as it is when nothing in it needs escaping (a check of its bytes,
// not json.Marshal: the build renders ~7 strings per open job). 0xE2
// starts U+2028 and U+2029, which encoding/json escapes.
func jsonString(s string) string {
	if plainJSON(s) {
		return `"` + s + `"`
	}
	raw, _ := json.Marshal(s)
	return string(raw)
}

// plainJSON reports whether encoding/json writes s quoted as it is.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0xE2 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// derivedISO is the createdAt a stored date in PocketBase's format
// ("2006-01-02 15:04:05.000Z") renders as, quoted; "" for another form.
func derivedISO(stored string) string {
	if len(stored) != len(timefmt.DBLayout) || stored[10] != ' ' {
		return ""
	}
	return `"` + stored[:10] + "T" + stored[11:] + `"`
}

// appendCreatedAt and appendUpdatedAt append the JSON of those fields of
// a job's fields f.
func appendCreatedAt(buf []byte, f *[nFields]string) []byte {
	if v := f[fCreatedAt]; v != "" {
		return append(buf, v...)
	}
	c := f[fCreated] // derivedISO, without building the string
	buf = append(buf, '"')
	buf = append(buf, c[:10]...)
	buf = append(buf, 'T')
	buf = append(buf, c[11:]...)
	return append(buf, '"')
}

func appendUpdatedAt(buf []byte, f *[nFields]string) []byte {
	if v := f[fUpdatedAt]; v != "" {
		return append(buf, v...)
	}
	return appendCreatedAt(buf, f)
}

// state returns the built projection, building it when there is none. The
// projection is shared and patched: read it under b.mu.RLock (done
// releases it). A build that raced a drop is handed to this reader only.
func (b *openBoard) state() (st *boardState, done func(), err error) {
	b.mu.RLock()
	if b.st != nil {
		return b.st, b.mu.RUnlock, nil
	}
	b.mu.RUnlock()
	b.patchMu.Lock()
	defer b.patchMu.Unlock()
	b.mu.RLock()
	if b.st != nil {
		return b.st, b.mu.RUnlock, nil
	}
	gen := b.gen
	b.mu.RUnlock()
	built, err := b.build()
	if err != nil {
		return nil, nil, err
	}
	b.mu.Lock()
	if b.gen == gen {
		b.st = built
	}
	b.mu.Unlock()
	return built, func() {}, nil
}

// built reports whether a projection is built (patches skip an unbuilt
// one: the next build reads the committed state).
func (b *openBoard) built() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.st != nil
}

// refreshJob re-reads one job after a committed write and puts it on the
// board, moves it, or takes it off.
func (b *openBoard) refreshJob(jobID string) {
	b.patchMu.Lock()
	defer b.patchMu.Unlock()
	if !b.built() {
		return
	}
	if err := b.refreshJobLocked(jobID); err != nil {
		b.app.Logger().Error("jobs: open board patch failed, dropped", "job", jobID, "error", err.Error())
		b.drop()
	}
}

func (b *openBoard) refreshJobLocked(jobID string) error {
	var row boardRow
	err := b.app.DB().NewQuery(boardSelect + " AND j.id = {:id}").Bind(dbx.Params{"id": jobID}).One(&row)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	b.mu.RLock()
	st := b.st
	haveService := found && st.services[row.Service] != nil
	b.mu.RUnlock()
	var svcJSON string
	if found && !haveService {
		tmp := &boardState{services: map[string]*boardService{}}
		if err := tmp.loadServices(b.app, []string{row.Service}); err != nil {
			return err
		}
		svcJSON = tmp.services[row.Service].json
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.st != st { // dropped meanwhile (only drop replaces it)
		return nil
	}
	st.remove(jobID)
	if !found {
		return nil
	}
	if st.clients[row.Client] == nil { // also when remove took the client's last job
		st.clients[row.Client] = newBoardClient(row.Client, row.ClientName)
	}
	if st.services[row.Service] == nil {
		st.services[row.Service] = &boardService{id: row.Service, json: svcJSON}
	}
	st.insert(newOpenJob(&row, st))
	return nil
}

// remove takes a job off the board (b.mu held).
func (st *boardState) remove(jobID string) {
	j := st.byID[jobID]
	if j == nil {
		return
	}
	delete(st.byID, jobID)
	delete(st.reviewed, jobID)
	sj := st.byService[j.service.id]
	sj.all = removeJob(sj.all, j)
	city := j.f(fCityKey)
	if l := removeJob(sj.byCity[city], j); len(l) > 0 {
		sj.byCity[city] = l
	} else {
		delete(sj.byCity, city)
	}
	if len(sj.all) == 0 {
		delete(st.byService, j.service.id)
	}
	if j.client.jobs--; j.client.jobs <= 0 {
		delete(st.clients, j.client.id)
	}
}

// insert puts a job on the board in its place (b.mu held).
func (st *boardState) insert(j *openJob) {
	st.byID[j.f(fID)] = j
	if j.reviewed {
		st.reviewed[j.f(fID)] = true
	}
	sj := st.byService[j.service.id]
	if sj == nil {
		sj = &serviceJobs{byCity: map[string][]*openJob{}}
		st.byService[j.service.id] = sj
	}
	sj.all = insertJob(sj.all, j)
	sj.byCity[j.f(fCityKey)] = insertJob(sj.byCity[j.f(fCityKey)], j)
	j.client.jobs++
}

// position is where j goes in list (newest first).
func position(list []*openJob, j *openJob) int {
	return sort.Search(len(list), func(i int) bool { return !newer(list[i], j) })
}

func insertJob(list []*openJob, j *openJob) []*openJob {
	i := position(list, j)
	list = append(list, nil)
	copy(list[i+1:], list[i:])
	list[i] = j
	return list
}

func removeJob(list []*openJob, j *openJob) []*openJob {
	for i := position(list, j); i < len(list); i++ {
		if list[i] == j {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
		if newer(j, list[i]) {
			break
		}
	}
	return list
}

// reviewedJobs lists the open jobs shown as reviewed.
func (b *openBoard) reviewedJobs() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	var ids []string
	if b.st != nil {
		for id := range b.st.reviewed {
			ids = append(ids, id)
		}
	}
	return ids
}

// refreshClient re-reads the name of a user whose jobs are on the board.
func (b *openBoard) refreshClient(userID string) {
	b.patchMu.Lock()
	defer b.patchMu.Unlock()
	b.mu.RLock()
	st := b.st
	has := st != nil && st.clients[userID] != nil
	b.mu.RUnlock()
	if !has {
		return
	}
	names, err := users.Names(b.app, []any{userID})
	if err != nil {
		b.app.Logger().Error("jobs: open board patch failed, dropped", "user", userID, "error", err.Error())
		b.drop()
		return
	}
	b.mu.Lock()
	if c := st.clients[userID]; c != nil && b.st == st {
		c.nameJSON = jsonString(names[userID])
	}
	b.mu.Unlock()
}

// refreshServices re-renders every service on the board (a catalog write:
// a service or a category renamed).
func (b *openBoard) refreshServices() {
	b.patchMu.Lock()
	defer b.patchMu.Unlock()
	b.mu.RLock()
	st := b.st
	var ids []string
	if st != nil {
		for id := range st.services {
			ids = append(ids, id)
		}
	}
	b.mu.RUnlock()
	if st == nil {
		return
	}
	tmp := &boardState{services: map[string]*boardService{}}
	if err := tmp.loadServices(b.app, ids); err != nil {
		b.app.Logger().Error("jobs: open board patch failed, dropped", "error", err.Error())
		b.drop()
		return
	}
	b.mu.Lock()
	if b.st == st {
		for id, s := range tmp.services {
			st.services[id].json = s.json
		}
	}
	b.mu.Unlock()
}

// bindBoard keeps the board exact: the jobs' own writes, the clients'
// names (users), the services' names (catalog), the reviews (camellos),
// and commits by another process.
func bindBoard(app core.App) {
	b := boardOf(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) { b.refreshJob(w.Record.Id) })
	ev := bus.Of(app)
	ev.UserChanged.BindFunc(func(e *bus.Change) error {
		b.refreshClient(e.Record.Id)
		return e.Next()
	})
	ev.CatalogChanged.BindFunc(func(e *bus.Change) error {
		b.refreshServices()
		return e.Next()
	})
	// A review names its job; the open jobs shown as reviewed (normally
	// none) are read again too, in case the review moved off one of them.
	camellos.OnReviewChanged(app).BindFunc(func(e *bus.Change) error {
		b.refreshJob(camellos.WrapReview(e.Record).JobID())
		for _, id := range b.reviewedJobs() {
			b.refreshJob(id)
		}
		return e.Next()
	})
}

// BoardPage renders one page of the open board of services (the caller's,
// none repeated), optionally in one city (folded, as stored in cityKey;
// city "" for any): the body of {jobs, page, perPage, total} exactly as
// e.JSON(p.Answer("jobs", …)) renders it from jobs.JSON without the
// address. No SQL once the board is built.
// Hand the body back with release once written (its buffer is reused).
func BoardPage(app core.App, services []string, city string, p httpapi.Page) (body []byte, release func(), err error) {
	b := boardOf(app)
	st, done, err := b.state()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	cityKey := text.Fold(city)
	lists := make([][]*openJob, 0, len(services))
	var total int64
	for _, s := range services {
		sj := st.byService[s]
		if sj == nil {
			continue
		}
		l := sj.all
		if city != "" {
			l = sj.byCity[cityKey]
		}
		if len(l) > 0 {
			lists = append(lists, l)
			total += int64(len(l))
		}
	}
	pooled, _ := b.bodies.Get().(*[]byte)
	if pooled == nil {
		pooled = new([]byte)
	}
	buf := append((*pooled)[:0], `{"jobs":[`...)
	skip := p.Offset()
	for n := 0; n < p.PerPage; {
		best := -1
		for i, l := range lists {
			if len(l) > 0 && (best < 0 || newer(l[0], lists[best][0])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		j := lists[best][0]
		lists[best] = lists[best][1:]
		if skip > 0 {
			skip--
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = j.appendJSON(buf)
		n++
	}
	buf = append(buf, `],"page":`...)
	buf = strconv.AppendInt(buf, int64(p.Page), 10)
	buf = append(buf, `,"perPage":`...)
	buf = strconv.AppendInt(buf, int64(p.PerPage), 10)
	buf = append(buf, `,"total":`...)
	buf = strconv.AppendInt(buf, total, 10)
	buf = append(buf, "}\n"...)
	return buf, func() {
		if cap(buf) <= maxPooledBody {
			*pooled = buf
			b.bodies.Put(pooled)
		}
	}, nil
}

// maxPooledBody: larger buffers (pages of 100 long jobs) are not kept.
const maxPooledBody = 256 << 10

// appendJSON renders the job as jobs.JSON's map (keys sorted, as
// encoding/json writes a map) without "address".
func (j *openJob) appendJSON(buf []byte) []byte {
	f := j.fields()
	buf = append(buf, `{"city":`...)
	buf = append(buf, f[fCity]...)
	buf = append(buf, `,"client":{"id":`...)
	buf = j.client.appendID(buf)
	buf = append(buf, `,"name":`...)
	buf = append(buf, j.client.nameJSON...)
	buf = append(buf, `},"clientId":`...)
	buf = j.client.appendID(buf)
	buf = append(buf, `,"createdAt":`...)
	buf = appendCreatedAt(buf, &f)
	buf = append(buf, `,"description":`...)
	buf = append(buf, f[fDescription]...)
	buf = append(buf, `,"id":`...)
	if id := f[fIDJSON]; id != "" {
		buf = append(buf, id...)
	} else {
		buf = append(buf, '"')
		buf = append(buf, f[fID]...)
		buf = append(buf, '"')
	}
	buf = append(buf, `,"neighborhood":`...)
	buf = append(buf, f[fNeighborhood]...)
	buf = append(buf, `,"price":`...)
	buf = append(buf, f[fPrice]...)
	buf = append(buf, `,"provider":null,"reviewed":`...)
	buf = strconv.AppendBool(buf, j.reviewed)
	buf = append(buf, `,"service":`...)
	buf = append(buf, j.service.json...)
	buf = append(buf, `,"source":`...)
	buf = append(buf, f[fSource]...)
	buf = append(buf, `,"status":"`+StatusPending+`","title":`...)
	buf = append(buf, f[fTitle]...)
	buf = append(buf, `,"updatedAt":`...)
	buf = appendUpdatedAt(buf, &f)
	return append(buf, '}')
}
