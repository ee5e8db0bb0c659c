package auth

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"time"

	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// ErasedName is the name an erased account keeps, so the other party's
// jobs, messages and reviews still read sensibly.
const ErasedName = users.ErasedName

// Messages of the account life cycle.
const (
	MsgLastAdmin = "Debe quedar al menos un administrador activo"
)

// meExport answers everything stored about the signed-in user as a JSON
// attachment: each owner module contributes its part through the export
// event; this module adds the user and the session metadata (never a
// password hash, a token or a token hash).
func meExport(e *core.RequestEvent) error {
	user, err := e.App.FindRecordById(users.Collection, session.AuthUser(e).Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	ev := &bus.Export{App: e.App, User: user, Data: map[string]any{}}
	err = bus.Of(e.App).UserExporting.Trigger(ev, func(ev *bus.Export) error {
		u := UserJSON(ev.User)
		u["disabled"] = users.Wrap(ev.User).Disabled()
		u["updatedAt"] = timefmt.ISO(users.Wrap(ev.User).Updated().Time())
		ev.Data["user"] = u
		sessions, err := sessionsOf(ev.App, ev.User.Id, tokenHash(session.SessionToken(e.Request)))
		if err != nil {
			return err
		}
		ev.Data["sessions"] = sessions
		return nil
	})
	if err != nil {
		return httpapi.Internal(err)
	}
	body := map[string]any{"exportedAt": timefmt.ISO(time.Now()), "format": "camellos-export-1"}
	for k, v := range ev.Data {
		body[k] = v
	}
	h := e.Response.Header()
	h.Set("Content-Disposition", `attachment; filename="camellos-mis-datos.json"`)
	h.Set("Cache-Control", "no-store")
	return e.JSON(http.StatusOK, body)
}

// sessionsOf lists the metadata of a user's sessions (current: the one
// whose token hash is currentHash; the hash itself is never listed).
func sessionsOf(app core.App, userID, currentHash string) ([]map[string]any, error) {
	var rows []struct {
		ID        string `db:"id"`
		TokenHash string `db:"tokenHash"`
		IP        string `db:"ip"`
		UserAgent string `db:"userAgent"`
		Created   string `db:"created"`
		ExpiresAt string `db:"expiresAt"`
	}
	err := app.DB().Select("id", "tokenHash", "ip", "userAgent", "created", "expiresAt").From(session.Collection).
		Where(dbx.HashExp{"user": userID}).OrderBy("created DESC").All(&rows)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(rows))
	for _, r := range rows {
		out = append(out, map[string]any{
			"id": r.ID, "ip": r.IP, "userAgent": r.UserAgent, "createdAt": isoText(r.Created),
			"expiresAt": isoText(r.ExpiresAt), "current": r.TokenHash == currentHash,
		})
	}
	return out, nil
}

type deleteMeInput struct {
	Password string `json:"password"`
}

// meDelete erases the signed-in user's account (Ley 1581 de 2012): the
// password is checked, then in one transaction every owner module erases
// its part (a job still ASIGNADO or EN_PROGRESO rolls it all back, 409)
// and the user keeps only the name "Usuario eliminado": e-mail, phone,
// city, password and sessions are gone and the account is disabled.
// Files (the camello photo) are removed after the commit.
func meDelete(l *limiters) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		var in deleteMeInput
		if err := httpapi.ReadJSON(e, &in); err != nil {
			return err
		}
		v := httpapi.NewValidation()
		if in.Password == "" {
			v.Add("password", "Es obligatorio")
		} else if text.Chars(in.Password) > 128 {
			v.Add("password", "Debe tener como máximo 128 caracteres")
		}
		if err := v.Err(); err != nil {
			return err
		}
		user, err := e.App.FindRecordById(users.Collection, session.AuthUser(e).Id)
		if err != nil {
			return httpapi.Unauthorized(httpapi.MsgUnauthenticated)
		}
		key := "erase|" + user.Id + "|" + e.RealIP()
		if err := throttled(e, l.erase, key, "Demasiados intentos fallidos, inténtalo más tarde"); err != nil {
			return err
		}
		release, err := httpapi.HashSlot(e) // bcrypt on the bounded pool
		if err != nil {
			return err
		}
		right := users.CheckPassword(user, in.Password)
		release()
		if !right {
			l.erase.fail(key)
			return httpapi.Unauthorized(MsgBadCredentials)
		}
		l.erase.reset(key)
		if users.Wrap(user).Role() == users.RoleAdmin && !users.Wrap(user).Disabled() {
			others, err := e.App.CountRecords(users.Collection, dbx.HashExp{"role": users.RoleAdmin, "disabled": false},
				dbx.Not(dbx.HashExp{"id": user.Id}))
			if err != nil {
				return httpapi.Internal(err)
			}
			if others == 0 {
				return httpapi.Conflict(MsgLastAdmin)
			}
		}
		// The new (random, never told) password is hashed before the
		// transaction: bcrypt is the slow part.
		buf := make([]byte, 32)
		if _, err := rand.Read(buf); err != nil {
			return httpapi.Internal(err)
		}
		if release, err = httpapi.HashSlot(e); err != nil {
			return err
		}
		users.SetPassword(user, base64.RawURLEncoding.EncodeToString(buf))
		release()

		ev := &bus.Erase{User: user}
		err = writer.Transaction(e.App, func(tx core.App) error {
			ev.App = tx
			return bus.Of(e.App).UserErasing.Trigger(ev, func(ev *bus.Erase) error {
				return eraseUser(ev.App, ev.User)
			})
		})
		if err != nil {
			return err
		}
		ev.RunAfterCommit()
		session.ClearSessionCookie(e)
		return e.JSON(http.StatusOK, map[string]any{"ok": true})
	}
}

// eraseUser is this module's part of an erasure, run last: sessions and
// links deleted, personal fields emptied, the account disabled.
func eraseUser(app core.App, user *core.Record) error {
	if err := dropUserTokens(app, user.Id); err != nil {
		return err
	}
	return users.Erase(app, users.Wrap(user))
}

// isoText formats a stored PocketBase date ("" stays "").
func isoText(s string) any {
	if s == "" {
		return nil
	}
	t, err := time.Parse("2006-01-02 15:04:05.000Z", s)
	if err != nil {
		return s
	}
	return timefmt.ISO(t)
}
