package payments

// Typed view of the camello_policies collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
)

// Fields of the camello_policies collection.
const (
	PolicyFieldCamello   = "camello"
	PolicyFieldPolicy    = "policy"
	PolicyFieldUpdatedAt = "updatedAt"
)

// PolicyRecord is a camello_policies record (a camello's cancellation policy).
type PolicyRecord struct {
	core.BaseRecordProxy
}

// WrapPolicyRecord returns rec as a PolicyRecord.
func WrapPolicyRecord(rec *core.Record) *PolicyRecord {
	r := &PolicyRecord{}
	r.SetProxyRecord(rec)
	return r
}

// Camello is the camello field.
func (r *PolicyRecord) Camello() string { return r.GetString(PolicyFieldCamello) }

// Policy is the policy field.
func (r *PolicyRecord) Policy() string { return r.GetString(PolicyFieldPolicy) }

// UpdatedAt is the updatedAt field.
func (r *PolicyRecord) UpdatedAt() string { return r.GetString(PolicyFieldUpdatedAt) }
