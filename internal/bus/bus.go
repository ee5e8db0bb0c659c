// Package bus holds the cross-module events of one app: a value on
// app.Store() whose fields are PocketBase hooks. The owner of a collection
// emits the events about it; other modules listen instead of binding record
// hooks on a collection they do not own, and instead of process-wide
// variables (every app a test builds has its own events).
//
// Who emits and who listens (keep docs/architecture.md in step):
//
//	CatalogChanged  catalog (categories, services)  → camellos (public index), search (vocabulary), jobs (open board)
//	ServiceSaving   catalog (a service is updated)  → camellos (search text of its camellos)
//	ServiceDeleting catalog (a service is deleted)  → jobs (refuses while jobs use it)
//	CamelloChanged  camellos                        → search (vocabulary), agenda (free-slot views), jobs (board callers)
//	UserChanged     auth (users)                    → session (session cache), camellos (verified badge), jobs (board names)
//	UserSignedUp    auth (client), registration     → legal (consent to the current texts)
//	MeRendering     auth (GET /api/me)              → legal ("legal" part)
//	UserExporting   auth (GET /api/me/export)       → every owner of data about a user (its part)
//	UserErasing     auth (DELETE /api/me)           → every owner of data about a user (erases its part)
package bus

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Change is a committed write (create, update or delete) of a record of
// the emitting owner's collection. Listeners call e.Next().
type Change struct {
	hook.Event
	App    core.App
	Record *core.Record // as written; for a delete, as it was
}

// Saving is a write (or delete) of a record in progress, inside the
// writer's transaction: a listener that fails aborts it.
type Saving struct {
	hook.Event
	App    core.App
	Record *core.Record
	Before *core.Record // the stored record before this write
}

// SignUp is a new user in the sign-up transaction (App is the transaction).
type SignUp struct {
	hook.Event
	App       core.App
	UserID    string
	IP        string
	UserAgent string
}

// Me is GET /api/me being rendered: listeners add their parts to Body.
type Me struct {
	hook.Event
	App  core.App
	User *core.Record
	Body map[string]any
}

// Export collects everything stored about User (Ley 1581 de 2012): each
// owner puts its part under its own key of Data (JSON-ready values, never a
// password hash, a token or a token hash).
type Export struct {
	hook.Event
	App  core.App
	User *core.Record
	Data map[string]any
}

// Erase erases a person: each owner, inside the one transaction App is,
// removes or blanks what it holds about User, keeping what the other
// party's history needs. A listener returning an error (a 409 for a job
// still under way) rolls the whole erasure back. AfterCommit collects work
// that must wait for the commit.
type Erase struct {
	hook.Event
	App         core.App
	User        *core.Record
	afterCommit []func()
}

// AfterCommit runs fn once the erasure has committed.
func (e *Erase) AfterCommit(fn func()) { e.afterCommit = append(e.afterCommit, fn) }

// RunAfterCommit runs the collected after-commit work (the emitter calls
// it after the commit).
func (e *Erase) RunAfterCommit() {
	for _, fn := range e.afterCommit {
		fn()
	}
}

// Hooks are the events of one app.
type Hooks struct {
	CatalogChanged  *hook.Hook[*Change]
	ServiceSaving   *hook.Hook[*Saving]
	ServiceDeleting *hook.Hook[*Saving]
	CamelloChanged  *hook.Hook[*Change]
	UserChanged     *hook.Hook[*Change]
	UserSignedUp    *hook.Hook[*SignUp]
	MeRendering     *hook.Hook[*Me]
	UserExporting   *hook.Hook[*Export]
	UserErasing     *hook.Hook[*Erase]
}

const storeKey = "camellos.bus"

// Of returns the events of app (created on first use, shared by the
// transactions of app).
func Of(app core.App) *Hooks {
	return app.Store().GetOrSet(storeKey, func() any {
		return &Hooks{
			CatalogChanged:  &hook.Hook[*Change]{},
			ServiceSaving:   &hook.Hook[*Saving]{},
			ServiceDeleting: &hook.Hook[*Saving]{},
			CamelloChanged:  &hook.Hook[*Change]{},
			UserChanged:     &hook.Hook[*Change]{},
			UserSignedUp:    &hook.Hook[*SignUp]{},
			MeRendering:     &hook.Hook[*Me]{},
			UserExporting:   &hook.Hook[*Export]{},
			UserErasing:     &hook.Hook[*Erase]{},
		}
	}).(*Hooks)
}

// EmitChanges makes the owner of collection emit h after every committed
// create, update and delete of one of its records. Only the owner calls it,
// once, in its Register.
func EmitChanges(app core.App, collection string, h func(*Hooks) *hook.Hook[*Change]) {
	emit := func(e *core.RecordEvent) error {
		if err := h(Of(e.App)).Trigger(&Change{App: e.App, Record: e.Record}); err != nil {
			return err
		}
		return e.Next()
	}
	app.OnRecordAfterCreateSuccess(collection).BindFunc(emit)
	app.OnRecordAfterUpdateSuccess(collection).BindFunc(emit)
	app.OnRecordAfterDeleteSuccess(collection).BindFunc(emit)
}
