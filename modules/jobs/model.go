package jobs

import (
	"net/http"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/timefmt"
	"camellos/modules/camellos"
	"camellos/modules/catalog"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Collection name and job states.
const (
	Collection = "jobs"

	StatusPending    = "PENDIENTE"
	StatusAssigned   = "ASIGNADO"
	StatusInProgress = "EN_PROGRESO"
	StatusCompleted  = "COMPLETADO"
	StatusCancelled  = "CANCELADO"

	SourceExplore = "EXPLORE"
	SourceProfile = "PERFIL"
	SourceAdmin   = "ADMIN"
)

// Statuses lists every job state, in the order of the state machine.
var Statuses = []string{StatusPending, StatusAssigned, StatusInProgress, StatusCompleted, StatusCancelled}

// Spanish messages of the jobs area.
const (
	MsgJobNotFound     = "Trabajo no encontrado"
	MsgCamelloNotFound = camellos.MsgCamelloNotFound
)

// JobURL is the web front's link to a job, used in notifications.
func JobURL(id string) string { return "/trabajos.html?id=" + id }

// JSON renders jobs as the interface's Job object, loading their services
// (with category names) and providers in two queries whatever the count.
func JSON(app core.App, recs []*core.Record) ([]map[string]any, error) {
	serviceIDs := []string{}
	providerIDs := []string{}
	seenS, seenP := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		if s := r.GetString("service"); s != "" && !seenS[s] {
			seenS[s] = true
			serviceIDs = append(serviceIDs, s)
		}
		if p := r.GetString("provider"); p != "" && !seenP[p] {
			seenP[p] = true
			providerIDs = append(providerIDs, p)
		}
	}
	services, err := catalog.ServiceRefs(app, serviceIDs)
	if err != nil {
		return nil, err
	}
	providers := map[string]*core.Record{}
	if len(providerIDs) > 0 {
		recs, err := app.FindRecordsByIds(camellos.Collection, providerIDs)
		if err != nil {
			return nil, err
		}
		for _, p := range recs {
			providers[p.Id] = p
		}
	}
	clients, reviewed, err := partiesOf(app, recs)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(recs))
	for _, r := range recs {
		out = append(out, render(r, services, providers[r.GetString("provider")], clients[r.GetString("client")], reviewed[r.Id]))
	}
	return out, nil
}

// render is one job as the API shows it, from the values read for it:
// its service's reference, its provider's camello record (nil without
// one), its client's name and whether it has a review.
func render(r *core.Record, services map[string]catalog.ServiceRef, provider *core.Record, clientName string, reviewed bool) map[string]any {
	svc, ok := services[r.GetString("service")]
	if !ok {
		svc = catalog.ServiceRef{ID: r.GetString("service")}
	}
	var prov any
	if provider != nil {
		prov = camellos.Summary(provider)
	}
	return map[string]any{
		"id":           r.Id,
		"title":        r.GetString("title"),
		"description":  r.GetString("description"),
		"status":       r.GetString("status"),
		"source":       r.GetString("source"),
		"city":         r.GetString("city"),
		"neighborhood": r.GetString("neighborhood"),
		"address":      r.GetString("address"),
		"price":        PriceJSON(r),
		"service":      svc,
		"provider":     prov,
		"clientId":     r.GetString("client"),
		"client":       map[string]any{"id": r.GetString("client"), "name": clientName},
		"reviewed":     reviewed,
		"createdAt":    timefmt.ISO(r.GetDateTime("created").Time()),
		"updatedAt":    timefmt.ISO(r.GetDateTime("updated").Time()),
	}
}

// InHand is what a write already holds about the job it answers with:
// its client's user record and its provider's camello record (nil
// without one), so the answer reads neither again.
type InHand struct {
	Client   *core.Record
	Provider *core.Record
	Service  *catalog.ServiceRef // nil: read it
}

// OneInHand is One for a job just written, rendered from the records in
// hand: only its service's reference is read (and whether it has a
// review, for a COMPLETADO job: no other can have one).
func OneInHand(app core.App, rec *core.Record, reader *core.Record, h InHand) (map[string]any, error) {
	j := Wrap(rec)
	if h.Client == nil || h.Client.Id != j.ClientID() ||
		(h.Provider == nil) != (j.ProviderID() == "") || (h.Provider != nil && h.Provider.Id != j.ProviderID()) {
		return One(app, rec, reader) // not the records of this job: read them
	}
	var services map[string]catalog.ServiceRef
	if h.Service != nil && h.Service.ID == j.ServiceID() {
		services = map[string]catalog.ServiceRef{h.Service.ID: *h.Service}
	} else {
		var err error
		if services, err = catalog.ServiceRefs(app, []string{j.ServiceID()}); err != nil {
			return nil, err
		}
	}
	reviewed := false
	if j.Status() == StatusCompleted {
		r, err := camellos.ReviewedJobs(app, []any{rec.Id})
		if err != nil {
			return nil, err
		}
		reviewed = r[rec.Id]
	}
	out := render(rec, services, h.Provider, users.Wrap(h.Client).Name(), reviewed)
	Redact(app, reader, []*core.Record{rec}, []map[string]any{out})
	return out, nil
}

// partiesOf loads, in one query each, the clients' names and which of the
// jobs already have a review.
func partiesOf(app core.App, recs []*core.Record) (map[string]string, map[string]bool, error) {
	clientIDs, jobIDs := []any{}, []any{}
	seen := map[string]bool{}
	for _, r := range recs {
		jobIDs = append(jobIDs, r.Id)
		if c := r.GetString("client"); c != "" && !seen[c] {
			seen[c] = true
			clientIDs = append(clientIDs, c)
		}
	}
	names := map[string]string{}
	reviewed := map[string]bool{}
	if len(recs) == 0 {
		return names, reviewed, nil
	}
	names, err := users.Names(app, clientIDs)
	if err != nil {
		return nil, nil, err
	}
	reviewed, err = camellos.ReviewedJobs(app, jobIDs)
	if err != nil {
		return nil, nil, err
	}
	return names, reviewed, nil
}

// One renders a single job (see JSON) for reader: the fields reader may
// not see (privacy.JobAddress) are left out.
func One(app core.App, rec *core.Record, reader *core.Record) (map[string]any, error) {
	list, err := JSON(app, []*core.Record{rec})
	if err != nil {
		return nil, err
	}
	Redact(app, reader, []*core.Record{rec}, list)
	return list[0], nil
}

// answerJob reloads the job and answers {job} with status.
func answerJob(e *core.RequestEvent, status int, id string, extra ...map[string]any) error {
	rec, err := e.App.FindRecordById(Collection, id)
	if err != nil {
		return httpapi.Internal(err)
	}
	return answerRecord(e, status, rec, extra...)
}

// answerRecord answers {job} with status from a job record as saved.
func answerRecord(e *core.RequestEvent, status int, rec *core.Record, extra ...map[string]any) error {
	list, err := JSON(e.App, []*core.Record{rec})
	if err != nil {
		return httpapi.Internal(err)
	}
	redactFor(e, []*core.Record{rec}, list)
	body := map[string]any{"job": list[0]}
	for _, x := range extra {
		for k, v := range x {
			body[k] = v
		}
	}
	return e.JSON(status, body)
}

// CamelloOfUser returns the camello profile of a user, or nil.
func CamelloOfUser(app core.App, userID string) *core.Record {
	rec, err := app.FindFirstRecordByData(camellos.Collection, "user", userID)
	if err != nil {
		return nil
	}
	return rec
}

// IDsOfClient lists the ids of a client's jobs, every state (an export's
// conversations and quotes).
func IDsOfClient(app core.App, userID string) ([]any, error) {
	var ids []string
	err := app.DB().Select("id").From(Collection).Where(dbx.HashExp{"client": userID}).Column(&ids)
	out := make([]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, id)
	}
	return out, err
}

// Party says how the signed-in user relates to a job.
type Party struct {
	Client   bool // the job's client
	Provider bool // the user of the job's provider camello
	Admin    bool
}

// Any reports whether the user may see the job.
func (p Party) Any() bool { return p.Client || p.Provider || p.Admin }

// PartyOf tells how user relates to job.
func PartyOf(app core.App, user, job *core.Record) Party {
	u, j := users.Wrap(user), Wrap(job)
	p := Party{Admin: u.Role() == users.RoleAdmin}
	p.Client = j.ClientID() == u.Id
	if prov := j.ProviderID(); prov != "" && u.Role() == users.RoleCamello {
		if c := CamelloOfUser(app, u.Id); c != nil && c.Id == prov {
			p.Provider = true
		}
	}
	return p
}

// ProviderUserID returns the user id behind the job's provider ("" if none).
func ProviderUserID(app core.App, job *core.Record) string {
	prov := Wrap(job).ProviderID()
	if prov == "" {
		return ""
	}
	c, err := camellos.Find(app, prov)
	if err != nil {
		return ""
	}
	return c.UserID()
}

// ReadStatus reads an optional ?status= filter, which must be a job state.
func ReadStatus(e *core.RequestEvent, v *httpapi.Validation) string {
	s := e.Request.URL.Query().Get("status")
	if s == "" {
		return ""
	}
	for _, st := range Statuses {
		if s == st {
			return s
		}
	}
	v.Add("status", "Debe ser uno de: "+strings.Join(Statuses, ", "))
	return ""
}

// listJobs answers one page of the jobs matching where, newest first.
func listJobs(e *core.RequestEvent, where dbx.Expression, p httpapi.Page) error {
	var total int64
	if err := e.App.DB().Select("COUNT(*)").From(Collection).Where(where).Row(&total); err != nil {
		return httpapi.Internal(err)
	}
	recs := []*core.Record{}
	err := e.App.RecordQuery(Collection).Where(where).
		OrderBy("created DESC", "id DESC").Offset(p.Offset()).Limit(int64(p.PerPage)).All(&recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	list, err := JSON(e.App, recs)
	if err != nil {
		return httpapi.Internal(err)
	}
	redactFor(e, recs, list)
	return e.JSON(http.StatusOK, p.Answer("jobs", list, total))
}
