package pb_migrations

import (
	camellostext "camellos/internal/text"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	m "github.com/pocketbase/pocketbase/migrations"
)

// The marketplace loop (issue 11): a job's address and agreed price, the
// quotes camellos send on open jobs, the job conversation with private
// photos, and the notification kinds they raise.
func init() {
	m.Register(func(app core.App) error {
		jobs, err := app.FindCollectionByNameOrId("jobs")
		if err != nil {
			return err
		}
		camellos, err := app.FindCollectionByNameOrId("camellos")
		if err != nil {
			return err
		}
		users, err := app.FindCollectionByNameOrId("users")
		if err != nil {
			return err
		}

		// jobs: where the work is (only its parties see it), the agreed price
		// in COP (0 = none yet) and a folded city for the open board's filter.
		jobs.Fields.Add(text("address", 0, 200, false))
		zero := 0.0
		jobs.Fields.Add(number("priceAmount", &zero, nil, true))
		jobs.Fields.Add(hiddenText("cityKey", 200))
		// The open board: PENDIENTE jobs without provider of some services, newest first.
		jobs.AddIndex("idx_jobs_open", false, "service, created", "status = 'PENDIENTE' AND provider = ''")
		if err := app.Save(jobs); err != nil {
			return err
		}
		if err := backfillCityKeys(app); err != nil {
			return err
		}

		minAmount, maxAmount := 10000.0, 100000000.0
		quotes := closed(core.NewBaseCollection("quotes", "camellos_quotes"))
		quotes.Fields.Add(relation("job", jobs.Id, true, true))
		quotes.Fields.Add(relation("camello", camellos.Id, true, true))
		quotes.Fields.Add(&core.NumberField{Name: "amount", Min: &minAmount, Max: &maxAmount, OnlyInt: true, Required: true})
		quotes.Fields.Add(text("currency", 3, 3, true))
		quotes.Fields.Add(text("message", 0, 1000, false))
		quotes.Fields.Add(&core.SelectField{Name: "status", MaxSelect: 1, Required: true,
			Values: []string{"PENDIENTE", "ACEPTADA", "RECHAZADA", "RETIRADA", "VENCIDA"}})
		quotes.Fields.Add(&core.DateField{Name: "expiresAt", Required: true})
		timestamps(quotes, true)
		quotes.AddIndex("idx_quotes_job", false, "job, created", "")
		quotes.AddIndex("idx_quotes_camello", false, "camello, created", "")
		// One live quote per camello and job, whatever path writes it.
		quotes.AddIndex("idx_quotes_live", true, "job, camello", "status = 'PENDIENTE'")
		// Live quotes by expiry, for the sweep.
		quotes.AddIndex("idx_quotes_expiry", false, "expiresAt", "status = 'PENDIENTE'")
		if err := app.Save(quotes); err != nil {
			return err
		}

		messages := closed(core.NewBaseCollection("messages", "camellos_messages"))
		messages.Fields.Add(relation("job", jobs.Id, true, true))
		// The thread: the camello of the conversation with the job's client.
		messages.Fields.Add(relation("camello", camellos.Id, true, true))
		messages.Fields.Add(relation("author", users.Id, true, true))
		messages.Fields.Add(text("body", 0, 2000, false))
		// Photos are private: served only by GET /api/messages/files/... to readers.
		messages.Fields.Add(&core.FileField{
			Name: "files", MaxSelect: 3, MaxSize: 5 << 20, Protected: true,
			MimeTypes: []string{"image/jpeg", "image/png", "image/webp"},
		})
		timestamps(messages, false)
		messages.AddIndex("idx_messages_job", false, "job, created", "")
		messages.AddIndex("idx_messages_thread", false, "job, camello, created", "")
		if err := app.Save(messages); err != nil {
			return err
		}

		return addNotificationKinds(app, "QUOTE_RECEIVED", "QUOTE_ACCEPTED", "QUOTE_REJECTED", "MESSAGE")
	}, func(app core.App) error {
		for _, name := range []string{"messages", "quotes"} {
			if c, err := app.FindCollectionByNameOrId(name); err == nil {
				if err := app.Delete(c); err != nil {
					return err
				}
			}
		}
		jobs, err := app.FindCollectionByNameOrId("jobs")
		if err != nil {
			return err
		}
		jobs.RemoveIndex("idx_jobs_open")
		for _, f := range []string{"address", "priceAmount", "cityKey"} {
			jobs.Fields.RemoveByName(f)
		}
		return app.Save(jobs)
	})
}

// backfillCityKeys fills the folded city of the jobs stored before the field.
func backfillCityKeys(app core.App) error {
	var rows []struct {
		ID   string `db:"id"`
		City string `db:"city"`
	}
	if err := app.DB().Select("id", "city").From("jobs").All(&rows); err != nil {
		return err
	}
	for _, r := range rows {
		_, err := app.DB().Update("jobs", dbx.Params{"cityKey": foldCity(r.City)}, dbx.HashExp{"id": r.ID}).Execute()
		if err != nil {
			return err
		}
	}
	return nil
}

// addNotificationKinds adds values to the notifications' kind select.
func addNotificationKinds(app core.App, kinds ...string) error {
	col, err := app.FindCollectionByNameOrId("notifications")
	if err != nil {
		return err
	}
	f, ok := col.Fields.GetByName("kind").(*core.SelectField)
	if !ok {
		return nil
	}
	for _, k := range kinds {
		found := false
		for _, v := range f.Values {
			found = found || v == k
		}
		if !found {
			f.Values = append(f.Values, k)
		}
	}
	return app.Save(col)
}

// foldCity is the jobs' city key: the same folding as the open board's filter.
func foldCity(city string) string { return camellostext.Fold(city) }
