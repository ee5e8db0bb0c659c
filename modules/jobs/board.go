package jobs

import (
	"bytes"
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/readmodel"
	"camellos/internal/text"
	"camellos/modules/camellos"
	"camellos/modules/catalog"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The open board (GET /api/jobs/open, routed by the quotes area) is an
// in-memory projection of the open jobs (PENDIENTE, without provider): per
// service, newest first (created DESC, id DESC, as the SQL it replaces),
// and per service and folded city, each job packed once (its texts
// escaped for JSON, board_packed.go). A page merges the caller's
// services' lists and renders its jobs from their parts; the total is the
// sum of the lists' lengths: no SQL per request.
//
// It follows the one concurrency model of internal/readmodel: a built
// board is a snapshot that no write changes once readers can see it (a
// readmodel.Snapshot). A committed write of a job (record saves and deletes, the
// conditional assignments of Assign and AssignQuoted, a review of it)
// re-reads that one job and derives a new snapshot that copies only the
// lists of the job's service: the map of services is copied (tens of
// entries), every other service's lists are shared, and the job's new
// entry is appended to the shared packed store. Patches are
// serialised and each re-reads the database after its commit, so the
// board ends at the database's state whatever order the hooks of racing
// writes run in. A client's rename re-renders that client's open jobs; a
// catalog write rebuilds (readers keep the old snapshot meanwhile); a
// commit by another process drops it (internal/readmodel).

// board is one snapshot: the open jobs of each service, their entries in
// st (board_packed.go). Never changed once stored: a patch derives a new
// one.
type board struct {
	services map[string]*serviceJobs
	st       *store
}

// serviceJobs are the open jobs of one service (entries of the board's
// store), newest first, also by folded city, and the service's JSON as
// the jobs render it. Never changed once stored: a patch builds a new one.
type serviceJobs struct {
	all    []int32
	byCity map[string][]int32
	ref    []byte
}

// openBoard is the board of one app.
type openBoard struct {
	app    core.App
	mu     sync.Mutex // a patch or a check at a time (a check sees no patch)
	cache  readmodel.Snapshot[*board]
	one    *dbx.Query // boardSelect of one job, prepared once (under mu)
	bodies sync.Pool  // *[]byte: buffers of rendered pages (one of 20 is ~13 KB)
}

const boardKey = "camellos.jobs.board"

// boardOf returns the board of app (shared by its transactions).
func boardOf(app core.App) *openBoard {
	return app.Store().GetOrSet(boardKey, func() any { return &openBoard{app: app} }).(*openBoard)
}

// declareBoard declares the open board (internal/readmodel): built from
// the jobs, their clients' names, the reviews and the catalog; checked
// against a fresh build, list by list.
func declareBoard(app core.App) {
	b := boardOf(app)
	readmodel.Declare(app, readmodel.Projection{
		Name:   "board",
		Tables: []string{Collection, users.Collection, camellos.ReviewsCollection, "services", "categories"},
		Bound:  "every open job (~200 B each, packed: 20 MB at 100,000)",
		Drop:   b.cache.Invalidate,
		Check:  func(core.App) (int, error) { return b.compare() },
	})
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		b.mu.Lock()
		if b.one != nil {
			_ = b.one.Close()
			b.one = nil
		}
		b.mu.Unlock()
		return e.Next()
	})
}

// compare counts the places on the built board whose job differs from a
// fresh build (0 when none is built).
func (b *openBoard) compare() (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur, ok := b.cache.Peek()
	if !ok {
		return 0, nil
	}
	fresh, err := b.build()
	if err != nil {
		return 0, err
	}
	diffs := 0
	services := maps.Clone(cur.services)
	maps.Copy(services, fresh.services)
	var ja, jf []byte
	none := &serviceJobs{}
	for svc := range services {
		a, f := cmp.Or(cur.services[svc], none), cmp.Or(fresh.services[svc], none)
		diffs += max(len(a.all), len(f.all)) - min(len(a.all), len(f.all))
		for i := range min(len(a.all), len(f.all)) {
			ja = cur.st.appendJSON(ja[:0], a.all[i], a.ref)
			jf = fresh.st.appendJSON(jf[:0], f.all[i], f.ref)
			if !bytes.Equal(ja, jf) {
				diffs++
			}
		}
	}
	return diffs, nil
}

// boardRow is the columns of a job the board renders.
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
	Open         bool    `db:"open"`
}

// openJobs is idx_jobs_open's condition.
const openJobs = "j.status = 'PENDIENTE' AND j.provider = ''"

// boardColumns are the columns of a job the board renders (scanRow).
const boardColumns = "j.id, j.created, j.updated, j.title, j.description, j.source, j.city, j.cityKey, " +
	"j.neighborhood, j.service, j.client, j.priceAmount"

// boardSelect reads one job's row with what jobs.JSON adds to it, the
// client's name (users.Names: "" when unknown) and whether the job has its
// review (camellos.ReviewedJobs), in the owners' SQL expressions, and
// whether it is open.
var boardSelect = "SELECT " + boardColumns + ", " + users.NameSQL("j.client") + " AS clientName, " +
	camellos.ReviewedSQL("j.id") + " AS reviewed, " + openJobs + " AS open FROM " + Collection + " j WHERE "

// scanRow reads a row of boardColumns into r (without reflection: the
// build reads 100,000 of them).
func scanRow(rows *dbx.Rows, r *boardRow) error {
	return rows.Scan(&r.ID, &r.Created, &r.Updated, &r.Title, &r.Description, &r.Source, &r.City, &r.CityKey,
		&r.Neighborhood, &r.Service, &r.Client, &r.PriceAmount)
}

// The cold build at 100,000 open jobs (issue 27: ≤ 2 s) reads with two
// readers, each on its own connection and half of the rowids, rendering
// their rows' texts (renderer.render); the building goroutine appends
// them to the store, and the lists of the services are sorted and split
// by city on two goroutines. When the open jobs are under a quarter of
// the table, one reader walks idx_jobs_open instead of scanning it all.
// The clients' names and the reviews are read by batch of rows (each name
// once), not by a subquery per row: past the page cache, a table scan
// evicts the users' and reviews' pages, and each row read them from disk
// again (1 to 2 reads per row, 2 s of the build at 100,000).

// boardBatch is rendered rows of one reader: their texts one after the
// other in slab (each row's entry.text an offset in it).
type boardBatch struct {
	slab []byte
	rows []packedRow
}

// boardBatchRows is how many rows a reader renders before handing them on.
const boardBatchRows = 512

// twoReadersFrom is how many open jobs a build reads with two readers
// (a variable: tests build small boards both ways).
var twoReadersFrom int64 = 4 * boardBatchRows

// build reads every open job into a new packed store and lists them by
// service (newest first) and by service and city.
func (b *openBoard) build() (*board, error) {
	var last, open int64 // open: counted up to enough
	if err := b.app.DB().NewQuery("SELECT COALESCE(MAX(rowid), 0) FROM " + Collection).Row(&last); err != nil {
		return nil, err
	}
	enough := max(twoReadersFrom, last/4)
	if err := b.app.DB().NewQuery("SELECT COUNT(*) FROM (SELECT 1 FROM " + Collection + " j WHERE " + openJobs + " LIMIT {:n})").
		Bind(dbx.Params{"n": enough}).Row(&open); err != nil {
		return nil, err
	}
	parts, params := []string{"SELECT " + boardColumns + " FROM " + Collection + " j WHERE " + openJobs}, []dbx.Params{nil}
	if open >= enough {
		q := "SELECT " + boardColumns + " FROM " + Collection + " j NOT INDEXED WHERE " + openJobs + " AND j.rowid > {:from} AND j.rowid <= {:to}"
		parts = []string{q, q}
		params = []dbx.Params{{"from": 0, "to": last / 2}, {"from": last / 2, "to": last}}
	}
	batches := make(chan *boardBatch, 2*len(parts))
	errs := make(chan error, len(parts))
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { errs <- b.scanOpen(parts[k], params[k], batches) })
	}
	go func() { wg.Wait(); close(batches) }()
	st := newStore()
	jobsOf := map[string][]int32{}
	var at []int64 // each entry's createdKey: the lists' sort
	for bt := range batches {
		base := int64(len(st.slab))
		st.slab = append(st.slab, bt.slab...)
		for i := range bt.rows {
			p := &bt.rows[i]
			jobsOf[p.service] = append(jobsOf[p.service], st.push(p, base+p.e.text))
			at = append(at, p.at)
		}
	}
	var err error
	for range parts {
		if e := <-errs; err == nil {
			err = e
		}
	}
	if err != nil {
		return nil, err
	}
	st.built()
	refs, err := serviceRefs(b.app, slices.Collect(maps.Keys(jobsOf)))
	if err != nil {
		return nil, err
	}
	services := slices.Collect(maps.Keys(jobsOf))
	slices.SortFunc(services, func(x, y string) int { return len(jobsOf[y]) - len(jobsOf[x]) }) // the longest first
	lists := make([]*serviceJobs, len(services))
	for i, svc := range services {
		lists[i] = &serviceJobs{all: jobsOf[svc], ref: refs[svc]}
	}
	var next atomic.Int64
	var sorters sync.WaitGroup
	for range 2 {
		sorters.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(lists)); i = next.Add(1) - 1 {
				st.list(lists[i], at)
			}
		})
	}
	sorters.Wait()
	bd := &board{services: make(map[string]*serviceJobs, len(services)), st: st}
	for i, svc := range services {
		bd.services[svc] = lists[i]
	}
	return bd, nil
}

// list sorts sj.all (entries in any order) newest first and makes its
// lists by folded city; at (nil when unknown) is each entry's createdKey,
// compared first when every entry of the list has one.
func (st *store) list(sj *serviceJobs, at []int64) {
	list := slices.Clip(sj.all)
	for _, j := range list {
		if at != nil && at[j] < 0 {
			at = nil
		}
	}
	slices.SortFunc(list, func(x, y int32) int {
		if at != nil && at[x] != at[y] {
			return cmp.Compare(at[y], at[x])
		}
		return st.cmp(x, y)
	})
	counts := map[uint32]int{}
	for _, j := range list {
		counts[st.entries[j].key]++
	}
	byKey := make(map[uint32][]int32, len(counts))
	for k, n := range counts {
		byKey[k] = make([]int32, 0, n)
	}
	for _, j := range list {
		k := st.entries[j].key
		byKey[k] = append(byKey[k], j)
	}
	sj.all, sj.byCity = list, make(map[string][]int32, len(byKey))
	for k, l := range byKey {
		sj.byCity[st.strs[k]] = l
	}
}

// scanOpen reads the rows of query (boardColumns) and sends them rendered,
// in batches.
func (b *openBoard) scanOpen(query string, params dbx.Params, out chan<- *boardBatch) error {
	rows, err := b.app.DB().NewQuery(query).Bind(params).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	var rd renderer
	names := map[string]string{}
	batch := make([]boardRow, 0, boardBatchRows)
	for rows.Next() {
		batch = append(batch, boardRow{Open: true})
		if err := scanRow(rows, &batch[len(batch)-1]); err != nil {
			return err
		}
		if len(batch) == boardBatchRows {
			if err := b.renderBatch(&rd, names, batch, out); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil || len(batch) == 0 {
		return err
	}
	return b.renderBatch(&rd, names, batch, out)
}

// renderBatch reads the names of the batch's clients not in names yet and
// the batch's reviews, renders its rows and sends them.
func (b *openBoard) renderBatch(rd *renderer, names map[string]string, batch []boardRow, out chan<- *boardBatch) error {
	var clients, ids []any
	for i := range batch {
		if _, ok := names[batch[i].Client]; !ok {
			names[batch[i].Client] = "" // as NameSQL: "" when unknown
			clients = append(clients, batch[i].Client)
		}
		ids = append(ids, batch[i].ID)
	}
	read, err := users.Names(b.app, clients)
	if err != nil {
		return err
	}
	maps.Copy(names, read)
	reviewed, err := camellos.ReviewedJobs(b.app, ids)
	if err != nil {
		return err
	}
	bt := &boardBatch{rows: make([]packedRow, len(batch))}
	for i := range batch {
		r := &batch[i]
		r.ClientName, r.Reviewed = names[r.Client], reviewed[r.ID]
		bt.slab, bt.rows[i] = rd.render(bt.slab, r)
	}
	out <- bt
	return nil
}

// serviceRefs renders services as catalog.ServiceRefs does, in JSON; an
// unknown service renders as {id, "", ""} like jobs.JSON.
func serviceRefs(app core.App, ids []string) (map[string][]byte, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	refs, err := catalog.ServiceRefs(app, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(ids))
	for _, id := range ids {
		ref, ok := refs[id]
		if !ok {
			ref = catalog.ServiceRef{ID: id}
		}
		if out[id], err = json.Marshal(ref); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// refreshJob re-reads one job after a committed write and puts it on the
// board, moves it, or takes it off; oldServices are services it may have
// been listed under before the write (a deleted job may be under any).
// Only the lists of those services are copied; the job is found in them
// by its order key (created never changes), not by a scan. The new entry
// is appended to the shared store; the one it replaces is left dead until
// the board is compacted.
func (b *openBoard) refreshJob(jobID string, oldServices ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cache.Update(func(old *board) (*board, error) {
		var r boardRow
		err := b.readOne(jobID, &r)
		if errors.Is(err, sql.ErrNoRows) {
			oldServices = slices.Collect(maps.Keys(old.services))
		} else if err != nil {
			return nil, err
		}
		next := &board{services: maps.Clone(old.services), st: old.st.derive()}
		j := int32(-1)
		var ref []byte
		if err == nil && r.Open {
			if sj := old.services[r.Service]; sj != nil {
				ref = sj.ref // a catalog write rebuilds the board
			} else {
				refs, err := serviceRefs(b.app, []string{r.Service})
				if err != nil {
					return nil, err
				}
				ref = refs[r.Service]
			}
			j = next.st.add(&r)
		}
		for _, svc := range slices.Compact(slices.Sorted(slices.Values(append(oldServices, r.Service)))) {
			k := int32(-1) // the new entry, in its service only
			if svc == r.Service {
				k = j
			}
			next.move(svc, ref, jobID, r.Created, k)
		}
		if live := len(next.st.entries) - next.st.dead; next.st.dead > live/4+compactAfter {
			next.compact()
		}
		return next, nil
	})
}

// compactAfter is how many dead entries a board keeps past a quarter of
// its live ones before a patch compacts it (a small board is cheap to
// compact; a large one's dead quarter bounds its overhead).
const compactAfter = 256

// readOne reads one job's board row with a statement prepared once (dbx
// rewrites the SQL of every new query with two regular expressions: a
// third of a patch's CPU before). b.mu is held.
func (b *openBoard) readOne(jobID string, r *boardRow) error {
	if b.one == nil {
		q := b.app.ConcurrentDB().NewQuery(boardSelect + "j.id = {:id}").Prepare()
		if q.LastError != nil {
			return q.LastError
		}
		b.one = q
	}
	err := b.one.Bind(dbx.Params{"id": jobID}).One(r)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		_ = b.one.Close() // prepared again by the next patch
		b.one = nil
	}
	return err
}

// find is the position of job id in list (newest first), or -1; created is
// its stored created ("" when unknown: then the list is scanned).
func (st *store) find(list []int32, id, created string) int {
	if created == "" {
		return slices.IndexFunc(list, func(i int32) bool {
			_, jid := st.order(i)
			return string(jid) == id
		})
	}
	k := sort.Search(len(list), func(k int) bool { return !st.before(list[k], created, id) })
	if k < len(list) {
		if _, jid := st.order(list[k]); string(jid) == id {
			return k
		}
	}
	return -1
}

// move takes job id off service svc's lists (when it is there) and puts
// entry j on them (j ≥ 0: the job is open in svc), in one copy of each
// list it changes.
func (bd *board) move(svc string, ref []byte, id, created string, j int32) {
	st, sj := bd.st, bd.services[svc]
	if sj == nil {
		sj = &serviceJobs{ref: ref, byCity: map[string][]int32{}}
	}
	var gone, back, keys []int32
	if i := st.find(sj.all, id, created); i >= 0 {
		gone = sj.all[i : i+1]
		st.dead++
	}
	if j >= 0 {
		back = []int32{j}
	}
	if gone == nil && back == nil {
		return
	}
	out := &serviceJobs{all: readmodel.Reorder(sj.all, gone, back, st.cmp), byCity: maps.Clone(sj.byCity), ref: sj.ref}
	for _, e := range append(slices.Clone(gone), back...) {
		if k := st.entries[e].key; !slices.Contains(keys, int32(k)) {
			keys = append(keys, int32(k))
			in := slices.DeleteFunc(slices.Clone(back), func(b int32) bool { return st.entries[b].key != k })
			city := st.strs[k]
			if out.byCity[city] = readmodel.Reorder(sj.byCity[city], gone, in, st.cmp); len(out.byCity[city]) == 0 {
				delete(out.byCity, city)
			}
		}
	}
	if len(out.all) == 0 {
		delete(bd.services, svc)
	} else {
		bd.services[svc] = out
	}
}

// refreshClient re-renders the open jobs of a user (its name changed).
func (b *openBoard) refreshClient(userID string) {
	if _, built := b.cache.Peek(); !built {
		b.cache.Invalidate() // a build under way read names before it: not kept
		return
	}
	var jobs []struct {
		ID string `db:"id"`
	}
	if err := b.app.DB().NewQuery("SELECT j.id FROM " + Collection + " j WHERE j.client = {:id} AND " + openJobs).
		Bind(dbx.Params{"id": userID}).All(&jobs); err != nil {
		b.app.Logger().Error("jobs: open board patch failed, dropped", "user", userID, "error", err.Error())
		b.cache.Invalidate()
		return
	}
	for _, j := range jobs {
		b.refreshJob(j.ID)
	}
}

// bindBoard keeps the board exact: the jobs' own writes, the clients'
// names (users), the services' names (catalog), the reviews (camellos).
func bindBoard(app core.App) {
	b := boardOf(app)
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) {
		if o := w.Record.Original(); o != nil {
			b.refreshJob(w.Record.Id, Wrap(o).ServiceID())
		} else {
			b.refreshJob(w.Record.Id)
		}
	})
	ev := bus.Of(app)
	ev.UserChanged.BindFunc(func(e *bus.Change) error {
		b.refreshClient(e.Record.Id)
		return e.Next()
	})
	ev.CatalogChanged.BindFunc(func(e *bus.Change) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.cache.Update(func(*board) (*board, error) { return b.build() })
		return e.Next()
	})
	// A review names its job (and, moved by the dashboard, the one before).
	camellos.OnReviewChanged(app).BindFunc(func(e *bus.Change) error {
		job := camellos.WrapReview(e.Record).JobID()
		b.refreshJob(job)
		if o := e.Record.Original(); o != nil && camellos.WrapReview(o).JobID() != job {
			b.refreshJob(camellos.WrapReview(o).JobID())
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
	bd, err := b.cache.Get(b.build)
	if err != nil {
		return nil, nil, err
	}
	cityKey := text.Fold(city)
	st := bd.st
	lists := make([][]int32, 0, len(services))
	refs := make([][]byte, 0, len(services))
	var total int64
	for _, s := range services {
		sj := bd.services[s]
		if sj == nil {
			continue
		}
		l := sj.all
		if city != "" {
			l = sj.byCity[cityKey]
		}
		if len(l) > 0 {
			lists = append(lists, l)
			refs = append(refs, sj.ref)
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
			if len(l) > 0 && (best < 0 || st.cmp(l[0], lists[best][0]) < 0) {
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
		buf = st.appendJSON(buf, j, refs[best])
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
