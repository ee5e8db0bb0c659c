package payments

import (
	"camellos/modules/camellos"
	"net/http"
	"strings"

	"camellos/internal/bounds"
	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/messages"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Outcomes of a dispute's resolution (resolution).
const (
	ResolveRelease = "LIBERAR"    // everything to the camello (minus the commission)
	ResolveRefund  = "REEMBOLSAR" // everything back to the client
	ResolveSplit   = "DIVIDIR"    // refundAmount back to the client, the rest to the camello
)

// maxDisputeMessages bounds the conversation embedded in a dispute's view
// (the whole of it is at GET /api/jobs/{id}/messages, admins read it).
const maxDisputeMessages = 200

// disputeStatusFilter maps ?status= to the payment states listed.
var disputeStatusFilter = map[string]string{
	"":         "status = 'EN_DISPUTA'",
	"ABIERTA":  "status = 'EN_DISPUTA'",
	"RESUELTA": "disputedAt != '' AND status != 'EN_DISPUTA'",
	"TODAS":    "disputedAt != ''",
}

// disputesList handles GET /api/admin/disputes?status=ABIERTA|RESUELTA|TODAS&page&perPage
// (admins): disputed payments, oldest open first.
func disputesList(e *core.RequestEvent) error {
	page, err := httpapi.Paging(e)
	if err != nil {
		return err
	}
	where, ok := disputeStatusFilter[strings.ToUpper(e.Request.URL.Query().Get("status"))]
	if !ok {
		v := httpapi.NewValidation()
		v.Add("status", "Debe ser ABIERTA, RESUELTA o TODAS")
		return v.Err()
	}
	recs, err := e.App.FindRecordsByFilter(Collection, where, "disputedAt", page.PerPage, int(page.Offset()))
	if err != nil {
		return err
	}
	var total int64
	if err := e.App.DB().NewQuery("SELECT COUNT(*) FROM payments WHERE " + where).Row(&total); err != nil {
		return err
	}
	list := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		p := &Payment{}
		p.SetProxyRecord(r)
		item, err := disputeView(e.App, p, false)
		if err != nil {
			return err
		}
		list = append(list, item)
	}
	return e.JSON(http.StatusOK, page.Answer("disputes", list, total))
}

// disputeView is a disputed payment with what an admin needs to judge it:
// the job, its parties, its ledger movements and (withMessages) the job's
// conversation with the URLs of its photos (served to admins).
func disputeView(app core.App, p *Payment, withMessages bool) (map[string]any, error) {
	out := JSON(p, false)
	job, err := jobs.Find(app, p.JobID())
	if err != nil {
		return nil, err
	}
	ids := []any{p.ClientID()}
	camelloUser := ""
	if c, err := camellos.Find(app, p.CamelloID()); err == nil {
		camelloUser = c.UserID()
		ids = append(ids, camelloUser)
	}
	names, _ := users.Names(app, ids) // a name not found reads ""
	camelloName := names[camelloUser]
	out["job"] = map[string]any{"id": job.Id, "title": job.Title(), "status": job.Status()}
	out["client"] = map[string]any{"id": p.ClientID(), "name": names[p.ClientID()]}
	out["camello"] = map[string]any{"id": p.CamelloID(), "name": camelloName}
	out["messagesUrl"] = "/api/jobs/" + job.Id + "/messages"
	if !withMessages {
		return out, nil
	}
	moves, err := ledger.ByRef(app, p.Id)
	if err != nil {
		return nil, err
	}
	out["movements"] = moves
	recs, err := app.FindRecordsByFilter(messages.Collection, "job = {:job}", "-created", maxDisputeMessages, 0, dbx.Params{"job": job.Id})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	msgs, err := messages.JSON(app, recs)
	if err != nil {
		return nil, err
	}
	out["messages"] = msgs
	return out, nil
}

// disputeGet handles GET /api/admin/disputes/{id} (admins): one disputed
// payment with the job's conversation and photos.
func disputeGet(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, err := Find(e.App, id)
	if err != nil || p.GetString("disputedAt") == "" {
		return httpapi.NotFound(MsgDisputeNotFound)
	}
	out, err := disputeView(e.App, p, true)
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"dispute": out})
}

// MsgDisputeNotFound answers an unknown dispute.
const MsgDisputeNotFound = "Disputa no encontrada"

// Resolve ends a dispute at an admin's word: EN_DISPUTA → LIBERADO
// (LIBERAR), REEMBOLSADO (REEMBOLSAR) or DIVIDIDO (DIVIDIR, refund pesos
// back to the client), one conditional UPDATE: of two admins resolving one
// dispute exactly one outcome is written, the other gets 409. Both parties
// are told; a refund is then made at Mercado Pago.
func Resolve(app core.App, paymentID, adminID, outcome string, refund int64, note string) (*Payment, error) {
	s := settlement{From: []string{StatusDisputed}, By: ByDispute, Resolution: outcome, ResolvedBy: adminID, Note: note,
		Conflict: MsgNotDisputed}
	switch outcome {
	case ResolveRefund:
		s.Everything = true
	case ResolveSplit:
		s.Refund = refund
	}
	s.tell = func(tx core.App, p *Payment, released, fee, refund int64) error {
		extra := ""
		if note != "" {
			extra = " Nota del administrador: «" + excerpt(note) + "»."
		}
		toClient, toCamello := "", ""
		switch {
		case released == 0:
			toClient = "Resolvimos la disputa a tu favor: te devolvemos " + Pesos(refund) + " por Mercado Pago." + extra
			toCamello = "Resolvimos la disputa: el pago se devuelve al cliente." + extra
		case refund == 0:
			toClient = "Resolvimos la disputa: el pago se libera al camello." + extra
			toCamello = "Resolvimos la disputa a tu favor: te liberamos " + Pesos(released-fee) + " (" + Pesos(released) + " menos la comisión de " + Pesos(fee) + ")." + extra
		default:
			toClient = "Resolvimos la disputa: te devolvemos " + Pesos(refund) + " y liberamos " + Pesos(released) + " al camello." + extra
			toCamello = "Resolvimos la disputa: te liberamos " + Pesos(released-fee) + " (" + Pesos(released) + " menos la comisión de " + Pesos(fee) + "); " + Pesos(refund) + " vuelven al cliente." + extra
		}
		return tell(tx, p, "Disputa resuelta", toClient, toCamello)
	}
	return settleByID(app, paymentID, s)
}

// disputeResolve handles POST /api/admin/disputes/{id}/resolve
// {outcome: LIBERAR|REEMBOLSAR|DIVIDIR, refundAmount (DIVIDIR), note?} (admins).
func disputeResolve(e *core.RequestEvent) error {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	var in struct {
		Outcome      *string `json:"outcome"`
		RefundAmount *int64  `json:"refundAmount"`
		Note         *string `json:"note"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	outcome := ""
	if in.Outcome != nil {
		outcome = strings.ToUpper(strings.TrimSpace(*in.Outcome))
	}
	switch outcome {
	case ResolveRelease, ResolveRefund:
	case ResolveSplit:
		if in.RefundAmount == nil || *in.RefundAmount < 1 {
			v.Add("refundAmount", "Es obligatorio al dividir: los pesos que vuelven al cliente (al menos 1)")
		}
	case "":
		v.Add("outcome", "Es obligatorio")
	default:
		v.Add("outcome", "Debe ser LIBERAR, REEMBOLSAR o DIVIDIR")
	}
	note := ""
	if in.Note != nil {
		note = strings.TrimSpace(*in.Note)
	}
	httpapi.CheckLength(v, "note", note, 0, bounds.ResolutionNoteMax)
	if err := v.Err(); err != nil {
		return err
	}
	var refund int64
	if in.RefundAmount != nil {
		refund = *in.RefundAmount
	}
	if outcome == ResolveSplit {
		p, err := Find(e.App, id)
		if err != nil {
			return httpapi.NotFound(MsgDisputeNotFound)
		}
		if held := int64(p.GetInt("heldAmount")); refund >= held {
			v.Add("refundAmount", "Al dividir devuelve entre $1 y "+Pesos(held-1)+"; para devolver todo usa REEMBOLSAR")
			return v.Err()
		}
	}
	if _, err := Find(e.App, id); err != nil {
		return httpapi.NotFound(MsgDisputeNotFound)
	}
	p, err := Resolve(e.App, id, session.AuthUser(e).Id, outcome, refund, note)
	if err != nil {
		return err
	}
	return answer(e, p, jobs.Party{Admin: true})
}
