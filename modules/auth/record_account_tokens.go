package auth

// Typed view of the account_tokens collection (TestTypedRecordsMatchTheSchema checks
// every field constant and accessor against the migrated schema).

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Fields of the account_tokens collection.
const (
	AccountTokenFieldCreated   = "created"
	AccountTokenFieldExpiresAt = "expiresAt"
	AccountTokenFieldPurpose   = "purpose"
	AccountTokenFieldTokenHash = "tokenHash"
	AccountTokenFieldUsedAt    = "usedAt"
	AccountTokenFieldUser      = "user"
)

// AccountToken is an account_tokens record (a reset or verification link).
type AccountToken struct {
	core.BaseRecordProxy
}

// WrapAccountToken returns rec as a AccountToken.
func WrapAccountToken(rec *core.Record) *AccountToken {
	r := &AccountToken{}
	r.SetProxyRecord(rec)
	return r
}

// Created is the created field.
func (r *AccountToken) Created() types.DateTime { return r.GetDateTime(AccountTokenFieldCreated) }

// ExpiresAt is the expiresAt field.
func (r *AccountToken) ExpiresAt() types.DateTime { return r.GetDateTime(AccountTokenFieldExpiresAt) }

// Purpose is the purpose field.
func (r *AccountToken) Purpose() string { return r.GetString(AccountTokenFieldPurpose) }

// TokenHash is the tokenHash field.
func (r *AccountToken) TokenHash() string { return r.GetString(AccountTokenFieldTokenHash) }

// UsedAt is the usedAt field.
func (r *AccountToken) UsedAt() types.DateTime { return r.GetDateTime(AccountTokenFieldUsedAt) }

// UserID is the user field.
func (r *AccountToken) UserID() string { return r.GetString(AccountTokenFieldUser) }
