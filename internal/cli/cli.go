// Package cli runs the service's own CLI commands.
package cli

import (
	"fmt"
	"os"

	"github.com/pocketbase/pocketbase/core"
)

// RunCommand runs a CLI command's body after applying pending migrations,
// and exits non-zero with the message on failure (PocketBase's Execute
// ignores command errors, so the exit code is ours to set).
func RunCommand(app core.App, run func() error) {
	err := app.RunAllMigrations()
	if err == nil {
		err = run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
