package users

import (
	"encoding/json"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// EmailOf is the e-mail address of a user, "" when the user is unknown.
func EmailOf(app core.App, id string) string {
	var row struct {
		Email string `db:"email"`
	}
	if err := app.DB().Select("email").From(Collection).Where(dbx.HashExp{"id": id}).Limit(1).One(&row); err != nil {
		return ""
	}
	return row.Email
}

// Enabled reports whether the user id exists and is not disabled (an
// erased account is disabled). Read with a transaction's app, the answer
// holds until that transaction ends: the outboxes check it in the same
// transaction as their insert, so a mail or a message can never be queued
// for an account erased meanwhile.
func Enabled(app core.App, id string) bool {
	var row struct {
		Disabled bool `db:"disabled"`
	}
	err := app.DB().Select("disabled").From(Collection).Where(dbx.HashExp{"id": id}).Limit(1).One(&row)
	return err == nil && !row.Disabled
}

// Current reports whether the user id exists, is enabled and still has
// tokenKey (no new password, no erasure since it was read). Read with a
// transaction's app, the answer holds until it ends: a session or a link
// is written only for the account as it was checked.
func Current(app core.App, id, tokenKey string) bool {
	var row struct {
		Disabled bool   `db:"disabled"`
		TokenKey string `db:"tokenKey"`
	}
	err := app.DB().Select("disabled", "tokenKey").From(Collection).Where(dbx.HashExp{"id": id}).Limit(1).One(&row)
	return err == nil && !row.Disabled && row.TokenKey == tokenKey
}

// DisabledAmong returns the ids among ids (distinct) of disabled users
// (erased accounts included), with one query. Read with a transaction's
// app, the answer holds until it ends (see Enabled).
func DisabledAmong(app core.App, ids []string) ([]string, error) {
	raw, _ := json.Marshal(ids)
	out := []string{}
	err := app.DB().NewQuery("SELECT id FROM " + Collection +
		" WHERE id IN (SELECT value FROM json_each({:ids})) AND disabled = TRUE").
		Bind(dbx.Params{"ids": string(raw)}).Column(&out)
	return out, err
}

// EnabledIDs returns the ids of the enabled users, ordered by id: those
// with role when role is not "", else those among ids.
func EnabledIDs(app core.App, role string, ids []string) ([]string, error) {
	q := app.DB().Select("id").From(Collection).Where(dbx.HashExp{"disabled": false}).OrderBy("id")
	if role != "" {
		q = q.AndWhere(dbx.HashExp{"role": role})
	} else {
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		q = q.AndWhere(dbx.In("id", args...))
	}
	out := []string{}
	err := q.Column(&out)
	return out, err
}

// CountExisting is how many of ids (distinct) are users, in one query.
func CountExisting(app core.App, ids []string) (int, error) {
	raw, _ := json.Marshal(ids)
	var n int
	err := app.DB().NewQuery("SELECT COUNT(*) FROM " + Collection +
		" WHERE id IN (SELECT value FROM json_each({:ids}))").Bind(dbx.Params{"ids": string(raw)}).Row(&n)
	return n, err
}

// Names returns the names of the users among ids, by id, in one query.
func Names(app core.App, ids []any) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID   string `db:"id"`
		Name string `db:"name"`
	}
	if err := app.DB().Select("id", "name").From(Collection).Where(dbx.In("id", ids...)).All(&rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

// NameSQL is the SQL expression of the name of the user whose id is idExpr
// ("" when there is none): how another owner's projection query (the open
// board) reads a name in the same statement. The owner writes the text.
func NameSQL(idExpr string) string {
	return "COALESCE((SELECT u.name FROM " + Collection + " u WHERE u.id = " + idExpr + "), '')"
}
