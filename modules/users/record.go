package users

import (
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// User is a typed users record.
type User struct {
	core.BaseRecordProxy
}

// Wrap returns rec as a User.
func Wrap(rec *core.Record) *User {
	u := &User{}
	u.SetProxyRecord(rec)
	return u
}

// Find loads a user by id with app.
func Find(app core.App, id string) (*User, error) {
	rec, err := app.FindRecordById(Collection, id)
	if err != nil {
		return nil, err
	}
	return Wrap(rec), nil
}

// Name is the user's display name.
func (u *User) Name() string { return u.GetString(FieldName) }

// Role is ADMIN, CAMELLOS or CLIENTE.
func (u *User) Role() string { return u.GetString(FieldRole) }

// Phone is the user's phone ("" when not given).
func (u *User) Phone() string { return u.GetString(FieldPhone) }

// City is the user's city ("" when not given).
func (u *User) City() string { return u.GetString(FieldCity) }

// Disabled reports whether an admin disabled the user.
func (u *User) Disabled() bool { return u.GetBool(FieldDisabled) }

// IsAdmin reports whether the user is an enabled ADMIN.
func (u *User) IsAdmin() bool { return u.Role() == RoleAdmin && !u.Disabled() }

// Updated is when the user was last saved.
func (u *User) Updated() types.DateTime { return u.GetDateTime(FieldUpdated) }

// Created is when the user signed up.
func (u *User) Created() types.DateTime { return u.GetDateTime(FieldCreated) }
