// Package readmodel is the one way the service keeps a projection: an
// in-memory view derived from the database (the listing index, the open
// board, the categories, the sessions, the per-job lists...).
//
// A projection declares, once, in its owner's Register (Declare):
//
//   - what it is built from: the tables it reads (Tables). A commit by
//     another process drops it only when one of them changed, told by the
//     per-table change counters that SQLite triggers keep (counters.go,
//     internal/dbwatch); a schema change (_collections) drops every one;
//   - how it is built and how one change is applied: its value lives in a
//     memo.Cache (one snapshot) or a memo.Keyed (bounded values by key),
//     both copy-on-write: a value is never changed once readers can see
//     it; a build that raced a change is handed to its reader and not
//     kept; the owner's writes apply their change after commit
//     (AfterCommit, or the owners' after-commit events);
//   - its memory bound (Bound) and maximum age (MaxAge);
//   - for a projection without a maximum age, its consistency check
//     (Check: compare with a fresh build), run in the background
//     (check.go), so a missed change lasts one interval at most.
//
// Drop forgets everything the projection holds; the next reader builds it
// again from the database.
package readmodel

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"camellos/internal/dbwatch"

	"github.com/pocketbase/pocketbase/core"
)

// SchemaTable is the table whose change (a collection created, altered or
// deleted) drops every projection.
const SchemaTable = "_collections"

// Projection is one projection's declaration.
type Projection struct {
	// Name names it in logs, metrics and tests ("listing", "board"...).
	Name string
	// Tables are the tables it is built from.
	Tables []string
	// Bound is its memory bound, in words (documentation and Stats).
	Bound string
	// MaxAge is how old a value may be served (0: no limit; then Check is
	// required).
	MaxAge time.Duration
	// Drop forgets every value; the next reader builds again.
	Drop func()
	// Check compares what is built with a fresh build from the database
	// and returns how many differences it found (0 when nothing is built).
	Check func(app core.App) (differences int, err error)
}

// Stat is one projection as the registry sees it (tests, metrics).
type Stat struct {
	Name         string
	Tables       []string
	Bound        string
	MaxAge       time.Duration
	ForeignDrops int64 // drops for commits of other processes
	Differences  int64 // differences found by the consistency check
}

type entry struct {
	p            Projection
	foreignDrops atomic.Int64
	diffs        atomic.Int64
}

type registry struct {
	mu      sync.Mutex
	entries []*entry
	tables  map[string]bool
	rounds  atomic.Int64
	unknown atomic.Int64 // foreign commits whose tables were unknown
	writes  dispatcher   // its apply map is guarded by mu
}

const storeKey = "camellos.readmodel"

func registryOf(app core.App) *registry {
	return app.Store().GetOrSet(storeKey, func() any {
		return &registry{tables: map[string]bool{}}
	}).(*registry)
}

// Bind makes the registry of app listen to internal/dbwatch and puts the
// change-counter triggers of every declared table in place before the app
// serves (a migration that rebuilt a table drops its triggers). Call it
// once, before the modules declare their projections.
func Bind(app core.App) {
	r := registryOf(app)
	dbwatch.OnExternalCommit(app, func(tables []string) { r.foreign(tables) })
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if err := Install(se.App, r.declaredTables()); err != nil {
			se.App.Logger().Error("readmodel: change counters not installed (foreign commits drop every projection)", "error", err.Error())
		}
		if w := dbwatch.Of(se.App); w != nil {
			_ = w.Check() // the baseline, before any projection is built
		}
		return se.Next()
	})
	// A collection saved through the dashboard may rebuild its table.
	app.OnCollectionAfterUpdateSuccess().BindFunc(func(e *core.CollectionEvent) error {
		if err := Install(e.App, r.declaredTables()); err != nil {
			e.App.Logger().Error("readmodel: change counters not installed", "error", err.Error())
		}
		r.foreign(nil) // its records may read differently now
		return e.Next()
	})
}

// Declare registers a projection of app.
func Declare(app core.App, p Projection) {
	if p.Name == "" || p.Drop == nil || len(p.Tables) == 0 {
		panic("readmodel: a projection needs a name, its tables and Drop")
	}
	if p.MaxAge <= 0 && p.Check == nil {
		panic("readmodel: projection " + p.Name + " has no maximum age and no check")
	}
	r := registryOf(app)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.entries {
		if e.p.Name == p.Name {
			panic("readmodel: projection " + p.Name + " declared twice")
		}
	}
	p.Tables = slices.Clone(p.Tables)
	sort.Strings(p.Tables)
	for _, t := range p.Tables {
		r.tables[t] = true
	}
	r.entries = append(r.entries, &entry{p: p})
}

func (r *registry) declaredTables() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.tables))
	for t := range r.tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (r *registry) list() []*entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.entries)
}

// foreign drops the projections built from tables (nil: every one), for a
// commit made by another process. It runs before the request that noticed
// the commit goes on, under the watcher's lock: only in-memory work.
func (r *registry) foreign(tables []string) {
	all := tables == nil || slices.Contains(tables, SchemaTable)
	if tables == nil {
		r.unknown.Add(1)
	}
	for _, e := range r.list() {
		if all || touches(e.p.Tables, tables) {
			e.p.Drop()
			e.foreignDrops.Add(1)
		}
	}
}

// touches reports whether the sorted lists a and b share a table.
func touches(a, b []string) bool {
	for _, t := range b {
		if _, ok := slices.BinarySearch(a, t); ok {
			return true
		}
	}
	return false
}

// DropAll forgets every projection of app (tests: a cold service).
func DropAll(app core.App) {
	for _, e := range registryOf(app).list() {
		e.p.Drop()
	}
}

// Stats lists the declared projections of app, by name.
func Stats(app core.App) []Stat {
	r := registryOf(app)
	out := []Stat{}
	for _, e := range r.list() {
		out = append(out, Stat{Name: e.p.Name, Tables: e.p.Tables, Bound: e.p.Bound, MaxAge: e.p.MaxAge,
			ForeignDrops: e.foreignDrops.Load(), Differences: e.diffs.Load()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ForeignDrops is how many times each projection was dropped for another
// process's commit (tests).
func ForeignDrops(app core.App) map[string]int64 {
	out := map[string]int64{}
	for _, s := range Stats(app) {
		out[s.Name] = s.ForeignDrops
	}
	return out
}

// UnknownCommits is how many foreign commits dropped every projection
// because the tables they changed were unknown (metrics, tests).
func UnknownCommits(app core.App) int64 { return registryOf(app).unknown.Load() }

// AfterCommit runs apply once app's transaction has ended (committed or
// rolled back), or at once when app is not a transaction: how an owner's
// write applies its change to a projection, so that no reader can rebuild
// from the state before the commit and keep it.
func AfterCommit(app core.App, apply func()) {
	if tx := app.TxInfo(); tx != nil {
		tx.OnComplete(func(error) error {
			apply()
			return nil
		})
		return
	}
	apply()
}

// Op is the kind of a committed record write.
type Op int

const (
	Created Op = iota
	Updated
	Deleted
)

// Write is one committed record write, as the dispatcher hands it to the
// projections of its table (Record.Original() is the record before an
// update).
type Write struct {
	App    core.App
	Op     Op
	Record *core.Record
}

// dispatcher binds PocketBase's after-success record hooks once per table
// (they run after the commit of the write, our routes', the dashboard's
// and the generic API's alike) and applies each write to the projections
// of that table, in the order they asked (OnWrite).
type dispatcher struct {
	apply map[string][]func(Write)
}

// OnWrite makes apply run after every committed record write of table
// (raw SQL writes of the owners apply their change themselves, with
// AfterCommit; another process's commits drop by table).
func OnWrite(app core.App, table string, apply func(Write)) {
	r := registryOf(app)
	r.mu.Lock()
	if r.writes.apply == nil {
		r.writes.apply = map[string][]func(Write){}
	}
	first := r.writes.apply[table] == nil
	r.writes.apply[table] = append(r.writes.apply[table], apply)
	r.mu.Unlock()
	if !first {
		return
	}
	hook := func(op Op) func(e *core.RecordEvent) error {
		return func(e *core.RecordEvent) error {
			r.mu.Lock()
			fns := r.writes.apply[table]
			r.mu.Unlock()
			w := Write{App: e.App, Op: op, Record: e.Record}
			for _, fn := range fns {
				fn(w)
			}
			return e.Next()
		}
	}
	app.OnRecordAfterCreateSuccess(table).BindFunc(hook(Created))
	app.OnRecordAfterUpdateSuccess(table).BindFunc(hook(Updated))
	app.OnRecordAfterDeleteSuccess(table).BindFunc(hook(Deleted))
}
