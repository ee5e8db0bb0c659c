package auth

import (
	"camellos/internal/writer"
	"camellos/modules/users"

	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Tokens is the collection of single-use account links this package owns:
// password recovery and e-mail verification. Only each token's SHA-256 is
// stored.
const Tokens = "account_tokens"

// Token purposes and lifetimes.
const (
	PurposeReset  = "RESET"
	PurposeVerify = "VERIFY"

	ResetLifetime  = time.Hour
	VerifyLifetime = 24 * time.Hour
)

// MsgBadLink is the one answer for a used, expired, voided or unknown link.
const MsgBadLink = "Enlace inválido o vencido"

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// issueToken makes a new link token of purpose for a user (32 random
// bytes, base64url) and voids the user's older unused ones of the same
// purpose, in one transaction.
func issueToken(app core.App, userID, purpose string, ttl time.Duration) (string, error) {
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(buf)
	col, err := app.FindCachedCollectionByNameOrId(Tokens)
	if err != nil {
		return "", err
	}
	err = writer.Transaction(app, func(tx core.App) error {
		// The user as of this transaction: a link is never issued for an
		// account erased (or disabled) since the caller read it.
		if !users.Enabled(tx, userID) {
			return errUserGone
		}
		now := types.NowDateTime().String()
		if _, err := tx.DB().Update(Tokens, dbx.Params{"usedAt": now},
			dbx.HashExp{"user": userID, "purpose": purpose, "usedAt": ""}).Execute(); err != nil {
			return err
		}
		rec := core.NewRecord(col)
		rec.Set("user", userID)
		rec.Set("purpose", purpose)
		rec.Set("tokenHash", tokenHash(token))
		rec.Set("expiresAt", time.Now().Add(ttl).UTC())
		return tx.Save(rec)
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// errUserGone is issueToken's answer for a user erased or disabled
// meanwhile: no link, and no mail (the callers stop quietly).
var errUserGone = errors.New("auth: the user was erased or disabled")

// tokenUser returns the user id of a live (unused, unexpired) token of
// purpose, or "" when there is none.
func tokenUser(app core.App, token, purpose string) string {
	if token == "" || len(token) > 100 {
		return ""
	}
	var row struct {
		User string `db:"user"`
	}
	err := app.DB().Select("user").From(Tokens).
		Where(dbx.HashExp{"tokenHash": tokenHash(token), "purpose": purpose, "usedAt": ""}).
		AndWhere(dbx.NewExp("expiresAt > {:now}", dbx.Params{"now": types.NowDateTime().String()})).
		Limit(1).One(&row)
	if err != nil {
		return ""
	}
	return row.User
}

// consumeToken spends a live token of purpose with one conditional UPDATE:
// of two concurrent uses exactly one wins. It reports whether this call
// spent it.
func consumeToken(app core.App, token, purpose string) (bool, error) {
	if token == "" || len(token) > 100 {
		return false, nil
	}
	now := types.NowDateTime().String()
	res, err := app.DB().Update(Tokens, dbx.Params{"usedAt": now},
		dbx.And(dbx.HashExp{"tokenHash": tokenHash(token), "purpose": purpose, "usedAt": ""},
			dbx.NewExp("expiresAt > {:now}", dbx.Params{"now": now}))).Execute()
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// dropUserTokens deletes every link token of a user (account erasure).
func dropUserTokens(app core.App, userID string) error {
	_, err := app.DB().Delete(Tokens, dbx.HashExp{"user": userID}).Execute()
	return err
}

// background runs account work off the request (the lookups and writes of
// a password-recovery request, so its answer takes the same time for known
// and unknown addresses). It is app-scoped and drained on terminate.
type background struct {
	mu      sync.Mutex
	wg      sync.WaitGroup
	stopped bool
}

const backgroundKey = "auth.background"

func backgroundOf(app core.App) *background {
	b, _ := app.Store().GetOrSet(backgroundKey, func() any { return &background{} }).(*background)
	return b
}

// run starts fn unless the app is terminating.
func (b *background) run(app core.App, fn func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				app.Logger().Error("auth: background panic", "error", r)
			}
		}()
		fn()
	}()
}

func (b *background) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.wg.Wait()
}

// WaitBackground waits for the account work started so far (tests).
func WaitBackground(app core.App) { backgroundOf(app).wg.Wait() }
