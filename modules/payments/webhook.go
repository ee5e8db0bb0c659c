package payments

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"camellos/internal/clock"
	"camellos/internal/config"
	"camellos/internal/httpapi"

	"github.com/pocketbase/pocketbase/core"
)

// SignatureMaxAge is how old (or how far in the future) a notification's
// signed timestamp may be. An older one is refused as a replay; nothing is
// lost by that: the sweep polls every open payment (Reconcile).
const SignatureMaxAge = time.Hour

// Manifest is the text Mercado Pago signs for a notification:
// "id:{data.id};request-id:{x-request-id};ts:{ts};", each part left out
// when its value is absent, data.id lower-cased (it may be alphanumeric).
func Manifest(dataID, requestID, ts string) string {
	var b strings.Builder
	if dataID != "" {
		b.WriteString("id:" + strings.ToLower(dataID) + ";")
	}
	if requestID != "" {
		b.WriteString("request-id:" + requestID + ";")
	}
	if ts != "" {
		b.WriteString("ts:" + ts + ";")
	}
	return b.String()
}

// Sign is the v1 signature of a manifest: hex HMAC-SHA256 with the secret.
func Sign(secret, manifest string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(manifest))
	return hex.EncodeToString(mac.Sum(nil))
}

// Signature errors.
var (
	ErrSignatureMissing = errors.New("payments: x-signature missing or malformed")
	ErrSignatureInvalid = errors.New("payments: x-signature does not match")
	ErrSignatureStale   = errors.New("payments: x-signature timestamp outside the accepted window")
)

// VerifySignature checks a notification's x-signature header
// ("ts=…,v1=…") as Mercado Pago documents it, in constant time, and its
// timestamp against now (seconds or milliseconds since the epoch).
func VerifySignature(secret, header, requestID, dataID string, now time.Time) error {
	var ts, v1 string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "ts":
			ts = strings.TrimSpace(v)
		case "v1":
			v1 = strings.TrimSpace(v)
		}
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	if secret == "" || v1 == "" || err != nil || n <= 0 {
		return ErrSignatureMissing
	}
	want := Sign(secret, Manifest(dataID, requestID, ts))
	if !hmac.Equal([]byte(strings.ToLower(v1)), []byte(want)) {
		return ErrSignatureInvalid
	}
	at := time.Unix(n, 0)
	if n > 1e12 {
		at = time.UnixMilli(n)
	}
	if d := now.Sub(at); d > SignatureMaxAge || d < -SignatureMaxAge {
		return ErrSignatureStale
	}
	return nil
}

// maxWebhookBody bounds a notification's body (they are a few hundred bytes).
const maxWebhookBody = 16 << 10

type notification struct {
	Type   string `json:"type"`
	Action string `json:"action"`
	Data   struct {
		ID json.RawMessage `json:"id"`
	} `json:"data"`
}

// webhookReceive handles POST /api/payments/webhook: Mercado Pago's
// notification of a changed payment. The signature is checked (401
// otherwise); the payment is then read from the gateway, never from the
// notification, and applied (Apply: at most once per transition). A
// gateway failure answers 502 so that Mercado Pago delivers it again.
func webhookReceive(e *core.RequestEvent) error {
	cfg := config.Of(e.App)
	gw, err := gatewayOf(e.App)
	if err != nil {
		return httpapi.NewError(http.StatusServiceUnavailable, MsgDisabled)
	}
	raw, err := io.ReadAll(io.LimitReader(e.Request.Body, maxWebhookBody+1))
	if err != nil || len(raw) > maxWebhookBody {
		return httpapi.BadRequest("Notificación inválida")
	}
	var n notification
	_ = json.Unmarshal(raw, &n) // a body that is not JSON still may carry the query's id
	q := e.Request.URL.Query()
	dataID := q.Get("data.id")
	if dataID == "" {
		dataID = q.Get("id")
	}
	if dataID == "" && len(n.Data.ID) > 0 {
		dataID = strings.Trim(string(n.Data.ID), `"`)
	}
	kind := q.Get("type")
	if kind == "" {
		kind = q.Get("topic")
	}
	if kind == "" {
		kind = n.Type
	}
	if err := VerifySignature(cfg.MercadoPagoWebhookSecret, e.Request.Header.Get("x-signature"),
		e.Request.Header.Get("x-request-id"), dataID, clock.Now(e.App)); err != nil {
		e.App.Logger().Warn("payments: webhook refused", "error", err.Error(), "dataId", dataID)
		return httpapi.Unauthorized(MsgBadSignature)
	}
	if kind != "payment" || dataID == "" {
		return e.JSON(http.StatusOK, map[string]any{"received": true, "applied": string(OutcomeNone)})
	}
	gp, err := gw.payment(context.Background(), dataID)
	if err != nil {
		e.App.Logger().Warn("payments: webhook payment not read", "dataId", dataID, "error", err.Error())
		return httpapi.NewError(http.StatusBadGateway, MsgGatewayDown)
	}
	out, err := Apply(e.App, gp)
	if errors.Is(err, errNotOurs) {
		return e.JSON(http.StatusOK, map[string]any{"received": true, "applied": string(OutcomeNone)})
	}
	if err != nil {
		return err
	}
	return e.JSON(http.StatusOK, map[string]any{"received": true, "applied": string(out)})
}
