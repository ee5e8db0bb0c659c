// Command camellos is the Camellos marketplace service: PocketBase used as a
// framework, with our /api routes, record hooks and CLI commands.
package main

import (
	"os"

	_ "time/tzdata" // slots are laid in IANA zones on any machine

	"camellos/modules"
	_ "camellos/pb_migrations"
)

// main exits 1 when the command fails (its error is already on stderr).
func main() {
	if err := modules.Start(modules.New()); err != nil {
		os.Exit(1)
	}
}
