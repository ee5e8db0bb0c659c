package auth

import (
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/timefmt"
	"camellos/modules/users"

	"github.com/go-ozzo/ozzo-validation/v4/is"
	"github.com/pocketbase/pocketbase/core"
)

// MsgEmailTaken is the 409 answer for an e-mail already registered.
const MsgEmailTaken = users.MsgEmailTaken

// NormalizeEmail trims and lower-cases an address (users.NormalizeEmail).
func NormalizeEmail(s string) string { return users.NormalizeEmail(s) }

// UserJSON is the User object: never any password or token field.
func UserJSON(rec *core.Record) map[string]any {
	u := users.Wrap(rec)
	return map[string]any{
		"id":        u.Id,
		"email":     u.Email(),
		"role":      u.Role(),
		"name":      u.Name(),
		"phone":     u.Phone(),
		"city":      u.City(),
		"verified":  u.Verified(),
		"createdAt": timefmt.ISO(u.Created().Time()),
	}
}

// Account is the sign-up data shared by client and camello registration.
type Account struct {
	Name            string `json:"name"`
	Email           string `json:"email"`
	Phone           string `json:"phone"`
	Password        string `json:"password"`
	ConfirmPassword string `json:"confirmPassword"`
	AcceptTerms     *bool  `json:"acceptTerms"`
	City            string `json:"city"`
}

// Validate checks the account fields against the Limits table; phone and
// city are required when requireContact is set (camellos).
func (a *Account) Validate(v *httpapi.Validation, requireContact bool) {
	a.Name = strings.TrimSpace(a.Name)
	a.Email = NormalizeEmail(a.Email)
	a.Phone = strings.TrimSpace(a.Phone)
	a.City = strings.TrimSpace(a.City)
	httpapi.CheckName(v, "name", a.Name, bounds.NameMin, bounds.NameMax)
	if a.Email == "" {
		v.Add("email", "Es obligatorio")
	} else if text.Chars(a.Email) > bounds.EmailMax || is.EmailFormat.Validate(a.Email) != nil || !strings.Contains(a.Email, "@") {
		v.Add("email", "Correo electrónico inválido")
	} else if httpapi.MixedScript(a.Email) {
		v.Add("email", "Correo electrónico inválido: mezcla letras de alfabetos distintos")
	}
	CheckPhone(v, "phone", a.Phone, requireContact)
	if requireContact || a.City != "" {
		httpapi.CheckLength(v, "city", a.City, bounds.CityMin, bounds.CityMax)
	}
	CheckNewPassword(v, "password", a.Password, "confirmPassword", a.ConfirmPassword)
	if a.AcceptTerms == nil {
		v.Add("acceptTerms", "Es obligatorio")
	} else if !*a.AcceptTerms {
		v.Add("acceptTerms", "Debes aceptar los términos y condiciones")
	}
}

// CheckNewPassword validates a new password (8 to 128 characters) and its
// confirmation.
func CheckNewPassword(v *httpapi.Validation, field, password, confirmField, confirm string) {
	httpapi.CheckLength(v, field, password, bounds.PasswordMin, bounds.PasswordMax)
	if confirm == "" {
		v.Add(confirmField, "Es obligatorio")
	} else if confirm != password {
		v.Add(confirmField, "Las contraseñas no coinciden")
	}
}

// CheckPhone adds a field error unless phone is 7 to 32 characters of
// digits (at least 7), spaces, +, -, (, ) and dots; "" passes when the
// phone is not required.
func CheckPhone(v *httpapi.Validation, field, phone string, required bool) {
	if phone == "" && !required {
		return
	}
	if httpapi.CheckLength(v, field, phone, bounds.PhoneMin, bounds.PhoneMax) && !validPhone(phone) {
		v.Add(field, "Solo se permiten dígitos, espacios, +, -, ( y )")
	}
}

func validPhone(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == ' ' || r == '+' || r == '-' || r == '(' || r == ')' || r == '.':
		default:
			return false
		}
	}
	return digits >= 7
}
