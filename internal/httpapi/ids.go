package httpapi

import (
	"regexp"

	"github.com/pocketbase/pocketbase/core"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,50}$`)

// ValidID reports whether s can be an identifier: 1 to 50 of [A-Za-z0-9_-].
func ValidID(s string) bool { return idPattern.MatchString(s) }

// PathID reads a path parameter that must be an identifier; one that cannot
// be an id is a 400 with issues naming the parameter.
func PathID(e *core.RequestEvent, param string) (string, error) {
	id := e.Request.PathValue(param)
	if !ValidID(id) {
		return "", FieldError(param, "Identificador inválido")
	}
	return id, nil
}
