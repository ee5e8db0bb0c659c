package payments

import (
	"camellos/internal/clock"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"camellos/internal/bounds"
	"camellos/internal/cli"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/writer"
	"camellos/modules/jobs"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/spf13/cobra"
)

// Completion and disputes (issue 23). When the camello marks the job done
// (jobs.OnJobCompleted, in the completion's transaction) its held payment
// gets completedAt and disputeUntil = completedAt + DISPUTE_WINDOW_HOURS.
// Until then the client may confirm (the money is released to the camello
// at once) or open a dispute (EN_DISPUTA: the money stays frozen until an
// admin resolves it). When the window ends in silence, the sweep
// (ReleaseDue: the in-process cron, `camellos payments release-due`)
// releases it. Every one of these is one conditional UPDATE (settle), so a
// confirmation racing the sweep releases once.

// Messages of completion and disputes.
const (
	MsgOnlyClientConfirms = "Solo el cliente del trabajo confirma o disputa el pago"
	MsgNotDoneYet         = "El camello aún no marcó el trabajo como terminado"
	MsgWindowClosed       = "El plazo para disputar este pago terminó"
	MsgNotConfirmable     = "Solo un pago retenido de un trabajo terminado se confirma o se disputa"
	MsgNotDisputed        = "La disputa ya fue resuelta o no existe"
	MsgCashNoDispute      = "Un pago en efectivo no se disputa en la plataforma"
)

// windowOf is the dispute window of app.
func windowOf(app core.App) time.Duration {
	return time.Duration(config.Of(app).DisputeWindowHours) * time.Hour
}

// openWindowIfDone starts the client's window for the job's held payment
// when the job is COMPLETADO (called at completion and when a payment is
// approved after it): completedAt = now, disputeUntil = now + window.
// Once only: a payment whose window started keeps it.
func openWindowIfDone(tx core.App, jobID string) error {
	job, err := jobs.Find(tx, jobID)
	if err != nil || job.Status() != jobs.StatusCompleted {
		return err
	}
	now := clock.Now(tx)
	until := now.Add(windowOf(tx))
	res, err := tx.DB().NewQuery("UPDATE payments SET completedAt = {:now}, disputeUntil = {:until}, updatedAt = {:now} " +
		"WHERE job = {:job} AND status = 'RETENIDO' AND completedAt = ''").
		Bind(dbx.Params{"now": dbTime(now), "until": dbTime(until), "job": jobID}).Execute()
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil
	}
	p, err := liveOf(tx, jobID)
	if err != nil || p == nil {
		return err
	}
	when := until.In(jobs.ReminderLocation("", config.Of(tx).Timezone)).Format("02/01/2006 15:04")
	return tell(tx, p, "Trabajo terminado: confirma el pago",
		"El camello marcó el trabajo como terminado. Confirma que quedó bien o abre una disputa antes del "+when+
			"; si no nos dices nada, entonces liberamos el pago al camello.",
		"Marcaste el trabajo como terminado. Liberamos tu pago cuando el cliente lo confirme o, a más tardar, el "+when+".")
}

// bindCompletion starts the window when a job is completed, whatever
// path completes it.
func bindCompletion(app core.App) {
	jobs.OnJobCompleted(app).BindFunc(func(e *jobs.JobCompleted) error {
		if err := openWindowIfDone(e.App, e.JobID); err != nil {
			return err
		}
		if err := stampCompletion(e.App, e.JobID); err != nil {
			return err
		}
		return e.Next()
	})
}

// clientPayment is the path job's live payment for its client.
func clientPayment(e *core.RequestEvent) (*Payment, error) {
	p, party, err := partyPayment(e)
	if err != nil {
		return nil, err
	}
	if !party.Client {
		return nil, httpapi.Forbidden(MsgOnlyClientConfirms)
	}
	if p.GetString("method") == MethodCash {
		return nil, httpapi.Conflict(MsgCashNoDispute)
	}
	return p, nil
}

// confirmConflict explains why p cannot be confirmed or disputed now.
func confirmConflict(p *Payment) error {
	if p.Status() == StatusHeld && p.GetString("completedAt") == "" {
		return httpapi.Conflict(MsgNotDoneYet)
	}
	return httpapi.Conflict(MsgNotConfirmable)
}

// Confirm releases the held payment of a completed job at its client's
// word: RETENIDO (window started) → LIBERADO.
func Confirm(app core.App, p *Payment) (*Payment, error) {
	if p.Status() == StatusHeld && p.GetString("completedAt") == "" {
		return nil, confirmConflict(p)
	}
	return settleByID(app, p.Id, settlement{From: []string{StatusHeld}, Where: "completedAt != ''", By: ByClient, Conflict: MsgNotConfirmable})
}

// paymentConfirm handles POST /api/jobs/{id}/payment/confirm (the client).
func paymentConfirm(e *core.RequestEvent) error {
	p, err := clientPayment(e)
	if err != nil {
		return err
	}
	if p, err = Confirm(e.App, p); err != nil {
		return err
	}
	return answer(e, p, jobs.Party{Client: true})
}

// Dispute freezes the held payment of a completed job at its client's
// word, inside the window: RETENIDO → EN_DISPUTA with the reason, one
// conditional UPDATE (a dispute racing the window's sweep: one wins).
// The camello and every admin are told.
func Dispute(app core.App, p *Payment, reason string) (*Payment, error) {
	var out *Payment
	err := writer.Transaction(app, func(tx core.App) error {
		cur, err := Find(tx, p.Id)
		if err != nil {
			return err
		}
		if cur.Status() == StatusHeld && cur.GetString("completedAt") == "" {
			return confirmConflict(cur)
		}
		now := clock.Now(tx)
		if cur.Status() == StatusHeld && cur.GetString("disputeUntil") <= dbTime(now) {
			return httpapi.Conflict(MsgWindowClosed)
		}
		res, err := tx.DB().NewQuery("UPDATE payments SET status = 'EN_DISPUTA', disputedAt = {:now}, disputeReason = {:reason}, updatedAt = {:now} " +
			"WHERE id = {:id} AND status = 'RETENIDO' AND completedAt != '' AND disputeUntil > {:now}").
			Bind(dbx.Params{"now": dbTime(now), "reason": reason, "id": p.Id}).Execute()
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return httpapi.Conflict(MsgNotConfirmable)
		}
		if out, err = Find(tx, p.Id); err != nil {
			return err
		}
		if err := tell(tx, out, "Pago en disputa",
			"Abriste una disputa. Camellos guarda el dinero hasta que un administrador la resuelva.",
			"El cliente abrió una disputa sobre el trabajo: «"+excerpt(reason)+"». El pago queda congelado hasta que un administrador la resuelva."); err != nil {
			return err
		}
		return tellAdmins(tx, out, "Nueva disputa de pago", "Disputa sobre un pago de "+Pesos(out.Amount())+": «"+excerpt(reason)+"».")
	})
	return out, err
}

// paymentDispute handles POST /api/jobs/{id}/payment/dispute {reason}.
func paymentDispute(e *core.RequestEvent) error {
	var in struct {
		Reason *string `json:"reason"`
	}
	if err := httpapi.ReadJSON(e, &in); err != nil {
		return err
	}
	reason := ""
	if in.Reason != nil {
		reason = strings.TrimSpace(*in.Reason)
	}
	v := httpapi.NewValidation()
	httpapi.CheckLength(v, "reason", reason, bounds.DisputeReasonMin, bounds.DisputeReasonMax)
	if err := v.Err(); err != nil {
		return err
	}
	p, err := clientPayment(e)
	if err != nil {
		return err
	}
	if p, err = Dispute(e.App, p, reason); err != nil {
		return err
	}
	return answer(e, p, jobs.Party{Client: true})
}

// ReleaseBatch bounds the payments one sweep releases.
const ReleaseBatch = 500

// ReleaseDue is the window's sweep at now: every RETENIDO payment whose
// disputeUntil has passed is released to its camello (settle's guard
// repeats the condition, so a payment confirmed, disputed or released by
// a concurrent sweep meanwhile is left alone: each is released once).
// Refunds still due at Mercado Pago are retried too. It answers how many
// payments were released.
func ReleaseDue(app core.App, now time.Time) (int, error) {
	var ids []string
	err := app.DB().NewQuery("SELECT id FROM payments WHERE status = 'RETENIDO' AND disputeUntil != '' AND disputeUntil <= {:now} " +
		"ORDER BY disputeUntil LIMIT {:n}").Bind(dbx.Params{"now": dbTime(now), "n": ReleaseBatch}).Column(&ids)
	if err != nil {
		return 0, err
	}
	released := 0
	for _, id := range ids {
		_, err := settleByID(app, id, settlement{From: []string{StatusHeld}, Where: "disputeUntil != '' AND disputeUntil <= {:now}",
			By: ByWindow, Conflict: MsgNotConfirmable})
		if err == nil {
			released++
			continue
		}
		if !isConflict(err) {
			return released, err
		}
	}
	if config.Of(app).PaymentsEnabled() {
		if _, err := RefundsDue(app); err != nil {
			return released, err
		}
	}
	return released, nil
}

// Command is `camellos payments`: `release-due` runs the window's sweep
// once now (what the in-process cron does every 10 minutes).
func Command(app core.App) *cobra.Command {
	cmd := &cobra.Command{Use: "payments", Short: "Pagos retenidos"}
	cmd.AddCommand(&cobra.Command{
		Use:   "release-due",
		Short: "Libera los pagos cuyo plazo de disputa terminó sin disputa",
		Args:  cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			cli.RunCommand(app, func() error {
				n, err := ReleaseDue(app, clock.Now(app))
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "Pagos liberados: %d\n", n)
				return nil
			})
		},
	})
	return cmd
}

// tellAdmins writes an inbox row about p to every enabled admin.
func tellAdmins(tx core.App, p *Payment, title, body string) error {
	ids, err := users.EnabledIDs(tx, users.RoleAdmin, nil)
	if err != nil || len(ids) == 0 {
		return err
	}
	return tellUsers(tx, p, ids, title, body, "/admin-pagos.html?disputa="+p.Id)
}

// isConflict reports whether err is a 409 of ours (a lost race).
func isConflict(err error) bool {
	var he *httpapi.Error
	return errors.As(err, &he) && he.Status == http.StatusConflict
}

// excerpt is the start of a long text for a notification (whose body has
// its own bound): at most 200 characters.
func excerpt(s string) string {
	r := []rune(s)
	if len(r) <= 200 {
		return s
	}
	return string(r[:199]) + "…"
}
