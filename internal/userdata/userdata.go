// Package userdata carries the two per-app events of a person's data
// rights (Ley 1581 de 2012): export and erasure. The auth module triggers
// them; every module that owns data about a user binds a handler that
// contributes its own part, so no module reads or writes another's tables.
package userdata

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// ExportEvent collects everything stored about User: each owner module
// puts its part under its own key of Data (JSON-ready values, never a
// password hash, a token or a token hash).
type ExportEvent struct {
	hook.Event
	App  core.App
	User *core.Record
	Data map[string]any
}

// EraseEvent erases a person: each owner module, inside the one
// transaction App is, removes or blanks what it holds about User, keeping
// what the other party's history needs. A handler returning an error (a
// 409 for a job still in progress) rolls the whole erasure back.
// AfterCommit collects work that must wait for the commit (removing files).
type EraseEvent struct {
	hook.Event
	App         core.App
	User        *core.Record
	afterCommit []func()
}

// AfterCommit runs fn once the erasure has committed.
func (e *EraseEvent) AfterCommit(fn func()) { e.afterCommit = append(e.afterCommit, fn) }

// RunAfterCommit runs the collected after-commit work (the trigger calls
// it after the commit).
func (e *EraseEvent) RunAfterCommit() {
	for _, fn := range e.afterCommit {
		fn()
	}
}

// Hooks are one app's data-rights events.
type Hooks struct {
	Export *hook.Hook[*ExportEvent]
	Erase  *hook.Hook[*EraseEvent]
}

const storeKey = "userdata.hooks"

// Of returns app's data-rights events (made on first use).
func Of(app core.App) *Hooks {
	h, _ := app.Store().GetOrSet(storeKey, func() any {
		return &Hooks{Export: &hook.Hook[*ExportEvent]{}, Erase: &hook.Hook[*EraseEvent]{}}
	}).(*Hooks)
	return h
}

// OnExport is the export event of app.
func OnExport(app core.App) *hook.Hook[*ExportEvent] { return Of(app).Export }

// OnErase is the erasure event of app.
func OnErase(app core.App) *hook.Hook[*EraseEvent] { return Of(app).Erase }
