package hardening

// PasswordRoutes are the routes that check or set a password, with a call
// that does so (a wrong password, a bogus token...) as the given role. Each
// one must answer 429 with Retry-After once its client IP used up
// AUTH_IP_LIMIT (limits_test.go); a route of the contract that is not
// registered yet is skipped until its branch is merged. A new route that
// checks or sets a password gets a row here and binds
// ratelimit.AuthIPGuard().
var PasswordRoutes = map[string]struct {
	Role  Role
	Build func(w *World) Call
}{
	"POST /api/auth/login": {Anonymous, func(w *World) Call {
		return Call{Body: map[string]any{"email": w.Users[Client].Email(), "password": "no-es-la-clave"}}
	}},
	"POST /api/auth/register": {Anonymous, func(w *World) Call {
		return Call{Body: map[string]any{"name": "Cliente Nuevo", "email": "limite" + Unique() + "@example.com",
			"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true}}
	}},
	"POST /api/register/camello": {Anonymous, func(w *World) Call {
		return Call{Body: map[string]any{"name": "Camello Nuevo", "email": "limite" + Unique() + "@example.com", "phone": "3001234567",
			"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true, "city": "Cali", "trades": []string{"pintura"}}}
	}},
	"PATCH /api/me": {Client, func(w *World) Call {
		return Call{Body: map[string]any{"password": "nueva-clave-1", "confirmPassword": "nueva-clave-1", "currentPassword": "no-es-la-clave"}}
	}},
	"POST /api/auth/password/reset": {Anonymous, func(w *World) Call {
		return Call{Body: map[string]any{"token": "token-inventado", "password": "nueva-clave-1", "confirmPassword": "nueva-clave-1"}}
	}},
	"DELETE /api/me": {Client, func(w *World) Call {
		return Call{Body: map[string]any{"password": "no-es-la-clave"}}
	}},
}
