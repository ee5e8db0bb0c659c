package testkit

import (
	"sync"

	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// EraseMidRequest opens, deterministically, the window of a request racing
// its user's erasure: once erase(userID) was called, that user's next
// request has the user erased (users.Erase: disabled, emptied, sessions
// revoked) after its session was read and before its handler runs. A
// handler that writes for the session's user must check it in its own
// transaction and write nothing. Pass option to New.
func EraseMidRequest() (option Option, erase func(userID string), pending func(userID string) bool) {
	var marked sync.Map
	option = func(app *tests.TestApp) {
		app.OnServe().BindFunc(func(se *core.ServeEvent) error {
			se.Router.BindFunc(func(e *core.RequestEvent) error { // after the session's middleware
				if e.Auth == nil {
					return e.Next()
				}
				if _, ok := marked.LoadAndDelete(e.Auth.Id); ok {
					u, err := e.App.FindRecordById(users.Collection, e.Auth.Id)
					if err != nil {
						return err
					}
					if err := users.Erase(e.App, users.Wrap(u)); err != nil {
						return err
					}
				}
				return e.Next()
			})
			return se.Next()
		})
	}
	erase = func(userID string) { marked.Store(userID, true) }
	pending = func(userID string) bool { _, ok := marked.Load(userID); return ok }
	return option, erase, pending
}
