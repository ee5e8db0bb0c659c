package ledger

import (
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
)

// MsgAppendOnly is the refusal of a record write to the ledger.
const MsgAppendOnly = "El libro contable no se edita: cada movimiento se registra con su contrapartida y se corrige con una reversión"

// Register binds the ledger's record hooks and its CLI lives in Command.
func Register(app core.App) {
	bindHooks(app)
}

// bindHooks refuses every write of the ledger through records (the
// dashboard, the generic API, a module saving a record): movements are
// written by Post and Reverse only, and never updated or deleted. The
// SQLite triggers refuse the same below the application.
func bindHooks(app core.App) {
	refuse := func(e *core.RecordEvent) error { return httpapi.Forbidden(MsgAppendOnly) }
	for _, c := range []string{CollectionTransactions, CollectionEntries} {
		app.OnRecordCreate(c).BindFunc(refuse)
		app.OnRecordUpdate(c).BindFunc(refuse)
		app.OnRecordDelete(c).BindFunc(refuse)
	}
}
