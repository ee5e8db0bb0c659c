package jobs

import (
	"camellos/internal/bus"
	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// MsgLiveJobs answers an erasure while a job of the user is under way.
const MsgLiveJobs = "Tienes trabajos asignados o en progreso: cancélalos antes de eliminar tu cuenta"

// partyExp selects the jobs of a user: as client, or as the provider
// camello (cam "" when the user has no camello profile).
func partyExp(userID, cam string) dbx.Expression {
	if cam == "" {
		return dbx.HashExp{"client": userID}
	}
	return dbx.Or(dbx.HashExp{"client": userID}, dbx.HashExp{"provider": cam})
}

// bindDataRights contributes jobs and reviews (written and received) to a
// user's export, and takes part in the erasure: a job ASIGNADO or
// EN_PROGRESO stops it (409); PENDIENTE jobs of the user (posted, or
// requested from its camello) are cancelled like any cancellation; every
// other job and review stays for the other party.
func bindDataRights(app core.App) {
	bus.Of(app).UserExporting.BindFunc(func(e *bus.Export) error {
		camID := ""
		if c := CamelloOfUser(e.App, e.User.Id); c != nil {
			camID = c.Id
		}
		recs, err := e.App.FindAllRecords(Collection, partyExp(e.User.Id, camID))
		if err != nil {
			return err
		}
		list, err := JSON(e.App, recs)
		if err != nil {
			return err
		}
		Redact(e.App, e.User, recs, list) // a camello requested, or of a cancelled job, does not get the address
		e.Data["jobs"] = list
		written, err := e.App.FindAllRecords(camellos.ReviewsCollection, dbx.HashExp{"client": e.User.Id})
		if err != nil {
			return err
		}
		e.Data["reviewsWritten"] = reviewsJSON(written)
		received := []*core.Record{}
		if camID != "" {
			if received, err = e.App.FindAllRecords(camellos.ReviewsCollection, dbx.HashExp{"camello": camID, camellos.FieldReviewSealed: false}); err != nil {
				return err
			}
		}
		e.Data["reviewsReceived"] = reviewsJSON(received)
		return e.Next()
	})
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		camID := ""
		if c := CamelloOfUser(e.App, e.User.Id); c != nil {
			camID = c.Id
		}
		live, err := e.App.CountRecords(Collection, partyExp(e.User.Id, camID),
			dbx.In("status", StatusAssigned, StatusInProgress))
		if err != nil {
			return err
		}
		if live > 0 {
			return httpapi.Conflict(MsgLiveJobs)
		}
		pending, err := e.App.FindAllRecords(Collection, partyExp(e.User.Id, camID), dbx.HashExp{"status": StatusPending})
		if err != nil {
			return err
		}
		for _, j := range pending {
			if err := Cancel(e.App, j.Id, e.User.Id); err != nil {
				return err
			}
		}
		// The addresses the user gave as a client go; the jobs stay.
		if _, err := e.App.DB().Update(Collection, dbx.Params{"address": ""}, dbx.HashExp{"client": e.User.Id}).Execute(); err != nil {
			return err
		}
		return e.Next()
	})
}

// reviewsJSON renders reviews for an export.
func reviewsJSON(recs []*core.Record) []map[string]any {
	out := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		r := camellos.WrapReview(rec)
		out = append(out, map[string]any{
			"id": r.Id, "job": r.JobID(), "camello": r.CamelloID(), "client": r.ClientID(),
			"rating": r.Rating(), "comment": r.Comment(),
			"createdAt": timefmt.ISO(r.Created().Time()),
		})
	}
	return out
}
