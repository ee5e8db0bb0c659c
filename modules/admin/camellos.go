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
}

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
	if in.Status == nil && in.Premium == nil && in.Notes == nil {
		v.AddForm("Indica al menos uno de: status, premium, notes")
	}
	if err := v.Err(); err != nil {
		return err
	}

	c, err := camellos.Decide(e.App, id, camellos.Decision{Status: in.Status, Premium: in.Premium, Notes: in.Notes})
	if err != nil {
		return err
	}
	rec := c.Record
	return camellos.Respond(e, http.StatusOK, rec, camellos.PrivateFor(session.AuthUser(e), rec))
}
