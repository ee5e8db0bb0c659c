package ledger

// Typed view of the ledger_entries collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
)

// Fields of the ledger_entries collection.
const (
	EntryFieldAccount = "account"
	EntryFieldAmount  = "amount"
	EntryFieldTx      = "tx"
)

// EntryRecord is a ledger_entries record (one leg of a transaction).
type EntryRecord struct {
	core.BaseRecordProxy
}

// WrapEntryRecord returns rec as a EntryRecord.
func WrapEntryRecord(rec *core.Record) *EntryRecord {
	r := &EntryRecord{}
	r.SetProxyRecord(rec)
	return r
}

// Account is the account field.
func (r *EntryRecord) Account() string { return r.GetString(EntryFieldAccount) }

// Amount is the amount field.
func (r *EntryRecord) Amount() int { return r.GetInt(EntryFieldAmount) }

// Tx is the tx field.
func (r *EntryRecord) Tx() string { return r.GetString(EntryFieldTx) }
