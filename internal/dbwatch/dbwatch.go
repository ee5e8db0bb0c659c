// Package dbwatch lets the in-memory caches notice commits made to data.db
// by another process (the CLI, a second instance, raw SQL in sqlite3, a
// Litestream restore...) before they answer.
//
// SQLite's `PRAGMA data_version` changes, on one connection, whenever
// another connection commits. A Watcher keeps one probe connection of its
// own and reads it on every request (Check, a few µs). The catch is that our
// own process commits too, through its own pool: those commits change the
// probe's data_version as well, and they must not throw every cache away
// (the record hooks already drop exactly what a write changes). So the
// Watcher also wraps the app's connections (Connect) and accounts for each
// of our own commits as it happens:
//
//   - before an own commit, the commit is counted in flight;
//   - after it, the probe is read into the baseline, and then the committing
//     connection reads its own data_version: it changes only for commits by
//     other connections since its previous read, so a foreign commit before
//     or racing ours is seen there (fire); a new connection's first reading
//     is followed by a Check, so nothing before it goes unnoticed;
//   - Check compares the probe with the baseline; while own commits are in
//     flight a difference is not yet explained, so Check waits for them
//     (microseconds) and compares again; with none in flight a difference is
//     a foreign commit: fire.
//
// Fire runs every handler bound to OnExternalCommit before the request that
// noticed it goes on, so no cache answers from before a commit it did not
// see. A write run as a query (UPDATE … RETURNING) is accounted from before
// the query until its rows are closed (SQLite commits it when the statement
// is done). A commit the wrappers cannot attribute (two own connections
// committing at once) counts as foreign: the rule errs towards dropping
// caches, never towards staleness.
package dbwatch

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"camellos/internal/stmtcache"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Event is fired when a commit by another process (or connection) is seen.
type Event struct {
	hook.Event
	App core.App
	// Tables are the tables whose change counters moved (counters.go),
	// sorted; nil when that is unknown: then any table may have changed.
	Tables []string
}

// Watcher watches one data.db; keep one per app (Attach).
type Watcher struct {
	// OnExternalCommit fires (synchronously, under the watcher's lock: its
	// handlers must only drop in-memory state) when a commit made outside
	// this process's accounted writes is noticed.
	OnExternalCommit *hook.Hook[*Event]

	mu        sync.Mutex
	idle      *sync.Cond
	app       core.App
	drv       driver.Driver
	dsn       string // of data.db, with its pragmas
	probe     driver.Conn
	base      int64
	baseOK    bool
	inFlight  int
	waiting   int   // goroutines waiting on idle
	probing   bool  // the probe is claimed (a reading runs)
	unsettled bool  // the last Check reading changed while own commits were in flight
	started   int64 // Check readings of the probe started so far
	finished  int64 // the last Check reading that settled
	lastErr   error // its error
	closed    bool
	external  atomic.Int64 // external commits noticed (metrics, tests)
	ownCommit atomic.Int64 // own commits accounted
	probes    atomic.Int64 // checks that ran the probe's SQL (tests)
	seen      counters     // S of counters.go (nil: unknown)

	// The fast path (shm_unix.go): data.db-shm mapped, and its wal-index
	// header as it was before the last probe that left nothing unaccounted
	// (nil: take the slow path).
	shm  atomic.Pointer[shmView]
	snap atomic.Pointer[shmHeader]
}

// New returns a Watcher with no database yet.
func New() *Watcher {
	w := &Watcher{OnExternalCommit: &hook.Hook[*Event]{}}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// sqliteDriver is the registered "sqlite" driver (modernc, via PocketBase).
func sqliteDriver() (driver.Driver, error) {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Driver(), nil
}

// Open opens dsn (a data.db path with its query string of pragmas) with
// every connection accounted by w. Use it for data.db only.
func (w *Watcher) Open(dsn string) (*dbx.DB, error) {
	drv, err := sqliteDriver()
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	w.claimProbeLocked()
	if w.dsn != dsn && w.probe != nil {
		_ = w.probe.Close()
		w.probe, w.baseOK, w.seen = nil, false, nil
		w.dropShmLocked()
	}
	w.drv, w.dsn, w.closed = drv, dsn, false
	w.releaseProbeLocked()
	w.mu.Unlock()
	return dbx.NewFromDB(sql.OpenDB(&connector{w: w, drv: drv, dsn: dsn}), "sqlite"), nil
}

// Close releases the probe connection (the app's pools are PocketBase's).
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.claimProbeLocked()
	defer w.releaseProbeLocked()
	w.closed = true
	w.dropShmLocked()
	if w.probe == nil {
		return nil
	}
	err := w.probe.Close()
	w.probe, w.baseOK = nil, false
	return err
}

// dropShmLocked forgets the fast path (the probe is going away).
func (w *Watcher) dropShmLocked() {
	w.snap.Store(nil)
	w.shm.Swap(nil).close()
}

// Probes is how many checks ran the probe's SQL (the others took the fast
// path: nothing had been committed since the last probe).
func (w *Watcher) Probes() int64 { return w.probes.Load() }

// External is how many foreign commits were noticed so far.
func (w *Watcher) External() int64 { return w.external.Load() }

// Own is how many own commits were accounted so far.
func (w *Watcher) Own() int64 { return w.ownCommit.Load() }

// Check notices the commits made by others since the last call and fires
// OnExternalCommit for them before it returns. Cheap when nothing changed:
// no SQL at all while data.db-shm shows no commit since the last probe
// (shm_unix.go), else one `PRAGMA data_version` on the probe connection,
// shared by the Checks that wait for it: any reading of the probe that
// starts after a Check began answers for it, so when many requests arrive
// at once one reading serves them all instead of each taking its turn on
// the probe (under the mixed benchmark load the turns cost ~1 ms per
// request, and the commits waited behind them).
func (w *Watcher) Check() error {
	if w.quiet() {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	want := w.started + 1
	for {
		if w.finished >= want {
			return w.lastErr
		}
		if w.probing || (w.unsettled && w.inFlight > 0) {
			// A reading runs, or the last one could not tell an own commit
			// in flight from a foreign one: another reading would not
			// either until that commit ends.
			w.waitLocked()
			continue
		}
		w.probing = true
		w.started++
		my := w.started
		base, baseOK := w.base, w.baseOK // only probe holders change them
		w.mu.Unlock()
		h := w.headerLocked() // before the probe: a commit after it changes it
		w.probes.Add(1)
		v, before, fresh, err := w.probeVersion()
		var after counters
		if err == nil && !fresh && baseOK && v != base {
			after = readCounters(w.probe) // covers every commit up to v
		}
		w.mu.Lock()
		w.probing = false
		settled := true
		switch {
		case err != nil:
			w.baseOK, w.seen = false, nil
			w.fireLocked(nil) // unknown: assume the worst
		case fresh || !w.baseOK:
			w.base, w.baseOK, w.seen = v, true, before
		case v == w.base:
			if w.inFlight == 0 {
				w.snap.Store(h)
			}
		case w.inFlight == 0:
			w.base = v
			w.fireLocked(changed(w.seen, after))
			w.seen = before
			w.snap.Store(h)
		default:
			// An own commit is in flight and may explain the change: its
			// end accounts for it (and fires for a foreign one that raced
			// it); then a new reading decides.
			settled = false
		}
		if settled {
			w.finished, w.lastErr = my, err
		}
		w.unsettled = !settled
		w.wakeLocked()
		if !settled {
			want = my + 1
		}
	}
}

func (w *Watcher) waitLocked() {
	w.waiting++
	w.idle.Wait()
	w.waiting--
}

func (w *Watcher) wakeLocked() {
	if w.waiting > 0 {
		w.idle.Broadcast()
	}
}

// claimProbeLocked waits until no reading of the probe runs and claims it:
// the probe and the fields Open sets are then only used by the claimant,
// which may release w.mu meanwhile.
func (w *Watcher) claimProbeLocked() {
	for w.probing {
		w.waitLocked()
	}
	w.probing = true
}

func (w *Watcher) releaseProbeLocked() {
	w.probing = false
	w.wakeLocked()
}

// probeVersion reads data_version on the probe connection, opening it when
// needed (fresh: a new probe, whose reading is a new baseline), and the
// change counters just before it. The caller has claimed the probe.
func (w *Watcher) probeVersion() (v int64, before counters, fresh bool, err error) {
	if w.closed || w.drv == nil {
		return 0, nil, false, errors.New("dbwatch: closed")
	}
	if w.probe == nil {
		c, err := w.drv.Open(w.dsn)
		if err != nil {
			return 0, nil, false, err
		}
		w.probe, fresh = &conn{Conn: c, w: w, stmts: stmtcache.New()}, true
	}
	before = readCounters(w.probe)
	v, err = dataVersion(w.probe)
	if err != nil {
		_ = w.probe.Close()
		w.probe = nil
		w.dropShmLocked()
	}
	return v, before, fresh, err
}

// fireLocked runs the OnExternalCommit handlers for a foreign commit that
// changed tables (nil: unknown, any).
func (w *Watcher) fireLocked(tables []string) {
	w.external.Add(1)
	if w.app == nil {
		return
	}
	_ = w.OnExternalCommit.Trigger(&Event{App: w.app, Tables: tables})
}

// beginCommit is called before an own connection commits. It only counts
// the commit in flight: a foreign commit before it is caught when it ends
// (the committing connection's own data_version) or by a Check before it.
func (w *Watcher) beginCommit() {
	w.mu.Lock()
	w.inFlight++
	w.mu.Unlock()
}

// endCommit is called after an own connection c committed (or tried to).
func (w *Watcher) endCommit(c *conn) {
	w.mu.Lock()
	w.claimProbeLocked()
	w.mu.Unlock()
	// 1. The probe's version now includes our commit (and any foreign one
	//    before this instant): it becomes the baseline.
	h := w.headerLocked()
	pv, before, _, perr := w.probeVersion()
	// 2. Our connection's own version changes only for commits by others
	//    since its last read: one before or racing ours is caught here
	//    (read after the probe, so nothing falls between the two).
	v, err := dataVersion(c)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ownCommit.Add(1)
	if perr == nil {
		w.base, w.baseOK = pv, true
	} else {
		w.baseOK = false
	}
	if err != nil || !c.dvOK || v != c.dv {
		w.fireLocked(changed(w.seen, readCounters(w.probe)))
		w.seen = before
	} else if perr == nil {
		w.seen = before // every foreign commit before it was fired already
	}
	c.dv, c.dvOK = v, err == nil
	w.inFlight--
	if w.inFlight == 0 {
		// Everything up to h is accounted (or its caches dropped): the
		// next checks may skip the probe until data.db-shm moves again.
		if perr == nil {
			w.snap.Store(h)
		} else {
			w.snap.Store(nil)
		}
	}
	w.releaseProbeLocked()
}

// dataVersion runs PRAGMA data_version on a driver connection.
func dataVersion(c driver.Conn) (int64, error) {
	q, ok := c.(driver.QueryerContext)
	if !ok {
		return 0, errors.New("dbwatch: driver cannot query")
	}
	rows, err := q.QueryContext(context.Background(), "PRAGMA data_version", nil)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil {
		if err == io.EOF {
			return 0, errors.New("dbwatch: no data_version")
		}
		return 0, err
	}
	n, ok := vals[0].(int64)
	if !ok {
		return 0, errors.New("dbwatch: data_version is not an integer")
	}
	return n, nil
}

// ---------------------------------------------------------------------------
// The app's connections, wrapped to account for their commits.

type connector struct {
	w   *Watcher
	drv driver.Driver
	dsn string
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	wc := &conn{Conn: dc, w: c.w, stmts: stmtcache.New()}
	// The new connection's data_version is its baseline: a commit by
	// others before this reading is in it, and could not be told from our
	// own later (endCommit); so the reading comes first and a Check after
	// it notices every commit by others up to now, those landing in
	// between included (the probe's reading starts after ours). A commit
	// after the Check shows in this connection's own reading at its first
	// commit. (Check first, reading second left a window where a foreign
	// commit was taken into both baselines and never fired.)
	wc.dv, err = dataVersion(wc)
	wc.dvOK = err == nil
	if connectGap != nil {
		connectGap()
	}
	_ = c.w.Check()
	return wc, nil
}

// connectGap, when set (tests), runs in Connect between its two steps,
// where a foreign commit must still be noticed.
var connectGap func()

func (c *connector) Driver() driver.Driver { return c.drv }

// conn is one of the app's connections: an autocommit Exec and a
// transaction's Commit are own commits.
type conn struct {
	driver.Conn
	w     *Watcher
	inTx  bool
	dv    int64 // this connection's data_version at its last own commit
	dvOK  bool
	stmts *stmtcache.Cache // statements kept prepared
}

var (
	_ driver.ConnBeginTx        = (*conn)(nil)
	_ driver.ConnPrepareContext = (*conn)(nil)
	_ driver.ExecerContext      = (*conn)(nil)
	_ driver.QueryerContext     = (*conn)(nil)
	_ driver.Pinger             = (*conn)(nil)
	_ driver.SessionResetter    = (*conn)(nil)
	_ driver.Validator          = (*conn)(nil)
	_ driver.StmtExecContext    = (*stmt)(nil)
	_ driver.StmtQueryContext   = (*stmt)(nil)
	_ driver.NamedValueChecker  = (*conn)(nil)
	_ driver.Connector          = (*connector)(nil)
)

// own runs an autocommit write as an own commit.
func (c *conn) own(run func() error) error {
	if c.inTx {
		return run()
	}
	c.w.beginCommit()
	defer c.w.endCommit(c)
	return run()
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	var t driver.Tx
	var err error
	if b, ok := c.Conn.(driver.ConnBeginTx); ok {
		t, err = b.BeginTx(ctx, opts)
	} else {
		t, err = c.Conn.Begin() //nolint:staticcheck // fallback of database/sql too
	}
	if err != nil {
		return nil, err
	}
	c.inTx = true
	return &tx{Tx: t, c: c}, nil
}

func (c *conn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	var s driver.Stmt
	var err error
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		s, err = p.PrepareContext(ctx, query)
	} else {
		s, err = c.Conn.Prepare(query)
	}
	if err != nil {
		return nil, err
	}
	return &stmt{Stmt: s, c: c, write: writes(query)}, nil
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	var res driver.Result
	err := c.own(func() error {
		r, cached, err := c.stmts.Exec(ctx, c.Conn, query, args)
		if !cached {
			r, err = e.ExecContext(ctx, query, args)
		}
		res = r
		return err
	})
	return res, err
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	run := func() (driver.Rows, error) {
		if rows, cached, err := c.stmts.Query(ctx, c.Conn, query, args); cached {
			return rows, err
		}
		return q.QueryContext(ctx, query, args)
	}
	if c.inTx || !writes(query) {
		return run()
	}
	return c.ownRows(run)
}

// Close finalizes the kept statements, then closes the connection.
func (c *conn) Close() error {
	c.stmts.Close()
	return c.Conn.Close()
}

// ownRows runs an autocommit write that returns rows (UPDATE … RETURNING)
// as an own commit: SQLite commits it when the statement is done, so it is
// accounted from before the query until its rows are closed.
func (c *conn) ownRows(run func() (driver.Rows, error)) (driver.Rows, error) {
	c.w.beginCommit()
	rows, err := run()
	if err != nil {
		c.w.endCommit(c)
		return nil, err
	}
	return &committingRows{Rows: rows, end: func() { c.w.endCommit(c) }}, nil
}

// committingRows ends the accounting of its write when closed.
type committingRows struct {
	driver.Rows
	end  func()
	done bool
}

func (r *committingRows) Close() error {
	err := r.Rows.Close()
	if !r.done {
		r.done = true
		r.end()
	}
	return err
}

// writes reports whether a statement run as a query can write: it starts
// with INSERT, UPDATE, DELETE or REPLACE, or it has a RETURNING clause.
func writes(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	if i := strings.IndexAny(q, " \t\r\n"); i > 0 {
		switch strings.ToUpper(q[:i]) {
		case "INSERT", "UPDATE", "DELETE", "REPLACE":
			return true
		case "SELECT", "PRAGMA", "EXPLAIN":
			return false
		}
	}
	return strings.Contains(strings.ToUpper(query), "RETURNING")
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *conn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *conn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

func (c *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if n, ok := c.Conn.(driver.NamedValueChecker); ok {
		return n.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}

type tx struct {
	driver.Tx
	c *conn
}

func (t *tx) Commit() error {
	t.c.inTx = false
	t.c.w.beginCommit()
	defer t.c.w.endCommit(t.c)
	return t.Tx.Commit()
}

func (t *tx) Rollback() error {
	t.c.inTx = false
	return t.Tx.Rollback()
}

type stmt struct {
	driver.Stmt
	c     *conn
	write bool // writes(its query)
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	var res driver.Result
	err := s.c.own(func() error {
		var err error
		if e, ok := s.Stmt.(driver.StmtExecContext); ok {
			res, err = e.ExecContext(ctx, args)
			return err
		}
		vals := make([]driver.Value, len(args))
		for i, a := range args {
			vals[i] = a.Value
		}
		res, err = s.Stmt.Exec(vals) //nolint:staticcheck // fallback
		return err
	})
	return res, err
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	run := func() (driver.Rows, error) {
		if q, ok := s.Stmt.(driver.StmtQueryContext); ok {
			return q.QueryContext(ctx, args)
		}
		vals := make([]driver.Value, len(args))
		for i, a := range args {
			vals[i] = a.Value
		}
		return s.Stmt.Query(vals) //nolint:staticcheck // fallback
	}
	if s.c.inTx || !s.write {
		return run()
	}
	return s.c.ownRows(run)
}

// ---------------------------------------------------------------------------
// Per app.

const storeKey = "camellos.dbwatch"

// Attach makes w the watcher of app (before the app serves) and closes its
// probe when the app terminates.
func Attach(app core.App, w *Watcher) {
	w.mu.Lock()
	w.app = app
	w.mu.Unlock()
	app.Store().Set(storeKey, w)
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		_ = w.Close()
		return e.Next()
	})
}

// Of is the watcher of app, or nil when it has none (an app opened with
// PocketBase's own connections: nothing to check).
func Of(app core.App) *Watcher {
	w, _ := app.Store().Get(storeKey).(*Watcher)
	return w
}

// OnExternalCommit binds fn to app's external-commit event with the tables
// it changed (nil: unknown, any); a no-op without a watcher. The read-model
// registry (internal/readmodel) is its listener.
func OnExternalCommit(app core.App, fn func(tables []string)) {
	w := Of(app)
	if w == nil {
		return
	}
	w.OnExternalCommit.BindFunc(func(e *Event) error {
		fn(e.Tables)
		return e.Next()
	})
}
