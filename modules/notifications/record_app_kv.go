package notifications

// Typed view of the app_kv collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the app_kv collection.
const (
	AppKVFieldCreated = "created"
	AppKVFieldKey     = "key"
	AppKVFieldUpdated = "updated"
	AppKVFieldValue   = "value"
)

// AppKV is an app_kv record (a key and its value).
type AppKV struct {
	core.BaseRecordProxy
}

// WrapAppKV returns rec as a AppKV.
func WrapAppKV(rec *core.Record) *AppKV {
	r := &AppKV{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *AppKV) Created() types.DateTime { return r.GetDateTime(AppKVFieldCreated) }

// Key is the key field.
func (r *AppKV) Key() string { return r.GetString(AppKVFieldKey) }

// Updated is the updated field.
func (r *AppKV) Updated() types.DateTime { return r.GetDateTime(AppKVFieldUpdated) }

// Value is the value field.
func (r *AppKV) Value() string { return r.GetString(AppKVFieldValue) }
