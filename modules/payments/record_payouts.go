package payments

// Typed view of the payouts collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
)

// Fields of the payouts collection.
const (
	PayoutFieldAmount    = "amount"
	PayoutFieldBatch     = "batch"
	PayoutFieldCamello   = "camello"
	PayoutFieldCreatedAt = "createdAt"
	PayoutFieldCreatedBy = "createdBy"
	PayoutFieldLedgerTx  = "ledgerTx"
	PayoutFieldReference = "reference"
	PayoutFieldSettledAt = "settledAt"
	PayoutFieldSettledBy = "settledBy"
	PayoutFieldStatus    = "status"
)

// PayoutRecord is a payouts record.
type PayoutRecord struct {
	core.BaseRecordProxy
}

// WrapPayoutRecord returns rec as a PayoutRecord.
func WrapPayoutRecord(rec *core.Record) *PayoutRecord {
	r := &PayoutRecord{}
	r.SetProxyRecord(rec)
	return r
}

// Amount is the amount field.
func (r *PayoutRecord) Amount() int { return r.GetInt(PayoutFieldAmount) }

// Batch is the batch field.
func (r *PayoutRecord) Batch() string { return r.GetString(PayoutFieldBatch) }

// Camello is the camello field.
func (r *PayoutRecord) Camello() string { return r.GetString(PayoutFieldCamello) }

// CreatedAt is the createdAt field.
func (r *PayoutRecord) CreatedAt() string { return r.GetString(PayoutFieldCreatedAt) }

// CreatedBy is the createdBy field.
func (r *PayoutRecord) CreatedBy() string { return r.GetString(PayoutFieldCreatedBy) }

// LedgerTx is the ledgerTx field.
func (r *PayoutRecord) LedgerTx() string { return r.GetString(PayoutFieldLedgerTx) }

// Reference is the reference field.
func (r *PayoutRecord) Reference() string { return r.GetString(PayoutFieldReference) }

// SettledAt is the settledAt field.
func (r *PayoutRecord) SettledAt() string { return r.GetString(PayoutFieldSettledAt) }

// SettledBy is the settledBy field.
func (r *PayoutRecord) SettledBy() string { return r.GetString(PayoutFieldSettledBy) }

// Status is the status field.
func (r *PayoutRecord) Status() string { return r.GetString(PayoutFieldStatus) }
