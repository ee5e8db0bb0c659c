package quotes

import (
	"math"
	"net/http"
	"strings"

	"camellos/internal/clock"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

type offerInput struct {
	Amount    *float64 `json:"amount"`
	Message   *string  `json:"message"`
	ValidDays *float64 `json:"validDays"`
}

// quoteCreate handles POST /api/jobs/{id}/quotes {amount, message?, validDays?}.
func quoteCreate(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	// From memory here; create reads the camello again in its transaction.
	me, ok, err := camellos.CachedOfUser(e.App, session.AuthUser(e).Id)
	if err != nil {
		return httpapi.Internal(err)
	}
	if !ok || me.Status != camellos.StatusActive {
		return httpapi.Forbidden(MsgCamelloInactive)
	}
	var in offerInput
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	v := httpapi.NewValidation()
	o := Offer{ValidDays: DefaultValidity}
	switch {
	case in.Amount == nil:
		v.Add("amount", "Es obligatorio")
	case *in.Amount != math.Trunc(*in.Amount) || *in.Amount < MinAmount || *in.Amount > MaxAmount:
		v.Add("amount", "Debe ser un entero entre 10000 y 100000000 (COP)")
	default:
		o.Amount = int(*in.Amount)
	}
	if in.Message != nil {
		o.Message = strings.TrimSpace(*in.Message)
	}
	httpapi.CheckLength(v, "message", o.Message, 0, MaxMessageLen)
	if in.ValidDays != nil {
		d := *in.ValidDays
		if d != math.Trunc(d) || d < MinValidDays || d > MaxValidDays {
			v.Add("validDays", "Debe ser un entero entre 1 y 30")
		} else {
			o.ValidDays = int(d)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	// A camello may send only so many quotes to one job (withdraw and
	// quote again notifies the client each time) and in all; only quotes
	// that are created count.
	settle, err := ratelimit.Take(e, "quote.job", jobID)
	if err != nil {
		return err
	}
	rec, cam, err := create(e.App, jobID, me.ID, o)
	settle(err != nil)
	if err != nil {
		return err
	}
	// As saved, with the camello read in its transaction.
	return e.JSON(http.StatusCreated, map[string]any{"quote": render(rec, cam, clock.Now(e.App))})
}

// quotesList handles GET /api/jobs/{id}/quotes: newest first; the job's
// client and admins see all, a camello its own; another client 403. The
// job's parties, its quotes and the caller's camello come from memory
// (jobs.PartiesOf, quoteLists, camellos.CachedOfUser), dropped by every
// write that changes them.
func quotesList(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	job, ok, err := jobs.PartiesOf(e.App, jobID)
	if err != nil || !ok {
		return httpapi.NotFound(jobs.MsgJobNotFound)
	}
	user := session.AuthUser(e)
	role := users.Wrap(user).Role()
	if role != users.RoleAdmin && job.Client != user.Id && role != users.RoleCamello {
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	list, _, err := quoteLists.Get(e.App, job.ID)
	if err != nil {
		return httpapi.Internal(err)
	}
	only := ""
	switch {
	case role == users.RoleAdmin || job.Client == user.Id:
	case role == users.RoleCamello:
		cam, ok, err := camellos.CachedOfUser(e.App, user.Id)
		if err != nil || !ok || !(job.Provider == cam.ID || list.has(cam.ID) || refusal(job, cam) == "") {
			// Not its job, never quoted it, may not quote it: none of its business.
			return httpapi.Forbidden(httpapi.MsgUnauthorized)
		}
		only = cam.ID
	default:
		return httpapi.Forbidden(httpapi.MsgUnauthorized)
	}
	buf := make([]byte, 0, 512+384*len(list.items))
	buf = append(buf, `{"quotes":`...)
	if buf, err = appendQuotes(e.App, buf, list, only, clock.Now(e.App)); err != nil {
		return httpapi.Internal(err)
	}
	buf = append(buf, "}\n"...)
	return httpapi.WriteRendered(e, buf)
}

// pathQuote loads the path's quote with its job's parties (from memory:
// a job's client never changes): 400 malformed id, 404 unknown.
func pathQuote(e *core.RequestEvent) (*Quote, jobs.Parties, error) {
	id, err := httpapi.PathID(e, "id")
	if err != nil {
		return nil, jobs.Parties{}, err
	}
	q := Find(e.App, id)
	if q == nil {
		return nil, jobs.Parties{}, httpapi.NotFound(MsgQuoteNotFound)
	}
	job, ok, err := jobs.PartiesOf(e.App, q.JobID())
	if err != nil || !ok {
		return nil, jobs.Parties{}, httpapi.NotFound(MsgQuoteNotFound)
	}
	return q, job, nil
}

// clientQuote is the path's quote when the caller is its job's client.
func clientQuote(e *core.RequestEvent) (*Quote, jobs.Parties, error) {
	q, job, err := pathQuote(e)
	if err != nil {
		return nil, jobs.Parties{}, err
	}
	if job.Client != session.AuthUser(e).Id {
		return nil, jobs.Parties{}, httpapi.Forbidden(MsgOnlyJobClient)
	}
	return q, job, nil
}

// quoteAccept handles POST /api/quotes/{id}/accept → {job, quote}, both
// answered from the records the accept read and wrote.
func quoteAccept(e *core.RequestEvent) error {
	q, _, err := clientQuote(e)
	if err != nil {
		return err
	}
	a, err := accept(e.App, q)
	if err != nil {
		return err
	}
	client := session.AuthUser(e)
	jobOut, err := jobs.OneInHand(e.App, a.job, client, jobs.InHand{Client: client, Provider: a.cam})
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"job": jobOut, "quote": render(q.Record, a.cam, a.now)})
}

// quoteReject handles POST /api/quotes/{id}/reject → {quote}.
func quoteReject(e *core.RequestEvent) error {
	q, _, err := clientQuote(e)
	if err != nil {
		return err
	}
	if err := Reject(e.App, q.Id); err != nil {
		return err
	}
	return answerQuote(e, q.Id)
}

// quoteWithdraw handles POST /api/quotes/{id}/withdraw → {quote}: only the
// camello who sent it.
func quoteWithdraw(e *core.RequestEvent) error {
	q, _, err := pathQuote(e)
	if err != nil {
		return err
	}
	cam := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if cam == nil || cam.Id != q.CamelloID() {
		return httpapi.Forbidden(MsgOnlyQuoteCamello)
	}
	if err := Withdraw(e.App, q.Id); err != nil {
		return err
	}
	return answerQuote(e, q.Id)
}

func answerQuote(e *core.RequestEvent, id string) error {
	out, err := one(e.App, id)
	if err != nil {
		return httpapi.Internal(err)
	}
	return e.JSON(http.StatusOK, map[string]any{"quote": out})
}

// ClientQuote is the path's quote ({id}) with its job's parties when the
// caller is its job's client: 400 malformed id, 404 unknown, 403
// MsgOnlyJobClient otherwise. The agenda's accept-and-book route starts
// from it.
func ClientQuote(e *core.RequestEvent) (*Quote, jobs.Parties, error) { return clientQuote(e) }

// OneJSON renders the quote id as the API's Quote object, reloaded.
func OneJSON(app core.App, id string) (map[string]any, error) { return one(app, id) }
