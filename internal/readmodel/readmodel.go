// Package readmodel is the one way the service keeps a projection: an
// in-memory view derived from the database (the listing index, the open
// board, the categories, the sessions, the per-job lists...).
//
// A projection declares, once, in its owner's Register (Declare; a keyed
// one with Keyed, which also keeps its values):
//
//   - what it is built from: the tables it reads (Tables). A commit by
//     another process drops it only when one of them changed, told by the
//     per-table change counters that SQLite triggers keep (counters.go,
//     internal/dbwatch); a schema change (_collections) drops every one;
//   - how it is built and how one change is applied: its value lives in a
//     Snapshot (one value) or in Values (bounded values by key),
//     both copy-on-write: a value is never changed once readers can see
//     it; a build that raced a change is handed to its reader and not
//     kept; the owner's writes apply their change after commit
//     (AfterCommit, Keyed.Drop, or the owners' after-commit events);
//   - its memory bound (Bound) and maximum age (MaxAge);
//   - for a projection without a maximum age, its consistency check
//     (Check: compare with a fresh build), run in the background
//     (check.go), so a missed change lasts one interval at most.
//
// Drop forgets everything the projection holds; the next reader builds it
// again from the database.
package readmodel

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"reflect"
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
	unknown atomic.Int64 // foreign commits whose tables were unknown
	apply   map[string][]func(Write)
}

func registryOf(app core.App) *registry {
	return app.Store().GetOrSet("camellos.readmodel", func() any {
		return &registry{tables: map[string]bool{}, apply: map[string][]func(Write){}}
	}).(*registry)
}

// Bind makes the registry of app listen to internal/dbwatch and puts the
// change-counter triggers of every declared table in place before the app
// serves (a migration that rebuilt a table drops its triggers). Call it
// once, before the modules declare their projections.
func Bind(app core.App) {
	r := registryOf(app)
	dbwatch.OnExternalCommit(app, r.foreign)
	install := func(app core.App) {
		if err := Install(app, r.declaredTables()); err != nil {
			app.Logger().Error("readmodel: change counters not installed (foreign commits drop every projection)", "error", err.Error())
		}
	}
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		install(se.App)
		if w := dbwatch.Of(se.App); w != nil {
			_ = w.Check() // the baseline, before any projection is built
		}
		return se.Next()
	})
	// A collection saved through the dashboard may rebuild its table.
	app.OnCollectionAfterUpdateSuccess().BindFunc(func(e *core.CollectionEvent) error {
		install(e.App)
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
	p.Tables = slices.Sorted(slices.Values(p.Tables))
	for _, t := range p.Tables {
		r.tables[t] = true
	}
	r.entries = append(r.entries, &entry{p: p})
}

func (r *registry) declaredTables() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		for t := range r.tables {
			if !yield(t) {
				return
			}
		}
	})
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
		if all || slices.ContainsFunc(tables, func(t string) bool { _, ok := slices.BinarySearch(e.p.Tables, t); return ok }) {
			e.p.Drop()
			e.foreignDrops.Add(1)
		}
	}
}

// DropAll forgets every projection of app (tests: a cold service).
func DropAll(app core.App) {
	for _, e := range registryOf(app).list() {
		e.p.Drop()
	}
}

// Stats lists the declared projections of app, by name.
func Stats(app core.App) []Stat {
	out := []Stat{}
	for _, e := range registryOf(app).list() {
		out = append(out, Stat{Name: e.p.Name, Tables: e.p.Tables, Bound: e.p.Bound, MaxAge: e.p.MaxAge,
			ForeignDrops: e.foreignDrops.Load(), Differences: e.diffs.Load()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

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

// OnWrite makes apply run after every committed record write of table:
// PocketBase's after-success record hooks, bound once per table, run after
// the commit of our routes', the dashboard's and the generic API's writes
// alike and hand each to the projections of that table in the order they
// asked. Raw SQL writes of the owners apply their change themselves
// (AfterCommit); another process's commits drop by table.
func OnWrite(app core.App, table string, apply func(Write)) {
	r := registryOf(app)
	r.mu.Lock()
	first := r.apply[table] == nil
	r.apply[table] = append(r.apply[table], apply)
	r.mu.Unlock()
	if !first {
		return
	}
	hook := func(op Op) func(e *core.RecordEvent) error {
		return func(e *core.RecordEvent) error {
			r.mu.Lock()
			fns := r.apply[table]
			r.mu.Unlock()
			for _, fn := range fns {
				fn(Write{App: e.App, Op: op, Record: e.Record})
			}
			return e.Next()
		}
	}
	app.OnRecordAfterCreateSuccess(table).BindFunc(hook(Created))
	app.OnRecordAfterUpdateSuccess(table).BindFunc(hook(Updated))
	app.OnRecordAfterDeleteSuccess(table).BindFunc(hook(Deleted))
}

// Keyed is a keyed projection as its owner declares it, once, as a
// package-level value: values built by key (a job's quotes, a camello's
// agenda) with Load, kept per app in Values bounded by MaxCost
// (weighed by Cost; nil: 1 each), dropped by key once the owner's writes
// commit (Drop, Patch), all of them for another process's commit on one of
// Tables. Without MaxAge the background check compares up to MaxSample
// kept values with fresh loads (Equal; nil: reflect.DeepEqual). A single
// value is a Keyed on struct{}.
type Keyed[K comparable, V any] struct {
	Name, Bound string
	Tables      []string
	MaxCost     int64
	Cost        func(V) int64
	MaxAge      time.Duration
	// Load builds key's value from the database; ok false: nothing to
	// keep (the row does not exist).
	Load  func(app core.App, key K) (v V, ok bool, err error)
	Equal func(a, b V) bool
}

// Declare registers p in app (the owner's Register); without MaxAge, its
// check compares up to MaxSample kept values with fresh loads (ok false:
// the key has no value any more).
func (p *Keyed[K, V]) Declare(app core.App) {
	c, eq := p.Of(app), p.Equal
	if eq == nil {
		eq = func(a, b V) bool { return reflect.DeepEqual(a, b) }
	}
	var check func(core.App) (int, error)
	if p.MaxAge <= 0 {
		check = func(app core.App) (diffs int, _ error) {
			for k, v := range c.Sample(MaxSample) {
				fresh, ok, err := p.Load(app, k)
				if err != nil {
					return 0, err
				}
				if !ok || !eq(v, fresh) {
					diffs++
				}
			}
			return diffs, nil
		}
	}
	Declare(app, Projection{Name: p.Name, Tables: p.Tables, Bound: p.Bound, MaxAge: p.MaxAge, Drop: c.DropAll, Check: check})
}

// Of is p's values in app.
func (p *Keyed[K, V]) Of(app core.App) *Values[K, V] {
	return app.Store().GetOrSet(p.Name, func() any {
		return &Values[K, V]{MaxCost: p.MaxCost, Cost: p.Cost, MaxAge: p.MaxAge}
	}).(*Values[K, V])
}

// Get returns key's value: from memory, but inside a transaction from the
// database (a value built from uncommitted writes must not outlive them).
func (p *Keyed[K, V]) Get(app core.App, key K) (V, bool, error) {
	if app.IsTransactional() {
		return p.Load(app, key)
	}
	return p.Of(app).Get(key, func() (V, bool, error) { return p.Load(app, key) })
}

// Drop forgets the values of keys once app's write has committed. Not from
// a transaction's completion callback on its app (PocketBase's OnComplete
// is not reentrant): there, Of(app).Drop.
func (p *Keyed[K, V]) Drop(app core.App, keys ...K) {
	c := p.Of(app)
	AfterCommit(app, func() {
		for _, k := range keys {
			c.Drop(k)
		}
	})
}

// DropWhere forgets the values match picks once app's write has committed.
func (p *Keyed[K, V]) DropWhere(app core.App, match func(K, V) bool) {
	c := p.Of(app)
	AfterCommit(app, func() { c.DropWhere(match) })
}

// Hole stands, in a value rendered by Render, for a part the answer reads
// live (a quote's camello, a message's author): no user can type it.
var Hole = "\x00" + rand.Text()

// Render renders v as encoding/json does (as e.JSON, without the final
// newline) and cuts it around the Holes v holds, in the order the JSON
// has them: a projection renders its records once and the live parts at
// each answer.
func Render(v any) ([][]byte, error) {
	raw, err := json.Marshal(v)
	hole, _ := json.Marshal(Hole)
	return bytes.Split(raw, hole), err
}
