package camellos

import (
	"database/sql"
	"errors"

	"camellos/internal/bus"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// ErasedName is the name an erased camello profile keeps (jobs and reviews
// of other people still point at it).
const ErasedName = "Usuario eliminado"

// bindDataRights contributes the camello profile to a user's export and
// erases it with the account: unlisted (ACTIVO → SUSPENDIDO, PENDIENTE →
// RECHAZADO), its photo and document photos removed from storage (after the commit, by the
// file field) and its personal fields emptied.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		// The camellos' reviews of this person as a client: the published
		// ones (a sealed one is its author's until published).
		received, err := PublishedClientReviews(e.App, e.User.Id, 0)
		if err != nil {
			return err
		}
		list := make([]map[string]any, 0, len(received))
		for _, r := range received {
			list = append(list, ReviewJSON(&r.ReviewRecord))
		}
		e.Data["clientReviewsReceived"] = list
		e.Data["clientReviewsWritten"] = []map[string]any{}
		e.Data["camello"] = nil
		rec, err := e.App.FindFirstRecordByData(Collection, "user", e.User.Id)
		if errors.Is(err, sql.ErrNoRows) {
			return e.Next()
		}
		if err != nil {
			return err
		}
		cam, err := One(e.App, rec, PrivateFor(e.User, rec))
		if err != nil {
			return err
		}
		e.Data["camello"] = cam
		written, err := e.App.FindAllRecords(ClientReviewsCollection, dbx.HashExp{FieldReviewCamello: rec.Id})
		if err != nil {
			return err
		}
		mine := make([]map[string]any, 0, len(written))
		for _, r := range written {
			mine = append(mine, ReviewJSON(WrapReview(r)))
		}
		e.Data["clientReviewsWritten"] = mine
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		rec, err := e.App.FindFirstRecordByData(Collection, "user", e.User.Id)
		if errors.Is(err, sql.ErrNoRows) {
			return e.Next()
		}
		if err != nil {
			return err
		}
		switch rec.GetString("status") {
		case StatusActive:
			rec.Set("status", StatusSuspended)
		case StatusPending:
			rec.Set("status", StatusRejected)
		}
		rec.Set("name", ErasedName)
		rec.Set("photo", nil)
		rec.Set(FieldDocuments, nil)
		for _, f := range []string{"documentId", "phone", "neighborhood", "professionalCard", "notes", "description"} {
			rec.Set(f, "")
		}
		clearWorkArea(Wrap(rec)) // the base point goes with the account
		if err := e.App.Save(rec); err != nil {
			return err
		}
		return e.Next()
	})
}

// verifiedOf tells, per user id, whether the user's address is verified.
func verifiedOf(app core.App, recs []*core.Record) (map[string]bool, error) {
	ids := make([]any, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, r.GetString("user"))
	}
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID       string `db:"id"`
		Verified bool   `db:"verified"`
	}
	if err := app.DB().Select("id", "verified").From("users").Where(dbx.In("id", ids...)).All(&rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r.Verified
	}
	return out, nil
}
