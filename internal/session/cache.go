package session

import (
	"time"

	"camellos/internal/bus"
	"camellos/internal/memo"
	"camellos/internal/readmodel"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// Limits of the in-process session cache of LoadSession.
const (
	// sessionCacheMaxAge re-reads a cached session and its user at least
	// this often. Writes of this process are seen at once (record hooks);
	// commits of other processes (raw SQL, the CLI) on the next request
	// (internal/dbwatch drops the whole cache): this age is a second line.
	sessionCacheMaxAge = 15 * time.Second
	// sessionCacheMax bounds the sessions kept (the least recently used go).
	sessionCacheMax = 20000

	storeKeySessionCache = "camellos.session.cache"
)

// cachedSession is a valid session as LoadSession last read it: the session
// row and its user, who was enabled and whose token key matched.
type cachedSession struct {
	id      string
	userID  string
	expires time.Time
	user    *core.Record // never handed out: each request gets a Clone
}

// sessionCache maps token hashes to cachedSession (a memo.Keyed: a lookup
// that read the database before a drop cannot store its answer, so a
// revoked session or a disabled user is never brought back).
type sessionCache = memo.Keyed[string, *cachedSession]

func sessionCacheOf(app core.App) *sessionCache {
	return app.Store().GetOrSet(storeKeySessionCache, func() any {
		return &sessionCache{MaxCost: sessionCacheMax, MaxAge: sessionCacheMaxAge}
	}).(*sessionCache)
}

// dropSessions forgets the cached sessions that match, now and, inside a
// transaction, again once it ends (a lookup in between reads the rows as
// they were before the commit).
func dropSessions(app core.App, match func(hash string, s *cachedSession) bool) {
	c := sessionCacheOf(app)
	c.DropWhere(match)
	if tx := app.TxInfo(); tx != nil {
		tx.OnComplete(func(error) error { c.DropWhere(match); return nil })
	}
}

func dropTokenHash(app core.App, hash string) {
	dropSessions(app, func(h string, _ *cachedSession) bool { return h == hash })
}

func dropUserSessions(app core.App, userID string) {
	dropSessions(app, func(_ string, s *cachedSession) bool { return s.userID == userID })
}

// BindSessionCache drops the cached sessions of a user after every
// committed write of that user (disabled, password, token key, role, any
// field e.Auth shows) and of a session written around RevokeSession and
// RevokeUserSessions (the dashboard).
func BindSessionCache(app core.App) {
	bus.Of(app).UserChanged.BindFunc(func(e *bus.Change) error {
		dropUserSessions(e.App, e.Record.Id)
		return e.Next()
	})
	// A commit by another process (raw SQL, the CLI) to sessions or users
	// may revoke any session.
	readmodel.Declare(app, readmodel.Projection{
		Name: "sessions", Tables: []string{Collection, users.Collection},
		Bound:  "20,000 sessions (LRU)",
		MaxAge: sessionCacheMaxAge,
		Drop:   sessionCacheOf(app).DropAll,
	})
	readmodel.OnWrite(app, Collection, func(w readmodel.Write) {
		dropTokenHash(w.App, w.Record.GetString("tokenHash"))
		dropUserSessions(w.App, w.Record.GetString("user"))
	})
}

// lookupSession returns the valid session of a token hash with its user,
// from the cache or from the database (then cached); nil when the token is
// unknown, expired or revoked, the user disabled or its token key changed.
func lookupSession(app core.App, hash string) *cachedSession {
	now := time.Now()
	c := sessionCacheOf(app)
	s, _, _ := c.Get(hash, func() (*cachedSession, bool, error) {
		s := readSession(app, hash, now)
		return s, s != nil && !s.expires.IsZero(), nil // without a known expiry: valid now, not kept
	})
	if s != nil && !s.expires.IsZero() && !now.Before(s.expires) {
		c.Drop(hash) // expired while kept
		return nil
	}
	return s
}

// readSession reads the valid session of a token hash with its user (nil:
// none valid at now).
func readSession(app core.App, hash string, now time.Time) *cachedSession {
	var row sessionRow
	err := app.DB().Select("id", "user", "userTokenKey", "expiresAt").From(Collection).
		Where(dbx.HashExp{"tokenHash": hash}).
		AndWhere(dbx.NewExp("expiresAt > {:now}", dbx.Params{"now": now.UTC().Format("2006-01-02 15:04:05.000Z")})).
		Limit(1).One(&row)
	if err != nil {
		return nil
	}
	user, err := app.FindRecordById(users.Collection, row.User)
	if err != nil || users.Wrap(user).Disabled() || user.TokenKey() != row.UserTokenKey {
		return nil
	}
	s := &cachedSession{id: row.ID, userID: user.Id, user: user}
	if expires, err := types.ParseDateTime(row.ExpiresAt); err == nil {
		s.expires = expires.Time()
	}
	return s
}
