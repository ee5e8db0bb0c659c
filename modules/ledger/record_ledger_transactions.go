package ledger

// Typed view of the ledger_transactions collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
)

// Fields of the ledger_transactions collection.
const (
	TransactionFieldAt       = "at"
	TransactionFieldKey      = "key"
	TransactionFieldKind     = "kind"
	TransactionFieldMemo     = "memo"
	TransactionFieldRef      = "ref"
	TransactionFieldReverses = "reverses"
)

// TransactionRecord is a ledger_transactions record.
type TransactionRecord struct {
	core.BaseRecordProxy
}

// WrapTransactionRecord returns rec as a TransactionRecord.
func WrapTransactionRecord(rec *core.Record) *TransactionRecord {
	r := &TransactionRecord{}
	r.SetProxyRecord(rec)
	return r
}

// At is the at field.
func (r *TransactionRecord) At() string { return r.GetString(TransactionFieldAt) }

// Key is the key field.
func (r *TransactionRecord) Key() string { return r.GetString(TransactionFieldKey) }

// Kind is the kind field.
func (r *TransactionRecord) Kind() string { return r.GetString(TransactionFieldKind) }

// Memo is the memo field.
func (r *TransactionRecord) Memo() string { return r.GetString(TransactionFieldMemo) }

// Ref is the ref field.
func (r *TransactionRecord) Ref() string { return r.GetString(TransactionFieldRef) }

// Reverses is the reverses field.
func (r *TransactionRecord) Reverses() string { return r.GetString(TransactionFieldReverses) }
