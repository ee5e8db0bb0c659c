package pb_migrations

import (
	"camellos/modules/files"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Stored files that break the upload policy (issue 21: a camello photo or
// a message photo uploaded before the policy read image headers, e.g. a
// PNG claiming 1,000,000 × 1,000,000 pixels) are quarantined: moved to
// quarantine/<collection>/<record>/<file> in the storage, removed from
// their record and listed in file_quarantine (see files.Quarantine). Down
// does not put them back: an operator restores one by hand if ever needed.
func init() {
	m.Register(func(app core.App) error {
		_, err := files.Quarantine(app)
		return err
	}, nil)
}
