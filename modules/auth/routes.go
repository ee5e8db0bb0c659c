// Package auth is the sessions and profile area: client sign-up, sign-in
// with the session cookie, sign-out, GET/PATCH /api/me, and the CLI that
// creates administrators.
package auth

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Register binds the auth area's record hooks and routes.
func Register(app core.App) {
	_ = app
}

// AdminCommand is `admin create EMAIL PASSWORD [--name NAME]`.
func AdminCommand(app core.App) *cobra.Command {
	return &cobra.Command{Use: "admin", Short: "Manage administrators"}
}
