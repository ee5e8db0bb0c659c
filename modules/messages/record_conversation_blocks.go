package messages

// Typed view of the conversation_blocks collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the conversation_blocks collection.
const (
	ConversationBlockFieldBlocked = "blocked"
	ConversationBlockFieldBlocker = "blocker"
	ConversationBlockFieldCreated = "created"
	ConversationBlockFieldJob     = "job"
)

// ConversationBlock is a conversation_blocks record.
type ConversationBlock struct {
	core.BaseRecordProxy
}

// WrapConversationBlock returns rec as a ConversationBlock.
func WrapConversationBlock(rec *core.Record) *ConversationBlock {
	r := &ConversationBlock{}
	r.SetProxyRecord(rec)
	return r
}

// BlockedID is the blocked field.
func (r *ConversationBlock) BlockedID() string { return r.GetString(ConversationBlockFieldBlocked) }

// BlockerID is the blocker field.
func (r *ConversationBlock) BlockerID() string { return r.GetString(ConversationBlockFieldBlocker) }

// Created is the created field.
func (r *ConversationBlock) Created() types.DateTime {
	return r.GetDateTime(ConversationBlockFieldCreated)
}

// JobID is the job field.
func (r *ConversationBlock) JobID() string { return r.GetString(ConversationBlockFieldJob) }
