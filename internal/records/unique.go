package records

import (
	"errors"
	"strings"

	validation "github.com/go-ozzo/ozzo-validation/v4"
)

// IsUniqueViolation reports whether err is a unique index refusing a
// write, as PocketBase's record validation reports it (a
// validation_not_unique field error) or as SQLite does when a racing write
// reaches the index.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return true
	}
	var verrs validation.Errors
	if errors.As(err, &verrs) {
		for _, fe := range verrs {
			var ve validation.Error
			if errors.As(fe, &ve) && ve.Code() == "validation_not_unique" {
				return true
			}
		}
	}
	return false
}
