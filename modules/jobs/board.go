package jobs

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/memo"
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
// and per service and folded city, each job rendered once. A page merges
// the caller's services' lists; the total is the sum of their lengths: no
// SQL per request.
//
// It follows the one concurrency model of internal/readmodel: a built
// board is a snapshot that no write changes once readers can see it (a
// memo.Cache). A committed write of a job (record saves and deletes, the
// conditional assignments of Assign and AssignQuoted, a review of it)
// re-reads that one job and derives a new snapshot that copies only the
// lists of the job's service: the map of services is copied (tens of
// entries), every other service's lists are shared. Patches are
// serialised and each re-reads the database after its commit, so the
// board ends at the database's state whatever order the hooks of racing
// writes run in. A client's rename re-renders that client's open jobs; a
// catalog write rebuilds (readers keep the old snapshot meanwhile); a
// commit by another process drops it (internal/readmodel).

// board is one snapshot: the open jobs of each service.
type board map[string]*serviceJobs

// serviceJobs are the open jobs of one service, newest first, also by
// folded city, and the service as they render it. Never changed once
// stored: a patch builds a new one.
type serviceJobs struct {
	all    []*openJob
	byCity map[string][]*openJob
	ref    catalog.ServiceRef
}

// openJob is one open job: its order and filter keys and its JSON.
type openJob struct {
	id, created, cityKey string
	json                 []byte
}

// newer reports whether a comes before b on the board.
func newer(a, b *openJob) bool {
	if a.created != b.created {
		return a.created > b.created
	}
	return a.id > b.id
}

// openBoard is the board of one app.
type openBoard struct {
	app    core.App
	mu     sync.Mutex // a patch or a check at a time (a check sees no patch)
	cache  memo.Cache[board]
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
		Bound:  "every open job (~700 B each: 70 MB at 100,000)",
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
	services := maps.Clone(cur)
	maps.Copy(services, fresh)
	for svc := range services {
		a, f := cur.list(svc), fresh.list(svc)
		diffs += max(len(a), len(f)) - min(len(a), len(f))
		for i := range min(len(a), len(f)) {
			if a[i].id != f[i].id || !bytes.Equal(a[i].json, f[i].json) {
				diffs++
			}
		}
	}
	return diffs, nil
}

func (bd board) list(svc string) []*openJob {
	if sj := bd[svc]; sj != nil {
		return sj.all
	}
	return nil
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

// boardSelect reads jobs with what jobs.JSON adds to them: the client's
// name (users.Names: "" when unknown) and whether the job has its review
// (camellos.ReviewedJobs), looked up per row by primary key and
// idx_reviews_job, and whether it is open (openJobs: idx_jobs_open's
// condition). The name and the review are the owners' SQL expressions.
const openJobs = "j.status = 'PENDIENTE' AND j.provider = ''"

var boardSelect = "SELECT j.id, j.created, j.updated, j.title, j.description, j.source, j.city, j.cityKey, " +
	"j.neighborhood, j.service, j.client, j.priceAmount, " + users.NameSQL("j.client") + " AS clientName, " +
	camellos.ReviewedSQL("j.id") + " AS reviewed, " + openJobs + " AS open FROM " + Collection + " j WHERE "

// build reads every open job and their services.
func (b *openBoard) build() (board, error) {
	var rows []boardRow
	if err := b.app.DB().NewQuery(boardSelect + openJobs).All(&rows); err != nil {
		return nil, err
	}
	ids := make([]string, 0, 64)
	for _, r := range rows {
		ids = append(ids, r.Service)
	}
	refs, err := serviceRefs(b.app, ids)
	if err != nil {
		return nil, err
	}
	jobsOf := map[string][]*openJob{}
	for i := range rows {
		j, err := renderOpenJob(&rows[i], refs)
		if err != nil {
			return nil, err
		}
		jobsOf[rows[i].Service] = append(jobsOf[rows[i].Service], j)
	}
	bd := board{}
	for svc, list := range jobsOf {
		sort.Slice(list, func(a, b int) bool { return newer(list[a], list[b]) })
		sj := &serviceJobs{all: list, byCity: map[string][]*openJob{}, ref: refs[svc]}
		for _, j := range list {
			sj.byCity[j.cityKey] = append(sj.byCity[j.cityKey], j)
		}
		bd[svc] = sj
	}
	return bd, nil
}

// serviceRefs renders services as catalog.ServiceRefs does; an unknown
// service renders as {id, "", ""} like jobs.JSON.
func serviceRefs(app core.App, ids []string) (map[string]catalog.ServiceRef, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	refs, err := catalog.ServiceRefs(app, ids)
	for _, id := range ids {
		if _, ok := refs[id]; !ok && err == nil {
			refs[id] = catalog.ServiceRef{ID: id}
		}
	}
	return refs, err
}

// boardJSON is jobs.JSON's map without "address", its keys in the order
// encoding/json writes a map's.
type boardJSON struct {
	City         string             `json:"city"`
	Client       boardClient        `json:"client"`
	ClientID     string             `json:"clientId"`
	CreatedAt    string             `json:"createdAt"`
	Description  string             `json:"description"`
	ID           string             `json:"id"`
	Neighborhood string             `json:"neighborhood"`
	Price        *boardPrice        `json:"price"`
	Provider     any                `json:"provider"`
	Reviewed     bool               `json:"reviewed"`
	Service      catalog.ServiceRef `json:"service"`
	Source       string             `json:"source"`
	Status       string             `json:"status"`
	Title        string             `json:"title"`
	UpdatedAt    string             `json:"updatedAt"`
}

type boardClient struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type boardPrice struct {
	Amount   int    `json:"amount"`
	Currency string `json:"currency"`
}

// renderOpenJob renders one row (its service in refs).
func renderOpenJob(r *boardRow, refs map[string]catalog.ServiceRef) (*openJob, error) {
	v := boardJSON{City: r.City, Client: boardClient{r.Client, r.ClientName}, ClientID: r.Client,
		CreatedAt: timefmt.ISOOfStored(r.Created), Description: r.Description, ID: r.ID, Neighborhood: r.Neighborhood,
		Reviewed: r.Reviewed, Service: refs[r.Service], Source: r.Source, Status: StatusPending, Title: r.Title,
		UpdatedAt: timefmt.ISOOfStored(r.Updated)}
	if n := int(r.PriceAmount); n > 0 {
		v.Price = &boardPrice{n, Currency}
	}
	raw, err := json.Marshal(v)
	return &openJob{id: r.ID, created: r.Created, cityKey: r.CityKey, json: raw}, err
}

// refreshJob re-reads one job after a committed write and puts it on the
// board, moves it, or takes it off; oldServices are services it may have
// been listed under before the write (a deleted job may be under any).
// Only the lists of those services are copied; the job is found in them
// by its order key (created never changes), not by a scan.
func (b *openBoard) refreshJob(jobID string, oldServices ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cache.Update(func(old board) (board, error) {
		var r boardRow
		err := b.readOne(jobID, &r)
		if errors.Is(err, sql.ErrNoRows) {
			oldServices = slices.Collect(maps.Keys(old))
		} else if err != nil {
			return nil, err
		}
		var j *openJob
		var ref catalog.ServiceRef
		if err == nil && r.Open {
			refs := map[string]catalog.ServiceRef{}
			if sj := old[r.Service]; sj != nil {
				refs[r.Service] = sj.ref // a catalog write rebuilds the board
			} else if refs, err = serviceRefs(b.app, []string{r.Service}); err != nil {
				return nil, err
			}
			ref = refs[r.Service]
			if j, err = renderOpenJob(&r, refs); err != nil {
				return nil, err
			}
		}
		next := maps.Clone(old)
		replaced := false
		for _, svc := range slices.Compact(slices.Sorted(slices.Values(append(oldServices, r.Service)))) {
			if j != nil && svc == r.Service && next.replace(svc, j) {
				replaced = true
				continue
			}
			next.remove(svc, jobID, r.Created)
		}
		if j != nil && !replaced {
			next.insert(r.Service, ref, j)
		}
		return next, nil
	})
}

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
func find(list []*openJob, id, created string) int {
	if created == "" {
		return slices.IndexFunc(list, func(j *openJob) bool { return j.id == id })
	}
	key := &openJob{id: id, created: created}
	i := sort.Search(len(list), func(i int) bool { return !newer(list[i], key) })
	if i < len(list) && list[i].id == id {
		return i
	}
	return -1
}

// replace puts j in the place of the job it renders anew, in copies of
// service svc's lists: one copy of each instead of a removal's and an
// insertion's; false when the job is not there in the same city.
func (bd board) replace(svc string, j *openJob) bool {
	sj := bd[svc]
	if sj == nil {
		return false
	}
	i, city := find(sj.all, j.id, j.created), sj.byCity[j.cityKey]
	if i < 0 || sj.all[i].cityKey != j.cityKey {
		return false
	}
	k := find(city, j.id, j.created)
	out := &serviceJobs{all: slices.Clone(sj.all), byCity: maps.Clone(sj.byCity), ref: sj.ref}
	out.all[i] = j
	out.byCity[j.cityKey] = slices.Clone(city)
	out.byCity[j.cityKey][k] = j
	bd[svc] = out
	return true
}

// remove replaces service svc's lists by copies without job id (when it is
// listed there).
func (bd board) remove(svc, id, created string) {
	sj := bd[svc]
	if sj == nil {
		return
	}
	i := find(sj.all, id, created)
	if i < 0 {
		return
	}
	j := sj.all[i]
	if len(sj.all) == 1 {
		delete(bd, svc)
		return
	}
	out := &serviceJobs{all: slices.Delete(slices.Clone(sj.all), i, i+1), byCity: maps.Clone(sj.byCity), ref: sj.ref}
	city := sj.byCity[j.cityKey]
	if k := find(city, id, j.created); k >= 0 && len(city) > 1 {
		out.byCity[j.cityKey] = slices.Delete(slices.Clone(city), k, k+1)
	} else if k >= 0 {
		delete(out.byCity, j.cityKey)
	}
	bd[svc] = out
}

// insert replaces service svc's lists by copies with j in its place.
func (bd board) insert(svc string, ref catalog.ServiceRef, j *openJob) {
	sj := bd[svc]
	if sj == nil {
		sj = &serviceJobs{byCity: map[string][]*openJob{}}
	}
	add := func(list []*openJob) []*openJob {
		i := sort.Search(len(list), func(i int) bool { return !newer(list[i], j) })
		return slices.Insert(slices.Clone(list), i, j)
	}
	out := &serviceJobs{all: add(sj.all), byCity: maps.Clone(sj.byCity), ref: ref}
	out.byCity[j.cityKey] = add(sj.byCity[j.cityKey])
	bd[svc] = out
}

// refreshClient re-renders the open jobs of a user (its name changed).
func (b *openBoard) refreshClient(userID string) {
	if _, built := b.cache.Peek(); !built {
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
		b.cache.Update(func(board) (board, error) { return b.build() })
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
	lists := make([][]*openJob, 0, len(services))
	var total int64
	for _, s := range services {
		sj := bd[s]
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
		buf = append(buf, j.json...)
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
