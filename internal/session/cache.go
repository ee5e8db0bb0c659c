package session

import (
	"sync"
	"time"

	"camellos/internal/bus"
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
	// sessionCacheMax bounds the sessions kept: past it, all are dropped.
	sessionCacheMax = 20000

	storeKeySessionCache = "camellos.session.cache"
)

// cachedSession is a valid session as LoadSession last read it: the session
// row and its user, who was enabled and whose token key matched.
type cachedSession struct {
	id       string
	userID   string
	expires  time.Time
	user     *core.Record // never handed out: each request gets a Clone
	cachedAt time.Time
}

// sessionCache maps token hashes to cachedSession. Every drop bumps gen; a
// lookup that read the database before a drop cannot store its answer
// (put compares the gen it saw before reading), so a revoked session or a
// disabled user is never brought back.
type sessionCache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*cachedSession
}

func sessionCacheOf(app core.App) *sessionCache {
	return app.Store().GetOrSet(storeKeySessionCache, func() any {
		return &sessionCache{m: map[string]*cachedSession{}}
	}).(*sessionCache)
}

// get returns the usable cached session of a token hash (nil when absent,
// expired or too old) and the generation to pass to put.
func (c *sessionCache) get(hash string, now time.Time) (*cachedSession, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.m[hash]
	if s != nil && (!now.Before(s.expires) || now.Sub(s.cachedAt) > sessionCacheMaxAge) {
		delete(c.m, hash)
		s = nil
	}
	return s, c.gen
}

// put keeps s unless a drop happened since get returned gen.
func (c *sessionCache) put(hash string, s *cachedSession, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if len(c.m) >= sessionCacheMax {
		c.m = map[string]*cachedSession{}
	}
	c.m[hash] = s
}

// drop forgets the sessions that match.
func (c *sessionCache) drop(match func(hash string, s *cachedSession) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for h, s := range c.m {
		if match(h, s) {
			delete(c.m, h)
		}
	}
}

// dropSessions forgets the cached sessions that match, now and, inside a
// transaction, again once it ends (a lookup in between reads the rows as
// they were before the commit).
func dropSessions(app core.App, match func(hash string, s *cachedSession) bool) {
	c := sessionCacheOf(app)
	c.drop(match)
	if tx := app.TxInfo(); tx != nil {
		tx.OnComplete(func(error) error { c.drop(match); return nil })
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
		Bound:  "20,000 sessions (all dropped past it)",
		MaxAge: sessionCacheMaxAge,
		Drop:   func() { sessionCacheOf(app).drop(func(string, *cachedSession) bool { return true }) },
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
	s, gen := c.get(hash, now)
	if s != nil {
		return s
	}
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
	s = &cachedSession{id: row.ID, userID: user.Id, user: user, cachedAt: now}
	expires, err := types.ParseDateTime(row.ExpiresAt)
	if err != nil || expires.IsZero() {
		return s // valid now, not kept
	}
	s.expires = expires.Time()
	c.put(hash, s, gen)
	return s
}
