package admin

import (
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/router"
)

func bindCamellos(g *router.RouterGroup[*core.RequestEvent]) {
	// An admin reads one camello with every field (endpoint 7).
	g.GET("/camellos/{id}", camelloGet)
	// An admin changes a camello's status, premium flag or notes.
	g.PATCH("/camellos/{id}", camelloUpdate)
	// An admin lists the camellos that could take a job: its city and
	// service, soonest free first, then by rating (every page).
	g.GET("/jobs/{id}/candidates", jobCandidates)
}

func camelloGet(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	rec, err := e.App.FindRecordById(camellos.Collection, id)
	if err != nil {
		return httpapi.NotFound(camellos.MsgCamelloNotFound)
	}
	return camellos.Respond(e, http.StatusOK, rec, camellos.PrivateFor(session.AuthUser(e), rec))
}

type patchCamelloInput struct {
	Status  *string `json:"status"`
	Premium *bool   `json:"premium"`
	Notes   *string `json:"notes"`
	Reason  *string `json:"reason"`
}

// MsgReasonRequired and MsgReasonOnlyRejecting answer a rejection without a
// reason and a reason without a rejection.
const (
	MsgReasonRequired      = "Escribe el motivo del rechazo: se le enviará al camello"
	MsgReasonOnlyRejecting = "Solo se indica un motivo al rechazar"
)

// camelloUpdate validates an admin's decision and hands it to the owner
// (camellos.Decide: re-read and saved in one write transaction, so two
// admins deciding at once cannot both move it from the same status).
func camelloUpdate(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	var in patchCamelloInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	if in.Status != nil && !camellos.ValidStatus(*in.Status) {
		v.Add("status", "Debe ser PENDIENTE, ACTIVO, RECHAZADO o SUSPENDIDO")
	}
	if in.Notes != nil {
		*in.Notes = strings.TrimSpace(*in.Notes)
		httpapi.CheckLength(v, "notes", *in.Notes, 0, bounds.CamelloNotesMax)
	}
	rejecting := in.Status != nil && *in.Status == camellos.StatusRejected
	if in.Reason != nil {
		*in.Reason = strings.TrimSpace(*in.Reason)
	}
	switch {
	case rejecting && (in.Reason == nil || *in.Reason == ""):
		v.Add("reason", MsgReasonRequired)
	case rejecting:
		httpapi.CheckLength(v, "reason", *in.Reason, bounds.RejectionReasonMin, bounds.RejectionReasonMax)
	case in.Reason != nil:
		v.Add("reason", MsgReasonOnlyRejecting)
	}
	if in.Status == nil && in.Premium == nil && in.Notes == nil {
		v.AddForm("Indica al menos uno de: status, premium, notes")
	}
	if err := v.Err(); err != nil {
		return err
	}

	c, err := camellos.Decide(e.App, id, camellos.Decision{Status: in.Status, Premium: in.Premium, Notes: in.Notes, Reason: in.Reason})
	if err != nil {
		return err
	}
	rec := c.Record
	return camellos.Respond(e, http.StatusOK, rec, camellos.PrivateFor(session.AuthUser(e), rec))
}
