package modules

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"camellos/internal/config"
	"camellos/internal/dbwatch"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/plugins/migratecmd"
)

// Database pool sizes. PocketBase's defaults (120 open, 15 idle) make a
// busy server close and reopen connections constantly, each with its own
// page cache; a small pool kept fully idle is faster and lighter.
const (
	DataMaxOpenConns = 8
	DataMaxIdleConns = 8

	// PageCacheKiB is SQLite's page cache per connection (PocketBase's
	// default is 32 MB). Hot reads are answered from our in-memory indexes,
	// so a smaller cache keeps the resident memory low at no measurable cost.
	PageCacheKiB = 8000
)

// dbConnect is PocketBase's default connection with a smaller page cache.
func dbConnect(dbPath string) (*dbx.DB, error) {
	return dbx.Open("sqlite", dbPath+pragmas())
}

// pragmas of every connection: PocketBase's, with our page cache, and no
// cache spill: a write transaction keeps its pages in memory until it
// commits instead of writing some to the WAL early. An early WAL write can
// restart the WAL (after a full checkpoint), which shows to every other
// connection as a change before anything is committed; the watcher
// (internal/dbwatch) would take it for another process's commit and drop
// every cache (the reminder sweep's batches did, 16 times per sweep).
//
// Transactions begin IMMEDIATE (_txlock; only PocketBase's write pool
// begins transactions): the write lock is taken, waiting up to the busy
// timeout, before the transaction reads anything, so its snapshot cannot
// go stale. A deferred transaction that read first and then met another
// process's commit failed at its first write with SQLITE_BUSY_SNAPSHOT
// (517), which no timeout waits out, after PocketBase's own statement
// retries had slept ~7 s in vain (issue 22, leak 4; internal/writer runs a
// busy transaction again, the routes answer 503 past its bound).
func pragmas() string {
	return "?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=journal_size_limit(200000000)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)" +
		fmt.Sprintf("&_pragma=cache_size(-%d)", PageCacheKiB) + "&_pragma=cache_spill(0)"
}

// DBConnect opens data.db through w (every own commit accounted, so that
// commits by other processes are noticed: see internal/dbwatch) and the
// auxiliary database as dbConnect does.
func DBConnect(w *dbwatch.Watcher) core.DBConnectFunc {
	return func(dbPath string) (*dbx.DB, error) {
		if filepath.Base(dbPath) == "data.db" {
			return w.Open(dbPath + pragmas())
		}
		return dbConnect(dbPath)
	}
}

// New builds the service exactly as the binary runs it (the benchmark's
// child process uses it too): PocketBase with our pool sizes, every module
// registered, our CLI commands and the `migrate` command.
func New() *pocketbase.PocketBase {
	w := dbwatch.New()
	return newApp(pocketbase.Config{
		DataMaxOpenConns: DataMaxOpenConns,
		DataMaxIdleConns: DataMaxIdleConns,
		DBConnect:        DBConnect(w),
	}, w)
}

// applyMemoryLimit gives the Go runtime its soft memory limit
// (MEMORY_LIMIT_MB, none by default) unless GOMEMLIMIT already set one.
// The in-memory indexes make the live heap large (about 175 MB at 100,000
// camellos and 200,000 jobs); without a limit the collector lets the heap
// grow to twice that before it runs. With one it collects more often near
// the limit (more CPU per request), and never fails for it: a live heap
// above the limit is still served.
func applyMemoryLimit(c config.Config) {
	if c.GoMemLimitSet || c.MemoryLimitMB <= 0 {
		return
	}
	debug.SetMemoryLimit(int64(c.MemoryLimitMB) << 20)
}

// NewWithConfig is New with explicit PocketBase settings (experiments).
func NewWithConfig(cfg pocketbase.Config) *pocketbase.PocketBase {
	return newApp(cfg, nil)
}

func newApp(cfg pocketbase.Config, w *dbwatch.Watcher) *pocketbase.PocketBase {
	app := pocketbase.NewWithConfig(cfg)
	if w != nil {
		dbwatch.Attach(app, w)
	}
	settings, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
	config.Set(app, settings)
	applyMemoryLimit(settings)
	// `migrate` sub-command for the Go migrations in pb_migrations.
	migratecmd.MustRegister(app, app.RootCmd, migratecmd.Config{
		TemplateLang: migratecmd.TemplateLangGo,
		Dir:          "pb_migrations",
	})
	Register(app)
	app.RootCmd.AddCommand(Commands(app)...)
	return app
}
