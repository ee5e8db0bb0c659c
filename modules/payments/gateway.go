package payments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"camellos/internal/config"

	mpconfig "github.com/mercadopago/sdk-go/pkg/config"
	"github.com/mercadopago/sdk-go/pkg/payment"
	"github.com/mercadopago/sdk-go/pkg/preference"
	mprefund "github.com/mercadopago/sdk-go/pkg/refund"
	"github.com/pocketbase/pocketbase/core"
)

// The gateway is Mercado Pago, through its official Go SDK
// (github.com/mercadopago/sdk-go). The SDK's URLs are fixed to
// https://api.mercadopago.com; our requester sends them to
// MERCADOPAGO_API_URL instead when it is set (a local test server), and
// replaces the random X-Idempotency-Key the SDK puts on every POST by our
// payment id, so that a retried creation (after a crash, a timeout) is the
// same operation for Mercado Pago.

// GatewayTimeout bounds one call to the gateway.
const GatewayTimeout = 20 * time.Second

// ErrGateway wraps every failure to reach or understand the gateway.
var ErrGateway = errors.New("payments: gateway")

type idemKey struct{}

// withIdempotencyKey makes the POSTs made with ctx carry key as their
// X-Idempotency-Key.
func withIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idemKey{}, key)
}

// requester is the SDK's HTTP client: base URL override and our
// idempotency key.
type requester struct {
	base   *url.URL
	client *http.Client
}

func (r *requester) Do(req *http.Request) (*http.Response, error) {
	if r.base != nil && req.URL.Host == "api.mercadopago.com" {
		req.URL.Scheme = r.base.Scheme
		req.URL.Host = r.base.Host
		req.URL.Path = r.base.Path + req.URL.Path
		req.Host = r.base.Host
	}
	if k, ok := req.Context().Value(idemKey{}).(string); ok && k != "" && req.Method != http.MethodGet {
		req.Header.Set("X-Idempotency-Key", k)
	}
	return r.client.Do(req)
}

// Gateway is the part of Mercado Pago the service uses.
type Gateway struct {
	preferences preference.Client
	payments    payment.Client
	refunds     mprefund.Client
}

const (
	gatewayKey    = "camellos.payments.gateway"
	httpClientKey = "camellos.payments.httpClient"
)

// SetHTTPClient makes app's gateway use c (tests: the client of a local
// TLS server that trusts its certificate). Call it before the first payment.
func SetHTTPClient(app core.App, c *http.Client) { app.Store().Set(httpClientKey, c) }

type gatewayHolder struct {
	once sync.Once
	gw   *Gateway
	err  error
}

// gatewayOf is app's gateway, built once from the configuration; nil with
// ErrDisabled when no access token is configured.
func gatewayOf(app core.App) (*Gateway, error) {
	h := app.Store().GetOrSet(gatewayKey, func() any { return &gatewayHolder{} }).(*gatewayHolder)
	h.once.Do(func() {
		cfg := config.Of(app)
		if !cfg.PaymentsEnabled() {
			h.err = ErrDisabled
			return
		}
		client, _ := app.Store().Get(httpClientKey).(*http.Client)
		if client == nil {
			client = &http.Client{Timeout: GatewayTimeout}
		}
		r := &requester{client: client}
		if cfg.MercadoPagoAPIURL != config.DefaultMercadoPagoAPIURL {
			u, err := url.Parse(cfg.MercadoPagoAPIURL)
			if err != nil {
				h.err = err
				return
			}
			r.base = u
		}
		mp, err := mpconfig.New(cfg.MercadoPagoAccessToken, mpconfig.WithHTTPClient(r))
		if err != nil {
			h.err = err
			return
		}
		h.gw = &Gateway{preferences: preference.NewClient(mp), payments: payment.NewClient(mp), refunds: mprefund.NewClient(mp)}
	})
	return h.gw, h.err
}

// checkout is what the gateway answered for a payment's checkout.
type checkout struct {
	PreferenceID string
	URL          string
}

// createCheckout creates the checkout preference of p (Checkout Pro): one
// item at the agreed price in COP, p's id as external_reference and as
// idempotency key, the client sent back to the job page, notifications
// to our webhook.
func (g *Gateway) createCheckout(ctx context.Context, appURL string, p *Payment, title string) (checkout, error) {
	ctx, cancel := context.WithTimeout(withIdempotencyKey(ctx, p.Id), GatewayTimeout)
	defer cancel()
	back := appURL + "/trabajo.html?id=" + url.QueryEscape(p.JobID()) + "&pago=" + url.QueryEscape(p.Id)
	res, err := g.preferences.Create(ctx, preference.Request{
		Items: []preference.ItemRequest{{
			ID: p.JobID(), Title: title, Quantity: 1, CurrencyID: Currency, UnitPrice: float64(p.Amount()),
		}},
		ExternalReference:   p.Id,
		BackURLs:            &preference.BackURLsRequest{Success: back, Pending: back, Failure: back},
		AutoReturn:          "approved",
		NotificationURL:     appURL + WebhookPath + "?source_news=webhooks",
		StatementDescriptor: "CAMELLOS",
	})
	if err != nil {
		return checkout{}, fmt.Errorf("%w: preference: %v", ErrGateway, err)
	}
	if res.ID == "" || res.InitPoint == "" {
		return checkout{}, fmt.Errorf("%w: preference without id or init_point", ErrGateway)
	}
	return checkout{PreferenceID: res.ID, URL: res.InitPoint}, nil
}

// gatewayPayment is the part of a gateway payment the service acts on.
type gatewayPayment struct {
	ID                string
	Status            string
	StatusDetail      string
	ExternalReference string
	Amount            int64
	Currency          string
}

func fromResponse(r *payment.Response) (gatewayPayment, error) {
	amount := math.Round(r.TransactionAmount)
	if r.ID == 0 || amount != r.TransactionAmount || amount < 0 || amount > 1e12 {
		return gatewayPayment{}, fmt.Errorf("%w: payment %d with amount %v", ErrGateway, r.ID, r.TransactionAmount)
	}
	return gatewayPayment{ID: strconv.Itoa(r.ID), Status: r.Status, StatusDetail: r.StatusDetail,
		ExternalReference: r.ExternalReference, Amount: int64(amount), Currency: r.CurrencyID}, nil
}

// payment reads one gateway payment (GET /v1/payments/{id}).
func (g *Gateway) payment(ctx context.Context, id string) (gatewayPayment, error) {
	n, err := strconv.Atoi(id)
	if err != nil || n <= 0 {
		return gatewayPayment{}, fmt.Errorf("%w: payment id %q", ErrGateway, id)
	}
	ctx, cancel := context.WithTimeout(ctx, GatewayTimeout)
	defer cancel()
	res, err := g.payments.Get(ctx, n)
	if err != nil {
		return gatewayPayment{}, fmt.Errorf("%w: payment %s: %v", ErrGateway, id, err)
	}
	return fromResponse(res)
}

// paymentsOf lists the gateway payments of our payment ref (GET
// /v1/payments/search?external_reference=ref): every attempt made in its
// checkout (a rejected card, then an approved one).
func (g *Gateway) paymentsOf(ctx context.Context, ref string) ([]gatewayPayment, error) {
	ctx, cancel := context.WithTimeout(ctx, GatewayTimeout)
	defer cancel()
	res, err := g.payments.Search(ctx, payment.SearchRequest{
		Limit:   30,
		Filters: map[string]string{"external_reference": ref, "sort": "date_created", "criteria": "desc"},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: search %s: %v", ErrGateway, ref, err)
	}
	out := make([]gatewayPayment, 0, len(res.Results))
	for i := range res.Results {
		gp, err := fromResponse(&res.Results[i])
		if err != nil {
			return nil, err
		}
		if gp.ExternalReference == ref {
			out = append(out, gp)
		}
	}
	return out, nil
}

// refund has Mercado Pago give amount of gateway payment id back to the
// buyer (POST /v1/payments/{id}/refunds, with {amount} unless it is the
// whole payment), with key as the idempotency key: a retried refund
// (after a crash, a timeout) is the same refund. It answers the refund id.
func (g *Gateway) refund(ctx context.Context, id string, amount int64, whole bool, key string) (string, error) {
	n, err := strconv.Atoi(id)
	if err != nil || n <= 0 {
		return "", fmt.Errorf("%w: payment id %q", ErrGateway, id)
	}
	ctx, cancel := context.WithTimeout(withIdempotencyKey(ctx, key), GatewayTimeout)
	defer cancel()
	var res *mprefund.Response
	if whole {
		res, err = g.refunds.Create(ctx, n)
	} else {
		res, err = g.refunds.CreatePartialRefund(ctx, n, float64(amount))
	}
	if err != nil {
		return "", fmt.Errorf("%w: refund of %s: %v", ErrGateway, id, err)
	}
	if res.ID == 0 || math.Round(res.Amount) != float64(amount) {
		return "", fmt.Errorf("%w: refund of %s answered id %d amount %v", ErrGateway, id, res.ID, res.Amount)
	}
	return strconv.Itoa(res.ID), nil
}
