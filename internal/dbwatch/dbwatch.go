// Package dbwatch lets the in-memory projections notice commits made to
// data.db by another process (the CLI, a second instance, raw SQL in
// sqlite3, a Litestream restore...) before they answer.
//
// It reads the per-table change counters (counters.go): the table
// change_counters(tbl, n), which SQLite triggers on every counted table
// keep for every writer of any process, and change_own(proc, tbl, n),
// which TEMP triggers on this process's own connections keep for this
// process only (proc: a random id per Watcher). Both move in the writing
// transaction itself, so one reading (one statement, one snapshot) gives
// exactly the writes of others per table: n - own. A Watcher keeps one
// probe connection and reads them there on every request (Check): when
// the foreign count of a table moved since the last reading, it fires
// OnExternalCommit with those tables before the request goes on. No own
// commit needs accounting as it happens: there is no window between a
// commit and its bookkeeping.
//
// The fast path (shm_unix.go) skips the reading while the wal-index header
// in data.db-shm shows no commit since the last one.
package dbwatch

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"sync"
	"sync/atomic"

	"camellos/internal/stmtcache"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Watcher watches one data.db; keep one per app (Attach).
type Watcher struct {
	proc string // this process's rows of change_own

	mu        sync.Mutex
	listeners []func(tables []string) // OnExternalCommit
	dsn       string                  // of data.db, with its pragmas
	probe     *sql.DB                 // one connection, outside the accounted pool
	stmt      *sql.Stmt
	triggers  int64    // counter triggers at schema version schema
	seen      counters // foreign counts at the last reading (nil: unknown)
	read      bool     // a reading succeeded once: seen is a baseline
	schema    int64    // schema_version at the last reading
	lastErr   error
	closed    bool
	started   atomic.Int64 // readings started
	done      atomic.Int64 // readings finished
	gen       atomic.Int64 // bumped when the schema changed: connections put their TEMP triggers back
	external  atomic.Int64 // readings that found foreign commits (metrics, tests)

	// The fast path (shm_unix.go): data.db-shm mapped, and its wal-index
	// header as it was before the last reading (nil: take the slow path).
	shm  atomic.Pointer[shmView]
	snap atomic.Pointer[shmHeader]
}

// New returns a Watcher with no database yet.
func New() *Watcher {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Watcher{proc: hex.EncodeToString(b)}
}

// Open opens dsn (a data.db path with its query string of pragmas) with
// every connection's writes counted as this process's own. Use it for
// data.db only.
func (w *Watcher) Open(dsn string) (*dbx.DB, error) {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, err
	}
	drv := db.Driver()
	_ = db.Close()
	w.mu.Lock()
	if w.dsn != dsn {
		w.closeProbeLocked()
		w.shm.Swap(nil).close()
		w.seen, w.read = nil, false
	}
	w.dsn, w.closed = dsn, false
	w.mu.Unlock()
	return dbx.NewFromDB(sql.OpenDB(&connector{w: w, drv: drv, dsn: dsn}), "sqlite"), nil
}

// Close deletes this process's rows of change_own (no other process reads
// them; best effort) and releases the probe connection (the app's pools
// are PocketBase's).
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.probe != nil {
		_, _ = w.probe.Exec("DELETE FROM change_own WHERE proc = ?", w.proc)
	}
	w.closed = true
	err := w.closeProbeLocked()
	w.shm.Swap(nil).close()
	return err
}

// closeProbeLocked releases the probe connection. The mapping of
// data.db-shm stays (a failed reading closes the probe while the app's
// pools still use the database: closing the file's descriptor then would
// drop SQLite's locks, see shmView); Close and Open of another dsn
// release it.
func (w *Watcher) closeProbeLocked() error {
	w.snap.Store(nil)
	if w.probe == nil {
		return nil
	}
	err := w.probe.Close() // and its statement
	w.probe, w.stmt, w.schema = nil, nil, 0
	return err
}

// Probes is how many checks read the counters (the others took the fast
// path: nothing had been committed since the last reading).
func (w *Watcher) Probes() int64 { return w.done.Load() }

// External is how many readings found commits by another process.
func (w *Watcher) External() int64 { return w.external.Load() }

// Check notices the commits made by others since the last call and fires
// OnExternalCommit for them before it returns. No SQL while data.db-shm
// shows no commit since the last reading (shm_unix.go); else one reading
// of the counters on the probe connection, shared by the Checks waiting
// for it: a reading that starts after a Check began answers for it.
func (w *Watcher) Check() error {
	if w.quiet() {
		return nil
	}
	want := w.started.Load() + 1
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done.Load() >= want {
		return w.lastErr
	}
	w.started.Add(1)
	defer w.done.Add(1)
	h := w.headerLocked() // before the reading: a commit after it changes it
	now, schema, err := w.readLocked()
	w.lastErr = err
	switch {
	case err != nil:
		w.closeProbeLocked()
		w.seen = nil
		w.fireLocked(nil) // unknown: assume the worst
		return err
	case !w.read:
		w.read = true // the first reading is the baseline
	default:
		if t := changed(w.seen, now); t == nil || len(t) > 0 {
			w.fireLocked(t)
		}
	}
	if schema != w.schema {
		w.schema = schema
		w.gen.Add(1)
	}
	w.seen = now
	w.snap.Store(h)
	return nil
}

// readLocked reads the foreign counts per table and the schema version on
// the probe, opening it when needed. The counts are nil when they cannot
// tell: no tables, or fewer counter triggers than three per table (the
// triggers are counted again when the schema version moved).
func (w *Watcher) readLocked() (counters, int64, error) {
	if w.closed || w.dsn == "" {
		return nil, 0, errors.New("dbwatch: closed")
	}
	if w.probe == nil {
		db, err := sql.Open("sqlite", w.dsn)
		if err != nil {
			return nil, 0, err
		}
		db.SetMaxOpenConns(1)
		if w.stmt, err = db.Prepare(countersQuery); err != nil {
			db.Close()
			return nil, 0, err
		}
		w.probe = db
	}
	rows, err := w.stmt.Query(w.proc)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out, own := counters{}, counters{}
	var schema int64
	for rows.Next() {
		var kind, n int64
		var name string
		if err := rows.Scan(&kind, &name, &n); err != nil {
			return nil, 0, err
		}
		switch kind {
		case 0:
			out[name] += n
		case 1:
			own[name] += n
		case 2:
			schema = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if schema != w.schema {
		if err := w.probe.QueryRow(triggersQuery).Scan(&w.triggers); err != nil {
			return nil, 0, err
		}
	}
	if len(out) == 0 || w.triggers < 3*int64(len(out)) {
		return nil, schema, nil
	}
	for t, n := range own {
		out[t] -= n
	}
	return out, schema, nil
}

// fireLocked runs the OnExternalCommit listeners for a foreign commit that
// changed tables (nil: unknown, any).
func (w *Watcher) fireLocked(tables []string) {
	w.external.Add(1)
	for _, fn := range w.listeners {
		fn(tables)
	}
}

// ---------------------------------------------------------------------------
// The app's connections: each keeps its TEMP triggers that count its
// writes as this process's own (counters.go), and its most recent
// statements prepared (internal/stmtcache).

type connector struct {
	w   *Watcher
	drv driver.Driver
	dsn string
}

// sqliteConn is what the driver's connections implement; the wrapper
// passes on all of it but for what it intercepts.
type sqliteConn interface {
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.Conn
}

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(sqliteConn)
	if !ok {
		dc.Close()
		return nil, errors.New("dbwatch: the sqlite driver's connections lack a method")
	}
	wc := &conn{sqliteConn: sc, w: c.w, stmts: stmtcache.New(), gen: -1}
	wc.ready()
	return wc, nil
}

func (c *connector) Driver() driver.Driver { return c.drv }

type conn struct {
	sqliteConn
	w     *Watcher
	inTx  bool
	gen   int64 // the watcher's generation its TEMP triggers were put in at
	stmts *stmtcache.Cache
}

// ready puts the connection's TEMP triggers in place when the schema
// changed since it last did (outside a transaction only: a rollback would
// take them away). Until then its writes count as foreign: an extra drop,
// never a miss.
func (c *conn) ready() {
	if g := c.w.gen.Load(); !c.inTx && g != c.gen && installOwn(c.sqliteConn, c.w.proc) == nil {
		c.gen = g
	}
}

func (c *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.ready()
	t, err := c.sqliteConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx = true
	return &tx{Tx: t, c: c}, nil
}

func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.ready()
	return c.sqliteConn.PrepareContext(ctx, query)
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.ready()
	if r, cached, err := c.stmts.Exec(ctx, c.sqliteConn, query, args); cached {
		return r, err
	}
	return c.sqliteConn.ExecContext(ctx, query, args)
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.ready()
	if rows, cached, err := c.stmts.Query(ctx, c.sqliteConn, query, args); cached {
		return rows, err
	}
	return c.sqliteConn.QueryContext(ctx, query, args)
}

// Close finalizes the kept statements, then closes the connection.
func (c *conn) Close() error {
	c.stmts.Close()
	return c.sqliteConn.Close()
}

type tx struct {
	driver.Tx
	c *conn
}

func (t *tx) Commit() error {
	t.c.inTx = false
	return t.Tx.Commit()
}

func (t *tx) Rollback() error {
	t.c.inTx = false
	return t.Tx.Rollback()
}

// ---------------------------------------------------------------------------
// Per app.

const storeKey = "camellos.dbwatch"

// Attach makes w the watcher of app (before the app serves) and closes its
// probe when the app terminates.
func Attach(app core.App, w *Watcher) {
	app.Store().Set(storeKey, w)
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		if e.IsRestart {
			// The app bootstraps again after this (Open reopens w).
			_ = w.Close()
			return e.Next()
		}
		// After the handlers that close the app's databases: the mapping
		// of data.db-shm holds a descriptor of the file, whose closing
		// drops SQLite's locks (shm_unix.go) while they are open.
		err := e.Next()
		_ = w.Close()
		return err
	})
}

// Of is the watcher of app, or nil when it has none (an app opened with
// PocketBase's own connections: nothing to check).
func Of(app core.App) *Watcher {
	w, _ := app.Store().Get(storeKey).(*Watcher)
	return w
}

// OnExternalCommit makes fn run for every commit by another process that
// app's watcher notices, with the tables it changed (nil: unknown, any):
// synchronously, under the watcher's lock (fn must only drop in-memory
// state). A no-op without a watcher; the read-model registry
// (internal/readmodel) is its listener.
func OnExternalCommit(app core.App, fn func(tables []string)) {
	if w := Of(app); w != nil {
		w.mu.Lock()
		w.listeners = append(w.listeners, fn)
		w.mu.Unlock()
	}
}
