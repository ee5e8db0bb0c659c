// Package users owns the users collection: its name, the roles of the
// service and the password derivation every path that sets or checks a
// password goes through.
package users

// Collection is the users collection (PocketBase auth collection).
const Collection = "users"

// Roles of the service.
const (
	RoleAdmin   = "ADMIN"
	RoleCamello = "CAMELLOS"
	RoleClient  = "CLIENTE"
)
