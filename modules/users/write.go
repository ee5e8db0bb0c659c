package users

import (
	"database/sql"
	"errors"
	"strings"

	"camellos/internal/httpapi"

	validation "github.com/go-ozzo/ozzo-validation/v4"
	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// The users' writes: every create, save and delete of a users record is
// one of these commands (modules/ownership_test.go refuses any other).
// Commands take the app to write with, which may be a transaction.

// MsgEmailTaken is the 409 answer for an e-mail already registered.
const MsgEmailTaken = "El correo ya está registrado"

// ErasedName is the name an erased account keeps.
const ErasedName = "Usuario eliminado"

// NormalizeEmail trims and lower-cases an address for storage, uniqueness
// and login.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// EmailTaken reports whether an address is already registered.
func EmailTaken(app core.App, email string) bool {
	_, err := FindByEmail(app, NormalizeEmail(email))
	return err == nil
}

// FindByEmail is the user whose e-mail is email (compared as stored, like
// PocketBase's FindAuthRecordByEmail; sql.ErrNoRows when none). Every
// lookup of a user by e-mail goes through it: PocketBase's own query
// (email = ?) cannot use the collection's unique e-mail index, which is
// partial (WHERE email != ”), so it scanned the whole users table — at
// 1,100,000 users every sign-up (two lookups) and every sign-in took a
// full scan, and registration fell to 3 requests/s. The extra term makes
// the index usable (SQLite uses a partial index only when the query's
// WHERE contains the index's own condition).
func FindByEmail(app core.App, email string) (*core.Record, error) {
	if email == "" {
		return nil, sql.ErrNoRows
	}
	rec := &core.Record{}
	if err := byEmail(app, email).One(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// byEmail is FindByEmail's query.
func byEmail(app core.App, email string) *dbx.SelectQuery {
	return app.RecordQuery(Collection).
		AndWhere(dbx.HashExp{core.FieldNameEmail: email}).
		AndWhere(dbx.NewExp("[[" + core.FieldNameEmail + "]] != ''")).
		Limit(1)
}

// New is a user to create.
type New struct {
	Email, Name, Phone, City, Role, Password string
}

// Prepare builds (without saving) a user. The password hash, the slow
// part, is computed here, so callers do it before opening a write
// transaction (and within httpapi.HashSlot).
func Prepare(app core.App, n New) (*User, error) {
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return nil, err
	}
	u := Wrap(core.NewRecord(col))
	u.SetEmail(n.Email)
	u.Set(FieldName, n.Name)
	u.Set(FieldPhone, n.Phone)
	u.Set(FieldCity, n.City)
	u.Set(FieldRole, n.Role)
	SetPassword(u.Record, n.Password)
	return u, nil
}

// Create saves a prepared user with app (which may be a transaction); an
// e-mail already registered is a 409.
func Create(app core.App, u *User) error {
	if EmailTaken(app, u.Email()) {
		return httpapi.Conflict(MsgEmailTaken)
	}
	if err := app.Save(u); err != nil {
		return mapUniqueEmail(err)
	}
	return nil
}

// mapUniqueEmail turns the unique-email failure of a racing insert into 409.
func mapUniqueEmail(err error) error {
	var verrs validation.Errors
	if errors.As(err, &verrs) {
		if e, ok := verrs["email"].(validation.Error); ok && strings.Contains(e.Code(), "unique") {
			return httpapi.Conflict(MsgEmailTaken)
		}
	}
	if strings.Contains(err.Error(), "UNIQUE constraint failed") && strings.Contains(err.Error(), "email") {
		return httpapi.Conflict(MsgEmailTaken)
	}
	return err
}

// Change lists the fields a command changes; nil leaves a field as it is.
// A new password is set beforehand with SetPassword (it is hashed, so
// outside the write transaction).
type Change struct {
	Name, Phone, City, Role *string
	Disabled, Verified      *bool
}

// Update applies c to u and saves it with app: the users' record hooks
// run (invariants, sessions revoked on disable or a new password).
func Update(app core.App, u *User, c Change) error {
	if c.Name != nil {
		u.Set(FieldName, *c.Name)
	}
	if c.Phone != nil {
		u.Set(FieldPhone, *c.Phone)
	}
	if c.City != nil {
		u.Set(FieldCity, *c.City)
	}
	if c.Role != nil {
		u.Set(FieldRole, *c.Role)
	}
	if c.Disabled != nil {
		u.Set(FieldDisabled, *c.Disabled)
	}
	if c.Verified != nil {
		u.SetVerified(*c.Verified)
	}
	return app.Save(u)
}

// Erase empties a user's personal fields and disables the account (the
// erasure's last part: other owners erased theirs before), then revokes
// every session.
func Erase(app core.App, u *User) error {
	u.Set(FieldName, ErasedName)
	u.SetEmail("")
	u.SetVerified(false)
	u.Set(FieldPhone, "")
	u.Set(FieldCity, "")
	u.Set(FieldDisabled, true)
	if u.Collection().Fields.GetByName(FieldAvatar) != nil {
		u.Set(FieldAvatar, nil)
	}
	if err := app.Save(u); err != nil {
		return err
	}
	return OnSignedOutEverywhere(app).Trigger(&SignedOut{App: app, UserID: u.Id})
}

// EnsureAdmin makes the user of email an enabled ADMIN with password (and
// name, when not ""), creating it when there is none; email is normalised
// and checked by the caller (the admin CLI).
func EnsureAdmin(app core.App, email, name, password string) (u *User, created bool, err error) {
	rec, err := FindByEmail(app, email)
	created = err != nil
	if created {
		col, err := app.FindCollectionByNameOrId(Collection)
		if err != nil {
			return nil, false, err
		}
		rec = core.NewRecord(col)
		rec.SetEmail(email)
	}
	u = Wrap(rec)
	u.Set(FieldRole, RoleAdmin)
	if name != "" {
		u.Set(FieldName, name)
	}
	u.Set(FieldDisabled, false)
	SetPassword(u.Record, password)
	if err := app.Save(u); err != nil {
		return nil, false, err
	}
	return u, created, nil
}

// DropAvatar removes name from the avatar of user id (the upload policy's
// quarantine: modules/files has copied the file aside); PocketBase deletes
// the stored file and its thumbnails after the save. Nothing happens when
// the avatar is another.
func DropAvatar(app core.App, id, name string) error {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return err
	}
	if rec.GetString(FieldAvatar) != name {
		return nil
	}
	rec.Set(FieldAvatar, nil)
	// Without validation: a record that no longer passes another field's
	// rule (older data) must not stop the quarantine; the update hooks run.
	return app.SaveNoValidate(rec)
}
