package auth

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/writer"
	"camellos/modules/mail"
	"camellos/modules/users"

	"github.com/go-ozzo/ozzo-validation/v4/is"
	"github.com/pocketbase/pocketbase/core"
)

// Throttles of the account links: per address and per client IP within
// linkWindow (the same answer for known and unknown addresses).
const (
	linkWindow       = 15 * time.Minute
	forgotPerEmail   = 3
	forgotPerIP      = 20
	resetFailuresIP  = 10
	resendPerUser    = 3
	eraseFailures    = 10
	msgTooManyLinks  = "Demasiadas solicitudes, inténtalo más tarde"
	msgTooManyResets = "Demasiados intentos, inténtalo más tarde"
)

// limiters are the account-link throttles of one app.
type limiters struct {
	forgotEmail, forgotIP, resetIP, resend, erase *linkLimiter
}

func newLimiters() *limiters {
	return &limiters{
		forgotEmail: newLimiter(forgotPerEmail, linkWindow),
		forgotIP:    newLimiter(forgotPerIP, linkWindow),
		resetIP:     newLimiter(resetFailuresIP, linkWindow),
		resend:      newLimiter(resendPerUser, linkWindow),
		erase:       newLimiter(eraseFailures, linkWindow),
	}
}

// throttled answers 429 with Retry-After when key is over its limit.
func throttled(e *core.RequestEvent, l *linkLimiter, key, msg string) error {
	if blocked, wait := l.blocked(key); blocked {
		e.Response.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		return httpapi.NewError(http.StatusTooManyRequests, msg)
	}
	return nil
}

// checkEmail normalises an address and adds a field error unless it is
// well-formed (the sign-up rule).
func checkEmail(v *httpapi.Validation, field, email string) string {
	email = NormalizeEmail(email)
	if email == "" {
		v.Add(field, "Es obligatorio")
	} else if text.Chars(email) > 254 || is.EmailFormat.Validate(email) != nil || !strings.Contains(email, "@") {
		v.Add(field, "Correo electrónico inválido")
	}
	return email
}

// link is an absolute link of the web front carrying a token.
func link(app core.App, page, token string) string {
	return config.Of(app).AppURL + "/" + page + "?token=" + url.QueryEscape(token)
}

type forgotInput struct {
	Email string `json:"email"`
}

// passwordForgot answers 202 {ok:true} for every well-formed address. The
// lookup, the token and the mail happen after the answer, so known and
// unknown addresses take the same time; only a known, enabled account
// with an e-mail gets the link.
func passwordForgot(l *limiters) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		var in forgotInput
		if err := httpapi.ReadJSON(e, &in); err != nil {
			return err
		}
		v := httpapi.NewValidation()
		email := checkEmail(v, "email", in.Email)
		if err := v.Err(); err != nil {
			return err
		}
		if err := throttled(e, l.forgotIP, e.RealIP(), msgTooManyLinks); err != nil {
			return err
		}
		if err := throttled(e, l.forgotEmail, email, msgTooManyLinks); err != nil {
			return err
		}
		l.forgotIP.fail(e.RealIP())
		l.forgotEmail.fail(email)
		app := e.App
		backgroundOf(app).run(app, func() { sendResetLink(app, email) })
		return e.JSON(http.StatusAccepted, map[string]any{"ok": true})
	}
}

// sendResetLink issues a reset token for a known, enabled account and
// queues its mail; for any other address it does nothing.
func sendResetLink(app core.App, email string) {
	user, err := users.FindByEmail(app, email)
	if err != nil || users.Wrap(user).Disabled() || user.Email() == "" {
		return
	}
	token, err := issueToken(app, user.Id, PurposeReset, ResetLifetime)
	if errors.Is(err, errUserGone) {
		return // erased while this ran
	}
	if err != nil {
		app.Logger().Error("auth: reset token", "user", user.Id, "error", err.Error())
		return
	}
	if err := queueMail(app, user, mail.KindPasswordReset, link(app, "restablecer.html", token)); err != nil {
		app.Logger().Error("auth: reset mail", "user", user.Id, "error", err.Error())
	}
}

// queueMail renders a link mail of kind for user and queues it.
func queueMail(app core.App, user *core.Record, kind, href string) error {
	r, err := mail.Render(kind, map[string]any{"Name": users.Wrap(user).Name(), "Link": href})
	if err != nil {
		return err
	}
	return mail.Queue(app, mail.Message{
		UserID: user.Id, Kind: kind, To: mailAddress(user),
		Subject: r.Subject, HTML: r.HTML, Text: r.Text,
	})
}

type resetInput struct {
	Token           string `json:"token"`
	Password        string `json:"password"`
	ConfirmPassword string `json:"confirmPassword"`
}

// passwordReset sets a new password with a reset link: the token is spent
// (one conditional UPDATE: a second use is 400), the password changes,
// every session of the user is revoked and the address counts as verified
// (the link reached it), in one transaction.
func passwordReset(l *limiters) func(e *core.RequestEvent) error {
	return func(e *core.RequestEvent) error {
		var in resetInput
		if err := httpapi.ReadJSON(e, &in); err != nil {
			return err
		}
		if err := throttled(e, l.resetIP, e.RealIP(), msgTooManyResets); err != nil {
			return err
		}
		v := httpapi.NewValidation()
		CheckNewPassword(v, "password", in.Password, "confirmPassword", in.ConfirmPassword)
		if err := v.Err(); err != nil {
			return err
		}
		token := strings.TrimSpace(in.Token)
		userID := tokenUser(e.App, token, PurposeReset)
		if userID == "" {
			l.resetIP.fail(e.RealIP())
			return httpapi.BadRequest(MsgBadLink)
		}
		user, err := e.App.FindRecordById(users.Collection, userID)
		if err != nil || users.Wrap(user).Disabled() {
			l.resetIP.fail(e.RealIP())
			return httpapi.BadRequest(MsgBadLink)
		}
		release, err := httpapi.HashSlot(e) // bcrypt on the bounded pool, before the transaction
		if err != nil {
			return err
		}
		users.SetPassword(user, in.Password)
		release()
		verified := true
		err = writer.Transaction(e.App, func(tx core.App) error {
			ok, err := consumeToken(tx, token, PurposeReset)
			if err != nil {
				return err
			}
			if !ok {
				return httpapi.BadRequest(MsgBadLink)
			}
			// The new password ends every session (the users' hooks).
			return users.Update(tx, users.Wrap(user), users.Change{Verified: &verified})
		})
		if err != nil {
			if he := httpapi.ToError(err); he.Status == http.StatusBadRequest && he.Message == MsgBadLink {
				l.resetIP.fail(e.RealIP())
			}
			return err
		}
		return e.JSON(http.StatusOK, map[string]any{"user": UserJSON(user)})
	}
}

// linkLimiter counts events per key: after max of them within window the
// key is blocked until the oldest leaves the window (kept per app, by
// Register).
type linkLimiter struct {
	max    int
	window time.Duration
	mu     sync.Mutex
	events map[string][]time.Time
}

func newLimiter(max int, window time.Duration) *linkLimiter {
	return &linkLimiter{max: max, window: window, events: map[string][]time.Time{}}
}

// recent drops the events of key older than the window; l.mu is held.
func (l *linkLimiter) recent(key string, now time.Time) []time.Time {
	list := l.events[key]
	i := 0
	for i < len(list) && now.Sub(list[i]) >= l.window {
		i++
	}
	list = list[i:]
	if len(list) == 0 {
		delete(l.events, key)
	} else {
		l.events[key] = list
	}
	return list
}

// blocked reports whether key is throttled, and for how long.
func (l *linkLimiter) blocked(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	list := l.recent(key, now)
	if len(list) < l.max {
		return false, 0
	}
	return true, l.window - now.Sub(list[0])
}

// fail counts one event of key.
func (l *linkLimiter) fail(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.events) >= 100_000 {
		now := time.Now()
		for k := range l.events {
			l.recent(k, now)
		}
	}
	l.events[key] = append(l.events[key], time.Now())
}

// reset forgets the events of key.
func (l *linkLimiter) reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.events, key)
}
