// Command camellos is the Camellos marketplace service: PocketBase used as a
// framework, with our /api routes, record hooks and CLI commands.
package main

import (
	"log"

	_ "time/tzdata" // slots are laid in IANA zones on any machine

	"camellos/modules"
	_ "camellos/pb_migrations"

	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/plugins/migratecmd"
)

func main() {
	app := pocketbase.New()

	// `migrate` sub-command for the Go migrations in pb_migrations.
	migratecmd.MustRegister(app, app.RootCmd, migratecmd.Config{
		TemplateLang: migratecmd.TemplateLangGo,
		Dir:          "pb_migrations",
	})

	modules.Register(app)
	app.RootCmd.AddCommand(modules.Commands(app)...)

	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}
