package records

import (
	"sync"

	"github.com/pocketbase/pocketbase/core"
)

// InHand carries what an owner's domain function already read and checked
// in its transaction (the job, the camello, the author) to the record
// hooks of the save it then makes, so the hooks do not read the same rows
// again. The hooks still run for every save: a record saved by any other
// path (the dashboard, the generic API, another function) is not in hand
// and the hook reads what it needs itself. Keyed by the record object, for
// the duration of one Save on the transaction's goroutine.
type InHand[T any] struct{ m sync.Map }

// Hold makes v the values in hand for rec's save until release is called.
// The owner saves rec itself (the walks of modules/walks_test.go follow a
// Save to the hooks of the package that calls it):
//
//	err = func() error { defer inHand.Hold(rec, v)(); return txApp.Save(rec) }()
func (h *InHand[T]) Hold(rec *core.Record, v T) (release func()) {
	h.m.Store(rec, v)
	return func() { h.m.Delete(rec) }
}

// Of returns the values in hand for rec, if its save was started by the
// owner's function that holds them.
func (h *InHand[T]) Of(rec *core.Record) (T, bool) {
	v, ok := h.m.Load(rec)
	if !ok {
		var zero T
		return zero, false
	}
	return v.(T), true
}
