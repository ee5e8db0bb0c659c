package payments

import (
	"errors"
	"net/http"

	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/modules/jobs"
	"camellos/modules/ledger"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
)

// Register binds the payments' record hooks, the reconciliation sweep and
// the routes.
func Register(app core.App) {
	bindHooks(app)
	bindDataRights(app)
	bindCompletion(app)
	bindPolicy(app)
	bindReviewTerms(app)
	app.Store().Set(baseAppKey, app)
	app.Cron().MustAdd("paymentsReleaseDue", SweepSchedule, func() {
		if n, err := ReleaseDue(app, clock.Now(app)); err != nil {
			app.Logger().Error("payments: release sweep failed", "error", err.Error())
		} else if n > 0 {
			app.Logger().Info("payments: released at the end of their window", "released", n)
		}
	})
	app.Cron().MustAdd("paymentsReconcile", SweepSchedule, func() {
		if !config.Of(app).PaymentsEnabled() {
			return
		}
		if _, err := Reconcile(app, clock.Now(app)); err != nil {
			app.Logger().Error("payments: reconciliation sweep failed", "error", err.Error())
		}
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		api := httpapi.API(se)
		signedIn := session.RequireSession(httpapi.MsgUnauthorized)

		// The job's client pays: the job's live payment, or a new one with its checkout.
		api.POST("/jobs/{id}/payment", paymentStart).Bind(signedIn, ratelimit.Guard("payment"))
		// The job's parties see its payment (the client also its checkout link).
		api.GET("/jobs/{id}/payment", paymentView).Bind(signedIn, apis.SkipSuccessActivityLog())
		// Back from the checkout: the client (or an admin) has the payment checked with Mercado Pago now.
		api.POST("/jobs/{id}/payment/check", paymentCheck).Bind(signedIn, ratelimit.Guard("payment"))
		// The job's camello records that it was paid in cash (the commission it owes is booked).
		api.POST("/jobs/{id}/payment/cash", paymentCash).Bind(signedIn, ratelimit.Guard("payment"))
		// The job's client confirms the cash payment the camello recorded (the job becomes reviewable).
		api.POST("/jobs/{id}/payment/cash/confirm", paymentCashConfirm).Bind(signedIn, ratelimit.Guard("payment.settle"))
		// The job's parties read its cancellation terms (the client before paying).
		api.GET("/jobs/{id}/payment/policy", policyTerms).Bind(signedIn, apis.SkipSuccessActivityLog())
		// A camello reads and chooses its cancellation policy.
		camello := session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyCamelloPol, users.RoleCamello)
		api.GET("/me/cancellation-policy", myPolicy).Bind(camello, apis.SkipSuccessActivityLog())
		api.PUT("/me/cancellation-policy", setMyPolicy).Bind(camello, ratelimit.Guard("policy"))
		// The client or the camello reports that the other did not show up to a visit that began.
		api.POST("/jobs/{id}/payment/no-show", paymentNoShow).Bind(signedIn, ratelimit.Guard("payment.settle"))
		// The client confirms the work done: the held payment is released to the camello.
		api.POST("/jobs/{id}/payment/confirm", paymentConfirm).Bind(signedIn, ratelimit.Guard("payment.settle"))
		// The client opens a dispute within the window: the held payment is frozen.
		api.POST("/jobs/{id}/payment/dispute", paymentDispute).Bind(signedIn, ratelimit.Guard("payment.settle"))
		admin := session.RequireRole(httpapi.MsgUnauthorized, httpapi.MsgNotAdmin, users.RoleAdmin)
		// Admins list the disputes (open by default).
		api.GET("/admin/disputes", disputesList).Bind(admin, apis.SkipSuccessActivityLog())
		// Admins read one dispute with the job's conversation and photos.
		api.GET("/admin/disputes/{id}", disputeGet).Bind(admin, apis.SkipSuccessActivityLog())
		// An admin resolves a dispute: release, refund or split.
		api.POST("/admin/disputes/{id}/resolve", disputeResolve).Bind(admin, ratelimit.Guard("payment.admin"))
		// An admin runs a payout batch: every balance owed, paid once.
		api.POST("/admin/payouts/batches", payoutBatchRun).Bind(admin, ratelimit.Guard("payment.admin"))
		// The bank file of a batch.
		api.GET("/admin/payouts/batches/{id}/csv", payoutBatchCSV).Bind(admin)
		// Admins list the payouts.
		api.GET("/admin/payouts", payoutsList).Bind(admin, apis.SkipSuccessActivityLog())
		// An admin marks a payout paid by the bank, or failed (its balance is owed again).
		api.POST("/admin/payouts/{id}/paid", payoutMark(PayoutPaid)).Bind(admin, ratelimit.Guard("payment.admin"))
		api.POST("/admin/payouts/{id}/failed", payoutMark(PayoutFailed)).Bind(admin, ratelimit.Guard("payment.admin"))
		// A camello's earnings by month.
		api.GET("/me/earnings/monthly", earningsMonthly).Bind(session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyCamellosEarn, users.RoleCamello), apis.SkipSuccessActivityLog())
		// An admin releases a held payment to its camello, minus the commission.
		api.POST("/payments/{id}/release", paymentRelease).Bind(admin, ratelimit.Guard("payment.admin"))
		// A camello's balance, pending funds and history.
		api.GET("/me/earnings", earningsView).Bind(session.RequireRole(httpapi.MsgUnauthorized, MsgOnlyCamellosEarn, users.RoleCamello), apis.SkipSuccessActivityLog())
		// Mercado Pago's notifications (x-signature checked; no session).
		api.POST("/payments/webhook", webhookReceive).Bind(httpapi.BodyLimit(maxWebhookBody), ratelimit.Guard("webhook"))
		return se.Next()
	})
}

// bindHooks refuses every write of a payment through records (dashboard,
// generic API): a payment changes only through its state machine, written
// by this package with conditional UPDATEs next to its ledger movements.
func bindHooks(app core.App) {
	refuse := func(e *core.RecordEvent) error { return httpapi.Forbidden(MsgReadOnly) }
	app.OnRecordCreate(Collection).BindFunc(refuse)
	app.OnRecordUpdate(Collection).BindFunc(refuse)
	app.OnRecordDelete(Collection).BindFunc(refuse)
}

// paymentStart handles POST /api/jobs/{id}/payment: 201 with a new
// payment, 200 with the job's payment already under way.
func paymentStart(e *core.RequestEvent) error {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return err
	}
	p, created, err := Start(e.App, jobID, session.AuthUser(e).Id)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	out := JSON(p, true)
	out["cancellation"] = TermsOf(e.App, p.JobID(), p.CamelloID(), p.Amount(), clock.Now(e.App))
	return e.JSON(status, map[string]any{"payment": out})
}

// partyJob is the job of the path, for one of its parties (404 unknown,
// 403 anyone else).
func partyJob(e *core.RequestEvent) (*jobs.Job, jobs.Party, error) {
	jobID, err := httpapi.PathID(e, "id")
	if err != nil {
		return nil, jobs.Party{}, err
	}
	job, err := jobs.Find(e.App, jobID)
	if err != nil {
		return nil, jobs.Party{}, httpapi.NotFound(MsgJobNotFound)
	}
	party := jobs.PartyOf(e.App, session.AuthUser(e), job.ProxyRecord())
	if !party.Any() {
		return nil, party, httpapi.Forbidden(MsgNotParty)
	}
	return job, party, nil
}

// partyPayment is the job's latest payment, for one of its parties (404
// when it has none yet).
func partyPayment(e *core.RequestEvent) (*Payment, jobs.Party, error) {
	job, party, err := partyJob(e)
	if err != nil {
		return nil, party, err
	}
	p, err := latestOf(e.App, job.Id)
	if err != nil {
		return nil, party, err
	}
	if p == nil {
		return nil, party, httpapi.NotFound(MsgNoPayment)
	}
	return p, party, nil
}

// paymentView handles GET /api/jobs/{id}/payment: the payment and its
// ledger movements. A job without a payment yet answers 200 with payment
// null and its cancellation terms (null without a camello): "none yet" is
// a state of a known job, not an unknown id, and the job page asks
// without a 404 in the browser's console.
func paymentView(e *core.RequestEvent) error {
	job, party, err := partyJob(e)
	if err != nil {
		return err
	}
	p, err := latestOf(e.App, job.Id)
	if err != nil {
		return err
	}
	if p == nil {
		var terms any
		if job.ProviderID() != "" {
			terms = TermsOf(e.App, job.Id, job.ProviderID(), int64(job.PriceAmount()), clock.Now(e.App))
		}
		return e.JSON(http.StatusOK, map[string]any{"payment": nil, "cancellation": terms})
	}
	return answer(e, p, party)
}

func answer(e *core.RequestEvent, p *Payment, party jobs.Party) error {
	moves, err := ledger.ByRef(e.App, p.Id)
	if err != nil {
		return err
	}
	out := JSON(p, party.Client)
	out["movements"] = moves
	out["cancellation"] = TermsOf(e.App, p.JobID(), p.CamelloID(), p.Amount(), clock.Now(e.App))
	return e.JSON(http.StatusOK, map[string]any{"payment": out})
}

// paymentCheck handles POST /api/jobs/{id}/payment/check: the client back
// from the checkout (or an admin) has an open payment checked with Mercado
// Pago at once instead of waiting for the webhook or the sweep.
func paymentCheck(e *core.RequestEvent) error {
	p, party, err := partyPayment(e)
	if err != nil {
		return err
	}
	if !party.Client && !party.Admin {
		return httpapi.Forbidden(MsgOnlyClientPays)
	}
	if p.Status() == StatusStarted || p.Status() == StatusPending {
		if _, err := Check(e.App, p.Id); err != nil {
			if errors.Is(err, ErrDisabled) {
				return httpapi.NewError(http.StatusServiceUnavailable, MsgDisabled)
			}
			e.App.Logger().Warn("payments: check failed", "payment", p.Id, "error", err.Error())
			return httpapi.NewError(http.StatusBadGateway, MsgGatewayDown)
		}
		if p, err = Find(e.App, p.Id); err != nil {
			return err
		}
	}
	return answer(e, p, party)
}
