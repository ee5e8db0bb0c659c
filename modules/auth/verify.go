package auth

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/writer"
	mailer "camellos/modules/mail"
	"camellos/modules/users"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
)

func mailAddress(u *core.Record) mail.Address {
	return mail.Address{Name: users.Wrap(u).Name(), Address: u.Email()}
}

// SendVerification mails a new verification link to a user whose address
// is not verified yet (both sign-ups call it after their commit; the
// resend route too). A failure is logged: the sign-up has succeeded.
func SendVerification(app core.App, user *core.Record) {
	if user.Verified() || user.Email() == "" || !mailer.Enabled(app) {
		return
	}
	token, err := issueToken(app, user.Id, PurposeVerify, VerifyLifetime)
	if err == nil {
		err = queueMail(app, user, mailer.KindVerify, link(app, "verificar.html", token))
	}
	if err != nil && !errors.Is(err, errUserGone) {
		app.Logger().Error("auth: verification mail", "user", user.Id, "error", err.Error())
	}
}

type verifyInput struct {
	Token string `json:"token"`
}

// emailVerify spends a verification link and marks the address verified
// (one conditional UPDATE on the token, then the user, in one transaction).
func emailVerify(l *limiters) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		var in verifyInput
		if err := httpapi.ReadJSON(e, &in); err != nil {
			return err
		}
		if err := throttled(e, l.resetIP, e.RealIP(), msgTooManyResets); err != nil {
			return err
		}
		token := strings.TrimSpace(in.Token)
		userID := tokenUser(e.App, token, PurposeVerify)
		if userID == "" {
			l.resetIP.fail(e.RealIP())
			return httpapi.BadRequest(MsgBadLink)
		}
		var user *core.Record
		err := writer.Transaction(e.App, func(tx core.App) error {
			ok, err := consumeToken(tx, token, PurposeVerify)
			if err != nil {
				return err
			}
			if !ok {
				return httpapi.BadRequest(MsgBadLink)
			}
			user, err = tx.FindRecordById(users.Collection, userID)
			if err != nil {
				return err
			}
			if users.Wrap(user).Disabled() {
				return httpapi.BadRequest(MsgBadLink)
			}
			return markVerified(tx, user)
		})
		if err != nil {
			if he := httpapi.ToError(err); he.Status == http.StatusBadRequest {
				l.resetIP.fail(e.RealIP())
			}
			return err
		}
		return e.JSON(http.StatusOK, map[string]any{"user": UserJSON(user)})
	}
}

// markVerified sets the user's verified flag (and the record) and voids
// the other verification links.
func markVerified(app core.App, user *core.Record) error {
	verified := true
	if err := users.Update(app, users.Wrap(user), users.Change{Verified: &verified}); err != nil {
		return err
	}
	_, err := app.DB().Delete(Tokens, dbx.HashExp{"user": user.Id, "purpose": PurposeVerify, "usedAt": ""}).Execute()
	return err
}

// verificationResend mails a fresh link to the signed-in user (202); an
// address already verified gets nothing, with the same answer.
func verificationResend(l *limiters) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		user := session.AuthUser(e)
		if err := throttled(e, l.resend, user.Id, msgTooManyLinks); err != nil {
			return err
		}
		l.resend.fail(user.Id)
		SendVerification(e.App, user)
		return e.JSON(http.StatusAccepted, map[string]any{"ok": true})
	}
}
