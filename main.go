// Command camellos is the Camellos marketplace service: PocketBase used as a
// framework, with our /api routes, record hooks and CLI commands.
package main

import (
	"log"

	_ "time/tzdata" // slots are laid in IANA zones on any machine

	"camellos/modules"
	_ "camellos/pb_migrations"
)

func main() {
	if err := modules.New().Start(); err != nil {
		log.Fatal(err)
	}
}
