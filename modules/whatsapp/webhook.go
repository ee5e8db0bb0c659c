package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"camellos/internal/config"
	"camellos/internal/httpapi"
	"camellos/internal/ratelimit"
	"camellos/internal/session"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/types"
)

// maxWebhookBody bounds a webhook delivery (Meta batches up to 1,000
// statuses; each is well under 1 KiB).
const maxWebhookBody = 1 << 20

// UnknownGrace is how long a status of a message id the outbox does not
// know yet is answered 503, so that Meta delivers it again: the webhook
// can overtake the API's answer that gives the outbox the id. An older
// unknown id (another sender on the same number, a purged row) is
// acknowledged and ignored.
const UnknownGrace = 10 * time.Minute

// Spanish messages of the webhook.
const (
	MsgSignature     = "Firma inválida"
	MsgVerifyRefused = "Verificación rechazada"
	MsgRetryLater    = "Estado de un mensaje aún desconocido; vuelve a enviarlo"
)

// bindRoutes binds the area's routes.
func bindRoutes(se *core.ServeEvent) {
	api := httpapi.API(se)
	g := api.Group("/notifications/whatsapp")
	g.Bind(session.RequireSession(httpapi.MsgUnauthorized))
	// GET /api/notifications/whatsapp — the caller's WhatsApp channel (number, state).
	g.GET("", whatsappGet)
	// PUT /api/notifications/whatsapp — register a number and send it a code ("whatsapp.code" quota).
	g.PUT("", whatsappStart)
	// POST /api/notifications/whatsapp/confirm — confirm the number with the code ("whatsapp.confirm" quota).
	g.POST("/confirm", whatsappConfirm).Bind(ratelimit.Guard("whatsapp.confirm"))
	// DELETE /api/notifications/whatsapp — switch the channel off and forget the number.
	g.DELETE("", whatsappDelete)

	// GET /api/whatsapp/webhook — Meta's subscription check (hub.verify_token).
	api.GET("/whatsapp/webhook", webhookVerify)
	// POST /api/whatsapp/webhook — message statuses (X-Hub-Signature-256 checked; no session).
	api.POST("/whatsapp/webhook", webhookReceive).Bind(httpapi.BodyLimit(maxWebhookBody))
}

// Sign is the X-Hub-Signature-256 of a webhook body: "sha256=" and the hex
// HMAC-SHA256 of the raw body keyed with the app secret.
func Sign(appSecret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// VerifySignature checks a body against its X-Hub-Signature-256 header in
// constant time.
func VerifySignature(appSecret, header string, body []byte) bool {
	if appSecret == "" || !strings.HasPrefix(header, "sha256=") {
		return false
	}
	got, err := hex.DecodeString(strings.TrimPrefix(header, "sha256="))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// webhookVerify answers Meta's subscription check: hub.mode=subscribe and
// the configured hub.verify_token echo hub.challenge as plain text.
func webhookVerify(e *core.RequestEvent) error {
	q := e.Request.URL.Query()
	want := config.Of(e.App).WhatsAppVerifyToken
	if want == "" || q.Get("hub.mode") != "subscribe" ||
		subtle.ConstantTimeCompare([]byte(q.Get("hub.verify_token")), []byte(want)) != 1 {
		return httpapi.Forbidden(MsgVerifyRefused)
	}
	challenge := q.Get("hub.challenge")
	if challenge == "" || len(challenge) > 200 {
		return httpapi.FieldError("hub.challenge", "Es obligatorio (hasta 200 caracteres)")
	}
	e.Response.Header().Set("Content-Type", "text/plain; charset=utf-8")
	e.Response.WriteHeader(http.StatusOK)
	_, err := io.WriteString(e.Response, challenge)
	return err
}

// statusEvent is one entry of a webhook's statuses.
type statusEvent struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	Timestamp   string `json:"timestamp"`
	RecipientID string `json:"recipient_id"`
	Errors      []struct {
		Code  int    `json:"code"`
		Title string `json:"title"`
	} `json:"errors"`
}

// webhookBody is the part of a delivery the service reads.
type webhookBody struct {
	Object string `json:"object"`
	Entry  []struct {
		Changes []struct {
			Field string `json:"field"`
			Value struct {
				Statuses []statusEvent `json:"statuses"`
			} `json:"value"`
		} `json:"changes"`
	} `json:"entry"`
}

// webhookReceive applies the statuses of a signed delivery. Each status is
// one conditional UPDATE that only moves a message forward (sent →
// delivered → read; failed only before delivery), so a duplicate or a
// late, reordered status changes nothing, and the mail fallback of a
// failed message fires once. A status of an id not known yet (the API's
// answer not recorded yet) is answered 503 for UnknownGrace: Meta sends
// the delivery again.
func webhookReceive(e *core.RequestEvent) error {
	secret := config.Of(e.App).WhatsAppAppSecret
	if secret == "" {
		return httpapi.NewError(http.StatusServiceUnavailable, MsgUnavailable)
	}
	raw, err := io.ReadAll(e.Request.Body)
	if err != nil {
		return httpapi.BadRequest("Cuerpo ilegible")
	}
	if !VerifySignature(secret, e.Request.Header.Get("X-Hub-Signature-256"), raw) {
		e.App.Logger().Warn("whatsapp: webhook with a bad signature refused", "ip", e.RealIP())
		return httpapi.Unauthorized(MsgSignature)
	}
	var body webhookBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return httpapi.BadRequest("Cuerpo JSON inválido")
	}
	unknown := 0
	applied := 0
	for _, en := range body.Entry {
		for _, ch := range en.Changes {
			if ch.Field != "messages" {
				continue
			}
			for _, st := range ch.Value.Statuses {
				ok, known, err := applyStatus(e.App, st)
				if err != nil {
					return httpapi.Internal(err)
				}
				if !known && young(st.Timestamp) {
					unknown++
				}
				if ok {
					applied++
				}
			}
		}
	}
	if unknown > 0 {
		return httpapi.NewError(http.StatusServiceUnavailable, MsgRetryLater)
	}
	return e.JSON(http.StatusOK, map[string]any{"applied": applied})
}

// young reports whether a status's unix timestamp is within UnknownGrace.
func young(ts string) bool {
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	return time.Since(time.Unix(n, 0)) < UnknownGrace
}

// statusMoves are the webhook's statuses: the state they move to and the
// states they may move from.
var statusMoves = map[string]struct {
	to   string
	from []any
	at   string
}{
	"sent":      {StatusSent, []any{StatusAccepted}, "sentAt"},
	"delivered": {StatusDelivered, []any{StatusAccepted, StatusSent}, "deliveredAt"},
	"read":      {StatusRead, []any{StatusAccepted, StatusSent, StatusDelivered}, "readAt"},
	"failed":    {StatusFailed, []any{StatusAccepted, StatusSent}, "failedAt"},
}

// applyStatus applies one status: changed reports whether it moved the
// message, known whether the message id is in the outbox.
func applyStatus(app core.App, st statusEvent) (changed, known bool, err error) {
	move, ok := statusMoves[st.Status]
	if st.ID == "" {
		return false, true, nil
	}
	var r row
	err = app.DB().Select("id", "user", "kind", "notification", "fallback", "title", "body", "url").
		From(Collection).Where(dbx.HashExp{"wamid": st.ID}).Limit(1).One(&r)
	if err != nil {
		return false, false, nil
	}
	if !ok {
		return false, true, nil // a status the service does not follow (e.g. "deleted")
	}
	at := types.NowDateTime()
	if n, perr := strconv.ParseInt(st.Timestamp, 10, 64); perr == nil && n > 0 {
		at, _ = types.ParseDateTime(time.Unix(n, 0).UTC())
	}
	set := []string{"status = {:to}", move.at + " = {:at}", "updated = {:now}"}
	params := dbx.Params{"to": move.to, "at": at.String(), "now": types.NowDateTime().String(), "wamid": st.ID}
	switch move.to {
	case StatusDelivered, StatusRead:
		// A read message was delivered and sent, whatever came first; its
		// texts are no longer needed for a fallback.
		set = append(set, "sentAt = CASE WHEN sentAt = '' THEN {:at} ELSE sentAt END",
			"title = ''", "body = ''", "url = ''")
		if move.to == StatusRead {
			set = append(set, "deliveredAt = CASE WHEN deliveredAt = '' THEN {:at} ELSE deliveredAt END")
		}
	case StatusFailed:
		code, title := 0, "failed"
		if len(st.Errors) > 0 {
			code, title = st.Errors[0].Code, st.Errors[0].Title
		}
		set = append(set, "errorCode = {:code}", "lastError = {:err}", "fellBack = fallback")
		params["code"], params["err"] = code, clip("webhook: "+title, 900)
	}
	from := make([]string, len(move.from))
	for i, s := range move.from {
		from[i] = "{:from" + itoa(i) + "}"
		params["from"+itoa(i)] = s
	}
	res, err := app.DB().NewQuery("UPDATE " + Collection + " SET " + strings.Join(set, ", ") +
		" WHERE wamid = {:wamid} AND status IN (" + strings.Join(from, ", ") + ")").Bind(params).Execute()
	if err != nil {
		return false, true, err
	}
	n, _ := res.RowsAffected()
	if n == 1 && move.to == StatusFailed {
		fallBack(app, r)
	}
	return n == 1, true, nil
}
