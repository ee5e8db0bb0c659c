// Package users owns the users collection: its name, the roles of the
// service, its field names and typed record, the password derivation, the
// record hooks (invariants of every path that saves a user) and every
// write to it (write.go).
package users

import (
	"camellos/internal/bus"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Collection is the users collection (PocketBase auth collection).
const Collection = "users"

// Roles of the service.
const (
	RoleAdmin   = "ADMIN"
	RoleCamello = "CAMELLOS"
	RoleClient  = "CLIENTE"
)

// Fields of the users collection this package reads and writes (besides
// PocketBase's email, verified and password).
const (
	FieldName     = "name"
	FieldRole     = "role"
	FieldPhone    = "phone"
	FieldCity     = "city"
	FieldDisabled = "disabled"
	FieldAvatar   = "avatar"
	FieldCreated  = "created"
	FieldUpdated  = "updated"
)

// Register binds the users' record hooks and their after-commit change
// event (bus.UserChanged).
func Register(app core.App) {
	bindHooks(app)
	// UserChanged after every committed write of a user.
	bus.EmitChanges(app, Collection, func(h *bus.Hooks) *hook.Hook[*bus.Change] { return h.UserChanged })
}
