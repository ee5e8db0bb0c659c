package messages

// Typed view of the messages collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the messages collection.
const (
	MessageFieldAuthor  = "author"
	MessageFieldBody    = "body"
	MessageFieldCamello = "camello"
	MessageFieldCreated = "created"
	MessageFieldFiles   = "files"
	MessageFieldJob     = "job"
)

// MessageRecord is a messages record.
type MessageRecord struct {
	core.BaseRecordProxy
}

// WrapMessageRecord returns rec as a MessageRecord.
func WrapMessageRecord(rec *core.Record) *MessageRecord {
	r := &MessageRecord{}
	r.SetProxyRecord(rec)
	return r
}

// AuthorID is the author field.
func (r *MessageRecord) AuthorID() string { return r.GetString(MessageFieldAuthor) }

// Body is the body field.
func (r *MessageRecord) Body() string { return r.GetString(MessageFieldBody) }

// CamelloID is the camello field.
func (r *MessageRecord) CamelloID() string { return r.GetString(MessageFieldCamello) }

// Created is the created field.
func (r *MessageRecord) Created() types.DateTime { return r.GetDateTime(MessageFieldCreated) }

// Files is the files field.
func (r *MessageRecord) Files() []string { return r.GetStringSlice(MessageFieldFiles) }

// JobID is the job field.
func (r *MessageRecord) JobID() string { return r.GetString(MessageFieldJob) }
