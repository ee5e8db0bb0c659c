// Package pb_migrations holds the Go migrations of every Camellos collection,
// index and API rule. Importing it registers them with PocketBase; the
// service applies them on start (serve) and the CLI commands before they run.
package pb_migrations

import (
	"camellos/internal/bounds"

	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// Every collection is created with all API rules nil: only superusers (the
// dashboard) reach it through /api/collections. Our /api routes are the
// public face and enforce roles and field visibility.

func text(name string, min, max int, required bool) *core.TextField {
	return &core.TextField{Name: name, Min: min, Max: max, Required: required}
}

func hiddenText(name string, max int) *core.TextField {
	return &core.TextField{Name: name, Max: max, Hidden: true}
}

func relation(name, collectionID string, required, cascade bool) *core.RelationField {
	return &core.RelationField{Name: name, CollectionId: collectionID, MaxSelect: 1, Required: required, CascadeDelete: cascade}
}

func number(name string, min, max *float64, onlyInt bool) *core.NumberField {
	return &core.NumberField{Name: name, Min: min, Max: max, OnlyInt: onlyInt}
}

func timestamps(c *core.Collection, updated bool) {
	c.Fields.Add(&core.AutodateField{Name: "created", OnCreate: true})
	if updated {
		c.Fields.Add(&core.AutodateField{Name: "updated", OnCreate: true, OnUpdate: true})
	}
}

func closed(c *core.Collection) *core.Collection {
	c.ListRule, c.ViewRule, c.CreateRule, c.UpdateRule, c.DeleteRule = nil, nil, nil, nil, nil
	return c
}

func presentable(f *core.TextField) *core.TextField {
	f.Presentable = true
	return f
}

func init() {
	m.Register(func(app core.App) error {
		// users: the built-in auth collection, closed and given our fields.
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}
		closed(users)
		users.AuthRule = nil
		users.ManageRule = nil
		users.PasswordAuth.Enabled = false // sign-in is ours: POST /api/auth/login
		users.OAuth2.Enabled = false
		users.OTP.Enabled = false
		users.MFA.Enabled = false
		if f, ok := users.Fields.GetByName("name").(*core.TextField); ok {
			f.Max = bounds.NameMax
			f.Presentable = true
		}
		users.Fields.Add(&core.SelectField{Name: "role", Values: []string{"ADMIN", "CAMELLOS", "CLIENTE"}, MaxSelect: 1, Required: true})
		users.Fields.Add(text("phone", 0, bounds.PhoneMax, false))
		users.Fields.Add(text("city", 0, bounds.CityMax, false))
		users.Fields.Add(&core.BoolField{Name: "disabled"})
		users.AddIndex("idx_users_role", false, "role", "")
		if err := app.Save(users); err != nil {
			return err
		}

		sessions := closed(core.NewBaseCollection("sessions", "camellos_sessions"))
		sessions.Fields.Add(relation("user", users.Id, true, true))
		sessions.Fields.Add(&core.TextField{Name: "tokenHash", Required: true, Max: 64, Hidden: true})
		sessions.Fields.Add(hiddenText("userTokenKey", 100))
		sessions.Fields.Add(&core.DateField{Name: "expiresAt", Required: true})
		sessions.Fields.Add(text("ip", 0, bounds.IPMax, false))
		sessions.Fields.Add(text("userAgent", 0, bounds.UserAgentMax, false))
		timestamps(sessions, false)
		sessions.AddIndex("idx_sessions_token", true, "tokenHash", "")
		sessions.AddIndex("idx_sessions_user", false, "user", "")
		if err := app.Save(sessions); err != nil {
			return err
		}

		zero, one, five := 0.0, 1.0, 5.0

		categories := closed(core.NewBaseCollection("categories", "camellos_categories"))
		categories.Fields.Add(&core.TextField{
			Name: "id", PrimaryKey: true, System: true, Required: true,
			Min: 3, Max: 50, Pattern: `^[a-z0-9_-]+$`, AutogeneratePattern: `[a-z0-9]{15}`,
		})
		categories.Fields.Add(presentable(text("name", bounds.CategoryNameMin, bounds.CategoryNameMax, true)))
		categories.Fields.Add(hiddenText("nameKey", 200))
		categories.Fields.Add(text("description", 0, bounds.CategoryDescriptionMax, false))
		categories.Fields.Add(&core.TextField{Name: "color", Max: 7, Pattern: `^#[0-9A-Fa-f]{6}$`})
		categories.Fields.Add(text("icon", 0, bounds.CategoryIconMax, false))
		categories.Fields.Add(number("sortOrder", &zero, nil, true))
		timestamps(categories, true)
		categories.AddIndex("idx_categories_name_key", true, "nameKey", "")
		categories.AddIndex("idx_categories_order", false, "sortOrder, name", "")
		if err := app.Save(categories); err != nil {
			return err
		}

		services := closed(core.NewBaseCollection("services", "camellos_services"))
		services.Fields.Add(presentable(text("name", bounds.ServiceNameMin, bounds.ServiceNameMax, true)))
		services.Fields.Add(&core.TextField{Name: "slug", Required: true, Max: bounds.ServiceSlugMax, Pattern: `^[a-z0-9]+(?:-[a-z0-9]+)*$`})
		services.Fields.Add(relation("category", categories.Id, true, false))
		services.Fields.Add(text("description", 0, bounds.ServiceDescriptionMax, false))
		timestamps(services, true)
		services.AddIndex("idx_services_slug", true, "slug", "")
		services.AddIndex("idx_services_category", false, "category", "")
		if err := app.Save(services); err != nil {
			return err
		}

		camellos := closed(core.NewBaseCollection("camellos", "camellos_camellos"))
		camellos.Fields.Add(relation("user", users.Id, true, true))
		camellos.Fields.Add(presentable(text("name", bounds.NameMin, bounds.NameMax, true)))
		camellos.Fields.Add(&core.JSONField{Name: "trades", MaxSize: 64 << 10})
		camellos.Fields.Add(&core.SelectField{Name: "status", Values: []string{"PENDIENTE", "ACTIVO", "RECHAZADO", "SUSPENDIDO"}, MaxSelect: 1, Required: true})
		camellos.Fields.Add(&core.BoolField{Name: "premium"})
		camellos.Fields.Add(&core.RelationField{Name: "services", CollectionId: services.Id, MaxSelect: 50})
		camellos.Fields.Add(text("documentId", 0, bounds.DocumentIDMax, false))
		camellos.Fields.Add(text("phone", bounds.PhoneMin, bounds.PhoneMax, true))
		camellos.Fields.Add(text("city", bounds.CityMin, bounds.CityMax, true))
		camellos.Fields.Add(text("neighborhood", 0, bounds.NeighborhoodMax, false))
		camellos.Fields.Add(text("professionalCard", 0, bounds.ProfessionalCardMax, false))
		camellos.Fields.Add(&core.FileField{
			Name: "photo", MaxSelect: 1, MaxSize: 5 << 20,
			MimeTypes: []string{"image/jpeg", "image/png", "image/webp"},
		})
		camellos.Fields.Add(text("notes", 0, bounds.CamelloNotesMax, false))
		camellos.Fields.Add(text("description", 0, bounds.CamelloDescriptionMax, false))
		camellos.Fields.Add(text("timezone", 0, bounds.TimezoneMax, false))
		camellos.Fields.Add(number("ratingAvg", &zero, &five, false))
		camellos.Fields.Add(number("ratingCount", &zero, nil, true))
		// Folded (lower-case, accent-free) copies for fast, accent-insensitive filters.
		camellos.Fields.Add(hiddenText("searchText", 20000))
		camellos.Fields.Add(hiddenText("cityKey", 200))
		timestamps(camellos, true)
		camellos.AddIndex("idx_camellos_user", true, "user", "")
		camellos.AddIndex("idx_camellos_listing", false, "status, premium DESC, ratingAvg DESC, created DESC", "")
		camellos.AddIndex("idx_camellos_city", false, "status, cityKey", "")
		camellos.AddIndex("idx_camellos_photo", false, "photo", "photo != ''")
		if err := app.Save(camellos); err != nil {
			return err
		}

		jobs := closed(core.NewBaseCollection("jobs", "camellos_jobs"))
		jobs.Fields.Add(presentable(text("title", bounds.JobTitleMin, bounds.JobTitleMax, true)))
		jobs.Fields.Add(text("description", 0, bounds.JobDescriptionMax, false))
		jobs.Fields.Add(&core.SelectField{Name: "status", Values: []string{"PENDIENTE", "ASIGNADO", "EN_PROGRESO", "COMPLETADO", "CANCELADO"}, MaxSelect: 1, Required: true})
		jobs.Fields.Add(&core.SelectField{Name: "source", Values: []string{"EXPLORE", "PERFIL", "ADMIN"}, MaxSelect: 1, Required: true})
		jobs.Fields.Add(text("city", 0, bounds.CityMax, false))
		jobs.Fields.Add(text("neighborhood", 0, bounds.NeighborhoodMax, false))
		jobs.Fields.Add(relation("service", services.Id, true, false))
		jobs.Fields.Add(relation("client", users.Id, true, true))
		jobs.Fields.Add(relation("provider", camellos.Id, false, false))
		timestamps(jobs, true)
		jobs.AddIndex("idx_jobs_status", false, "status, created", "")
		jobs.AddIndex("idx_jobs_client", false, "client, created", "")
		jobs.AddIndex("idx_jobs_provider", false, "provider, created", "")
		if err := app.Save(jobs); err != nil {
			return err
		}

		reviews := closed(core.NewBaseCollection("reviews", "camellos_reviews"))
		reviews.Fields.Add(relation("job", jobs.Id, true, true))
		reviews.Fields.Add(relation("camello", camellos.Id, true, true))
		reviews.Fields.Add(relation("client", users.Id, true, true))
		reviews.Fields.Add(&core.NumberField{Name: "rating", Min: &one, Max: &five, OnlyInt: true, Required: true})
		reviews.Fields.Add(text("comment", 0, bounds.ReviewCommentMax, false))
		timestamps(reviews, false)
		reviews.AddIndex("idx_reviews_job", true, "job", "")
		reviews.AddIndex("idx_reviews_camello", false, "camello, created", "")
		if err := app.Save(reviews); err != nil {
			return err
		}

		appointments := closed(core.NewBaseCollection("appointments", "camellos_appointments"))
		appointments.Fields.Add(relation("job", jobs.Id, true, true))
		appointments.Fields.Add(relation("camello", camellos.Id, true, true))
		appointments.Fields.Add(relation("client", users.Id, true, true))
		appointments.Fields.Add(&core.DateField{Name: "start", Required: true, Presentable: true})
		appointments.Fields.Add(&core.DateField{Name: "end", Required: true})
		appointments.Fields.Add(&core.SelectField{Name: "status", Values: []string{"PROGRAMADA", "CANCELADA", "COMPLETADA"}, MaxSelect: 1, Required: true})
		appointments.Fields.Add(&core.DateField{Name: "reminderSentAt"})
		timestamps(appointments, true)
		appointments.AddIndex("idx_appointments_camello_start", false, "camello, start", "")
		appointments.AddIndex("idx_appointments_client_start", false, "client, start", "")
		appointments.AddIndex("idx_appointments_job", false, "job", "")
		// One PROGRAMADA appointment per camello and start: the database itself
		// refuses a double booking, whatever path writes it.
		appointments.AddIndex("idx_appointments_booked_slot", true, "camello, start", "status = 'PROGRAMADA'")
		// Appointments due for a reminder.
		appointments.AddIndex("idx_appointments_reminder_due", false, "start", "status = 'PROGRAMADA' AND reminderSentAt = ''")
		if err := app.Save(appointments); err != nil {
			return err
		}

		availability := closed(core.NewBaseCollection("availability", "camellos_availability"))
		availability.Fields.Add(relation("camello", camellos.Id, true, true))
		availability.Fields.Add(text("timezone", 1, bounds.TimezoneMax, true))
		availability.Fields.Add(&core.JSONField{Name: "weekly", MaxSize: 64 << 10})
		availability.Fields.Add(&core.JSONField{Name: "blockedDates", MaxSize: 64 << 10})
		timestamps(availability, true)
		availability.AddIndex("idx_availability_camello", true, "camello", "")
		if err := app.Save(availability); err != nil {
			return err
		}

		notifications := closed(core.NewBaseCollection("notifications", "camellos_notifications"))
		notifications.Fields.Add(relation("user", users.Id, true, true))
		notifications.Fields.Add(&core.SelectField{Name: "kind", MaxSelect: 1, Required: true, Values: []string{
			"JOB_ASSIGNED", "JOB_CANCELLED", "JOB_STATUS", "APPOINTMENT_BOOKED", "APPOINTMENT_REMINDER", "CAMELLO_STATUS", "ADMIN_MESSAGE",
		}})
		notifications.Fields.Add(presentable(text("title", bounds.NotificationTitleMin, bounds.NotificationTitleMax, true)))
		notifications.Fields.Add(text("body", 0, bounds.NotificationBodyMax, false))
		notifications.Fields.Add(text("url", 0, bounds.URLMax, false))
		notifications.Fields.Add(&core.JSONField{Name: "data", MaxSize: 16 << 10})
		notifications.Fields.Add(&core.DateField{Name: "readAt"})
		timestamps(notifications, false)
		notifications.AddIndex("idx_notifications_user", false, "user, created DESC", "")
		notifications.AddIndex("idx_notifications_unread", false, "user", "readAt = ''")
		if err := app.Save(notifications); err != nil {
			return err
		}

		prefs := closed(core.NewBaseCollection("notification_preferences", "camellos_notif_prefs"))
		prefs.Fields.Add(relation("user", users.Id, true, true))
		prefs.Fields.Add(&core.JSONField{Name: "prefs", MaxSize: 16 << 10})
		timestamps(prefs, true)
		prefs.AddIndex("idx_notification_preferences_user", true, "user", "")
		if err := app.Save(prefs); err != nil {
			return err
		}

		push := closed(core.NewBaseCollection("push_subscriptions", "camellos_push_subs"))
		push.Fields.Add(relation("user", users.Id, true, true))
		push.Fields.Add(&core.TextField{Name: "endpoint", Required: true, Max: bounds.URLMax, Presentable: true})
		push.Fields.Add(&core.TextField{Name: "p256dh", Required: true, Max: 200, Hidden: true})
		push.Fields.Add(&core.TextField{Name: "auth", Required: true, Max: 100, Hidden: true})
		push.Fields.Add(text("userAgent", 0, bounds.UserAgentMax, false))
		timestamps(push, true)
		push.AddIndex("idx_push_subscriptions_endpoint", true, "endpoint", "")
		push.AddIndex("idx_push_subscriptions_user", false, "user", "")
		if err := app.Save(push); err != nil {
			return err
		}

		legal := closed(core.NewBaseCollection("legal_documents", "camellos_legal_docs"))
		legal.Fields.Add(&core.SelectField{Name: "slug", Values: []string{"privacidad", "terminos"}, MaxSelect: 1, Required: true, Presentable: true})
		legal.Fields.Add(text("title", bounds.LegalTitleMin, bounds.LegalTitleMax, true))
		legal.Fields.Add(&core.JSONField{Name: "sections", MaxSize: 4 << 20})
		legal.Fields.Add(number("version", &one, nil, true))
		legal.Fields.Add(relation("publishedBy", users.Id, false, false))
		timestamps(legal, true)
		legal.AddIndex("idx_legal_documents_slug", true, "slug", "")
		if err := app.Save(legal); err != nil {
			return err
		}

		// Every published version, immutable.
		legalVersions := closed(core.NewBaseCollection("legal_document_versions", "camellos_legal_versions"))
		legalVersions.Fields.Add(&core.SelectField{Name: "slug", Values: []string{"privacidad", "terminos"}, MaxSelect: 1, Required: true, Presentable: true})
		legalVersions.Fields.Add(number("version", &one, nil, true))
		legalVersions.Fields.Add(text("title", bounds.LegalTitleMin, bounds.LegalTitleMax, true))
		legalVersions.Fields.Add(&core.JSONField{Name: "sections", MaxSize: 4 << 20})
		legalVersions.Fields.Add(relation("publishedBy", users.Id, false, false))
		timestamps(legalVersions, false)
		legalVersions.AddIndex("idx_legal_versions_slug_version", true, "slug, version", "")
		if err := app.Save(legalVersions); err != nil {
			return err
		}

		acceptances := closed(core.NewBaseCollection("legal_acceptances", "camellos_legal_accept"))
		acceptances.Fields.Add(relation("user", users.Id, true, true))
		acceptances.Fields.Add(&core.SelectField{Name: "slug", Values: []string{"privacidad", "terminos"}, MaxSelect: 1, Required: true})
		acceptances.Fields.Add(number("version", &zero, nil, true))
		acceptances.Fields.Add(text("ip", 0, bounds.IPMax, false))
		acceptances.Fields.Add(text("userAgent", 0, bounds.UserAgentMax, false))
		timestamps(acceptances, false)
		acceptances.AddIndex("idx_legal_acceptances_user", false, "user, slug, version", "")
		if err := app.Save(acceptances); err != nil {
			return err
		}

		// Small key/value store for service secrets (e.g. generated VAPID keys).
		kv := closed(core.NewBaseCollection("app_kv", "camellos_app_kv"))
		kv.Fields.Add(&core.TextField{Name: "key", Required: true, Max: 100, Presentable: true})
		kv.Fields.Add(&core.TextField{Name: "value", Max: 10000, Hidden: true})
		timestamps(kv, true)
		kv.AddIndex("idx_app_kv_key", true, "key", "")
		return app.Save(kv)
	}, func(app core.App) error {
		for _, name := range []string{
			"app_kv", "legal_acceptances", "legal_document_versions", "legal_documents",
			"push_subscriptions", "notification_preferences", "notifications", "availability",
			"appointments", "reviews", "jobs", "camellos", "services", "categories", "sessions",
		} {
			c, err := app.FindCollectionByNameOrId(name)
			if err != nil {
				continue
			}
			if err := app.Delete(c); err != nil {
				return err
			}
		}
		return nil
	})
}
