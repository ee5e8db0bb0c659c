package modules

import (
	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/plugins/migratecmd"
)

// Database pool sizes. PocketBase's defaults (120 open, 15 idle) make a
// busy server close and reopen connections constantly, each with its own
// page cache; a small pool kept fully idle is faster and lighter.
const (
	DataMaxOpenConns = 8
	DataMaxIdleConns = 8
)

// New builds the service exactly as the binary runs it (the benchmark's
// child process uses it too): PocketBase with our pool sizes, every module
// registered, our CLI commands and the `migrate` command.
func New() *pocketbase.PocketBase {
	return NewWithConfig(pocketbase.Config{DataMaxOpenConns: DataMaxOpenConns, DataMaxIdleConns: DataMaxIdleConns})
}

// NewWithConfig is New with explicit PocketBase settings (experiments).
func NewWithConfig(cfg pocketbase.Config) *pocketbase.PocketBase {
	app := pocketbase.NewWithConfig(cfg)
	// `migrate` sub-command for the Go migrations in pb_migrations.
	migratecmd.MustRegister(app, app.RootCmd, migratecmd.Config{
		TemplateLang: migratecmd.TemplateLangGo,
		Dir:          "pb_migrations",
	})
	Register(app)
	app.RootCmd.AddCommand(Commands(app)...)
	return app
}
