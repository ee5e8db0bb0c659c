package session

import (
	"time"

	"camellos/internal/bus"
	"camellos/internal/readmodel"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// cachedSession is a valid session as LoadSession last read it: the session
// row and its user, who was enabled and whose token key matched.
type cachedSession struct {
	id      string
	userID  string
	expires time.Time
	user    *core.Record // never handed out: each request gets a Clone
}

// sessions keeps the valid sessions LoadSession read, by token hash: a
// lookup that read the database before a drop cannot keep its answer, so a
// revoked session or a disabled user is never brought back. Writes of this
// process are seen at once (record hooks, bus.UserChanged); commits of
// other processes (raw SQL, the CLI) on the next request (internal/dbwatch):
// the maximum age is a second line.
var sessions = readmodel.Keyed[string, *cachedSession]{
	Name: "sessions", Tables: []string{Collection, users.Collection},
	Bound: "20,000 sessions (LRU)", MaxCost: 20000, MaxAge: 15 * time.Second,
	Load: func(app core.App, hash string) (*cachedSession, bool, error) {
		s := readSession(app, hash, time.Now())
		return s, s != nil && !s.expires.IsZero(), nil // without a known expiry: valid now, not kept
	},
}

func dropTokenHash(app core.App, hash string) { sessions.Drop(app, hash) }

func dropUserSessions(app core.App, userID string) {
	sessions.DropWhere(app, func(_ string, s *cachedSession) bool { return s.userID == userID })
}

// BindSessionCache drops the cached sessions of a user after every
// committed write of that user (disabled, password, token key, role, any
// field e.Auth shows) and of a session written around RevokeSession and
// RevokeUserSessions (the dashboard).
func BindSessionCache(app core.App) {
	sessions.Declare(app)
	bus.Of(app).UserChanged.BindFunc(func(e *bus.Change) error {
		dropUserSessions(e.App, e.Record.Id)
		return e.Next()
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
	s, _, _ := sessions.Get(app, hash)
	if s != nil && !s.expires.IsZero() && !time.Now().Before(s.expires) {
		sessions.Of(app).Drop(hash) // expired while kept
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
