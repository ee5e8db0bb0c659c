package payments

import (
	"camellos/internal/clock"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/timefmt"
	"camellos/internal/writer"
	"camellos/modules/appointments"
	"camellos/modules/jobs"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

// Cancellation policies (issue 23). Each camello chooses one; it binds the
// jobs it is paid for through the platform. The late window is the
// policy's FreeHours before the job's next visit (its earliest future
// PROGRAMADA appointment); a job without a visit booked is always free
// to cancel.
//
//   - The client cancels before the late window: everything held goes back.
//   - The client cancels inside it, or does not show up to a visit (the
//     camello reports it): FeePercent of the held money goes to the camello
//     (released, minus the commission), the rest back to the client.
//   - The camello cancels, or does not show up (the client reports it), or
//     an admin cancels: everything back to the client.
//   - Inside the late window of a paid job, neither side reschedules or
//     cancels a single visit on its own (409): the job is cancelled instead,
//     and the policy applies.

// PoliciesCollection holds each camello's choice.
const PoliciesCollection = "camello_policies"

// Policy is one cancellation policy.
type Policy struct {
	Name       string `json:"name"`
	Label      string `json:"label"`
	FreeHours  int    `json:"freeHours"`
	FeePercent int    `json:"feePercent"`
	Text       string `json:"text"`
}

// The policies (the table every rule reads).
var (
	PolicyFlexible = Policy{Name: "FLEXIBLE", Label: "Flexible", FreeHours: 24, FeePercent: 25}
	PolicyModerate = Policy{Name: "MODERADA", Label: "Moderada", FreeHours: 48, FeePercent: 50}
	PolicyStrict   = Policy{Name: "ESTRICTA", Label: "Estricta", FreeHours: 72, FeePercent: 100}
	Policies       = []Policy{PolicyFlexible, PolicyModerate, PolicyStrict}
	// DefaultPolicy binds a camello that chose none.
	DefaultPolicy = PolicyModerate
)

func init() {
	for i := range Policies {
		p := &Policies[i]
		p.Text = "Cancelación gratis hasta " + strconv.Itoa(p.FreeHours) + " horas antes de la visita; después, o si no estás cuando llega el camello, se cobra el " +
			strconv.Itoa(p.FeePercent) + " % del pago. Si el camello cancela o no llega, te devolvemos todo."
	}
	PolicyFlexible, PolicyModerate, PolicyStrict = Policies[0], Policies[1], Policies[2]
	DefaultPolicy = PolicyModerate
}

// Messages of the policy.
const (
	MsgUnknownPolicy   = "Debe ser FLEXIBLE, MODERADA o ESTRICTA"
	MsgOnlyCamelloPol  = "Solo los camellos eligen una política de cancelación"
	MsgLateWindowMoves = "Faltan menos de %d horas para la visita: la política de cancelación (%s) no permite reprogramarla ni cancelarla por separado; cancela el trabajo y se aplica la política"
	MsgNoShowTooEarly  = "La visita aún no ha empezado"
	MsgNoShowNotParty  = "Solo el cliente o el camello del trabajo informan que el otro no llegó"
	MsgNoShowNoVisit   = "El trabajo no tiene una visita que ya haya empezado"
)

// PolicyNamed is the policy called name, ok false when none is.
func PolicyNamed(name string) (Policy, bool) {
	for _, p := range Policies {
		if p.Name == name {
			return p, true
		}
	}
	return Policy{}, false
}

// PolicyOf is the policy camelloID chose (DefaultPolicy without a choice).
func PolicyOf(app core.App, camelloID string) Policy {
	var name string
	_ = app.DB().NewQuery("SELECT policy FROM camello_policies WHERE camello = {:c}").Bind(dbx.Params{"c": camelloID}).Row(&name)
	if p, ok := PolicyNamed(name); ok {
		return p
	}
	return DefaultPolicy
}

// SetPolicy records camelloID's choice (one row per camello: an upsert).
func SetPolicy(app core.App, camelloID string, p Policy) error {
	return writer.Transaction(app, func(tx core.App) error {
		_, err := tx.DB().NewQuery("INSERT INTO camello_policies (id, camello, policy, updatedAt) VALUES ({:id}, {:c}, {:p}, {:now}) " +
			"ON CONFLICT (camello) DO UPDATE SET policy = excluded.policy, updatedAt = excluded.updatedAt").
			Bind(dbx.Params{"id": core.GenerateDefaultRandomId(), "c": camelloID, "p": p.Name, "now": dbTime(clock.Now(tx))}).Execute()
		return err
	})
}

// nextVisit is the start of the job's earliest future PROGRAMADA visit.
func nextVisit(app core.App, jobID string, now time.Time) (time.Time, bool) {
	spans, err := appointments.FutureSpansOfJob(app, jobID, now)
	if err != nil || len(spans) == 0 {
		return time.Time{}, false
	}
	return spans[0].Start, true
}

// late reports whether now is inside policy's late window before visit.
func late(p Policy, visit, now time.Time) bool {
	return !now.Before(visit.Add(-time.Duration(p.FreeHours) * time.Hour))
}

// Terms is the policy as it binds one job now: shown to the client before
// paying (GET /api/jobs/{id}/payment/policy and the payment's answers).
type Terms struct {
	Policy    Policy  `json:"policy"`
	NextVisit *string `json:"nextVisit"` // the next visit's start, null without one
	FreeUntil *string `json:"freeUntil"` // the end of the free cancellation, null without a visit
	LateNow   bool    `json:"lateNow"`   // inside the late window now
	FeeNow    int64   `json:"feeNow"`    // what a client's cancellation now would cost, in pesos
}

// TermsOf is the job's cancellation terms at now, for amount pesos.
func TermsOf(app core.App, jobID, camelloID string, amount int64, now time.Time) Terms {
	t := Terms{Policy: PolicyOf(app, camelloID)}
	if visit, ok := nextVisit(app, jobID, now); ok {
		v, f := timefmt.ISO(visit), timefmt.ISO(visit.Add(-time.Duration(t.Policy.FreeHours)*time.Hour))
		t.NextVisit, t.FreeUntil = &v, &f
		if late(t.Policy, visit, now) {
			t.LateNow = true
			t.FeeNow = amount * int64(t.Policy.FeePercent) / 100
		}
	}
	return t
}

// bindPolicy applies the policy wherever a job is cancelled and refuses a
// single visit's move inside the late window.
func bindPolicy(app core.App) {
	jobs.OnJobCancelled(app).BindFunc(func(e *jobs.JobCancelled) error {
		if err := cancelPayment(e.App, e.JobID, e.By, false); err != nil {
			return err
		}
		return e.Next()
	})
	appointments.EventsOf(app).Moving.BindFunc(func(e *appointments.MovingEvent) error {
		p, err := liveOf(e.App, e.JobID)
		if err != nil {
			return err
		}
		if p != nil && p.Status() == StatusHeld {
			pol := PolicyOf(e.App, p.CamelloID())
			if late(pol, e.Start, e.Now) {
				return httpapi.Conflict(fmt.Sprintf(MsgLateWindowMoves, pol.FreeHours, pol.Label))
			}
		}
		return e.Next()
	})
}

// cancelPayment settles the job's held payment as its cancellation by
// user by says (in the cancellation's transaction tx): a client inside the
// late window (or a client's no-show, noShow) pays the fee; anything else
// is refunded in full. The refund is made at Mercado Pago after the
// commit. A payment not held yet is left as it is: if it is approved
// later, Apply refunds it in full (the job is cancelled).
func cancelPayment(tx core.App, jobID, by string, noShow bool) error {
	p, err := liveOf(tx, jobID)
	if err != nil || p == nil || p.Status() != StatusHeld {
		return err
	}
	now := clock.Now(tx)
	s := settlement{From: []string{StatusHeld}, By: ByCancel, Everything: true, Conflict: MsgNotConfirmable}
	pol := PolicyOf(tx, p.CamelloID())
	if by != "" && by == p.ClientID() {
		visit, ok := nextVisit(tx, jobID, now)
		if noShow || (ok && late(pol, visit, now)) {
			s.Everything = false
			s.Refund = p.Amount() - p.Amount()*int64(pol.FeePercent)/100
		}
	}
	settled, err := settle(tx, p, s)
	if err != nil {
		return err
	}
	if settled.RefundAmount() > 0 {
		refundAfterCommit(tx, settled.Id)
	}
	return nil
}

const baseAppKey = "camellos.payments.app"

// refundAfterCommit makes payment id's refund at Mercado Pago once tx
// commits, off the writer (a failure is left to the sweep).
func refundAfterCommit(tx core.App, id string) {
	afterCommit(tx, id, "refund", MakeRefund)
}

// afterCommit runs run(base app, payment id) in the background once tx
// commits; a failure is logged and left for the sweep.
func afterCommit(tx core.App, id, what string, run func(core.App, string) error) {
	info := tx.TxInfo()
	if info == nil {
		return
	}
	info.OnComplete(func(txErr error) error {
		if txErr == nil {
			base, ok := tx.Store().Get(baseAppKey).(core.App)
			if !ok {
				return nil // the sweep makes it
			}
			go func() {
				if err := run(base, id); err != nil {
					tx.Logger().Warn("payments: "+what+" left for the sweep", "payment", id, "error", err.Error())
				}
			}()
		}
		return nil
	})
}

// policyTerms handles GET /api/jobs/{id}/payment/policy: the job's
// cancellation terms, for its parties, before and after paying.
func policyTerms(e *core.RequestEvent) error {
	job, _, err := partyJob(e)
	if err != nil {
		return err
	}
	if job.ProviderID() == "" {
		return httpapi.Conflict(MsgNotPayable)
	}
	t := TermsOf(e.App, job.Id, job.ProviderID(), int64(job.PriceAmount()), clock.Now(e.App))
	return e.JSON(http.StatusOK, map[string]any{"cancellation": t})
}

// myPolicy handles GET /api/me/cancellation-policy (camellos): the policy
// chosen and the ones to choose from.
func myPolicy(e *core.RequestEvent) error {
	cam := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if cam == nil {
		return httpapi.Forbidden(MsgOnlyCamelloPol)
	}
	return e.JSON(http.StatusOK, map[string]any{"policy": PolicyOf(e.App, cam.Id), "policies": Policies})
}

// setMyPolicy handles PUT /api/me/cancellation-policy {policy} (camellos).
// A new choice binds the cancellations made from then on.
func setMyPolicy(e *core.RequestEvent) error {
	cam := jobs.CamelloOfUser(e.App, session.AuthUser(e).Id)
	if cam == nil {
		return httpapi.Forbidden(MsgOnlyCamelloPol)
	}
	var in struct {
		Policy *string `json:"policy"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	name := ""
	if in.Policy != nil {
		name = strings.ToUpper(strings.TrimSpace(*in.Policy))
	}
	p, ok := PolicyNamed(name)
	if !ok {
		v := httpapi.NewValidation()
		v.Add("policy", MsgUnknownPolicy)
		return v.Err()
	}
	if err := SetPolicy(e.App, cam.Id, p); err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"policy": p, "policies": Policies})
}

// NoShow settles a held payment because one side did not show up to the
// job's visit that has begun (reported by the other side): the client's
// absence (reported by the camello) pays the policy's fee; the camello's
// (reported by the client) refunds everything. The job is cancelled in
// the same transaction (its cancellation finds the payment settled).
func NoShow(app core.App, jobID, reporterID string) (*Payment, error) {
	var out *Payment
	err := writer.Transaction(app, func(tx core.App) error {
		job, err := jobs.Find(tx, jobID)
		if err != nil {
			return httpapi.NotFound(MsgJobNotFound)
		}
		cam := jobs.CamelloOfUser(tx, reporterID)
		byCamello := cam != nil && cam.Id == job.ProviderID()
		if !byCamello && job.ClientID() != reporterID {
			return httpapi.Forbidden(MsgNoShowNotParty)
		}
		p, err := liveOf(tx, jobID)
		if err != nil {
			return err
		}
		if p == nil || p.Status() != StatusHeld {
			return httpapi.Conflict(MsgNotConfirmable)
		}
		now := clock.Now(tx)
		begun, err := appointments.BegunOfJob(tx, jobID, now)
		if err != nil {
			return err
		}
		if begun == 0 {
			return httpapi.Conflict(MsgNoShowNoVisit)
		}
		absent := job.ClientID() // the camello reports the client's absence
		if !byCamello {
			absent = "" // the client reports the camello's: a full refund
		}
		if err := cancelPayment(tx, jobID, absent, byCamello); err != nil {
			return err
		}
		if err := jobs.Cancel(tx, jobID, reporterID); err != nil {
			return err
		}
		out, err = Find(tx, p.Id)
		return err
	})
	return out, err
}

// paymentNoShow handles POST /api/jobs/{id}/payment/no-show (the job's
// client or camello, about the other side).
func paymentNoShow(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, err := NoShow(e.App, jobID, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	return answer(e, p, jobs.Party{Client: p.ClientID() == session.AuthUser(e).Id})
}
