package pb_migrations

import (
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Abuse resistance (issue 14):
//   - PocketBase's own rate limiter is switched on for its auth routes
//     (the dashboard sign-in and every other collection auth action) and
//     for its password-reset and OTP requests; no other route gets a rule,
//     so our /api routes keep their own limits.
//   - camellos gain the review record of an approved camello's edits to
//     name, photo, document or description: reviewPending, reviewFields
//     (the names of the edited fields) and reviewSince.
func init() {
	m.Register(func(app core.App) error {
		settings := app.Settings()
		settings.RateLimits.Enabled = true
		settings.RateLimits.Rules = []core.RateLimitRule{
			{Label: "*:auth", MaxRequests: 10, Duration: 60},
			{Label: "*:requestOTP", MaxRequests: 3, Duration: 60},
			{Label: "*:requestPasswordReset", MaxRequests: 3, Duration: 60},
			{Label: "*:confirmPasswordReset", MaxRequests: 10, Duration: 60},
		}
		if err := app.Save(settings); err != nil {
			return err
		}

		camellos, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		camellos.Fields.Add(&core.BoolField{Name: "reviewPending"})
		camellos.Fields.Add(&core.JSONField{Name: "reviewFields", MaxSize: 4 << 10})
		camellos.Fields.Add(&core.DateField{Name: "reviewSince"})
		return app.Save(camellos)
	}, func(app core.App) error {
		settings := app.Settings()
		settings.RateLimits.Enabled = false
		if err := app.Save(settings); err != nil {
			return err
		}
		camellos, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		for _, f := range []string{"reviewPending", "reviewFields", "reviewSince"} {
			camellos.Fields.RemoveByName(f)
		}
		return app.Save(camellos)
	})
}
