package users

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// RoleChange is fired inside the save of a user whose role changes (every
// path: our routes, the CLI, the dashboard). A listener refuses the change
// by returning an error (the camellos owner: a user with a camello profile
// keeps the role CAMELLOS, a user without one cannot take it).
type RoleChange struct {
	hook.Event
	App      core.App // the saving app (a transaction)
	User     *User
	From, To string
}

// Disabled is fired inside the save that disables a user, after the
// sessions were revoked: listeners withdraw what the user offered (the
// camellos owner suspends an ACTIVO profile) in the same transaction.
type Disabled struct {
	hook.Event
	App  core.App
	User *User
}

// SignedOut is fired inside the save of a user whose sessions must all
// end (disabled, new password or e-mail, erased): internal/session
// deletes them in the same transaction.
type SignedOut struct {
	hook.Event
	App    core.App
	UserID string
}

const (
	signedOutKey    = "camellos.users.signedOut"
	roleChangingKey = "camellos.users.roleChanging"
	disabledKey     = "camellos.users.disabled"
)

// OnRoleChanging is the app's role-change event (inside the save).
func OnRoleChanging(app core.App) *hook.Hook[*RoleChange] {
	return app.Store().GetOrSet(roleChangingKey, func() any { return &hook.Hook[*RoleChange]{} }).(*hook.Hook[*RoleChange])
}

// OnDisabled is the app's user-disabled event (inside the save).
func OnDisabled(app core.App) *hook.Hook[*Disabled] {
	return app.Store().GetOrSet(disabledKey, func() any { return &hook.Hook[*Disabled]{} }).(*hook.Hook[*Disabled])
}

// OnSignedOutEverywhere is the app's end-every-session event (inside the
// save).
func OnSignedOutEverywhere(app core.App) *hook.Hook[*SignedOut] {
	return app.Store().GetOrSet(signedOutKey, func() any { return &hook.Hook[*SignedOut]{} }).(*hook.Hook[*SignedOut])
}
