// Package mptest is a local HTTPS test server that follows Mercado Pago's
// published API for exactly the calls the service makes through the
// official Go SDK, and delivers webhooks signed as Mercado Pago documents.
// It is a model written from the public documentation for tests, NOT
// Mercado Pago: docs/api/payments.md lists the behaviours it models and
// those it does not.
//
// Calls served (JSON, Authorization: Bearer <access token> required, 401
// otherwise):
//
//	POST /checkout/preferences        201 a preference (id, init_point, …); the same
//	                                  X-Idempotency-Key answers the same preference
//	GET  /v1/payments/{id}            200 a payment, 404 unknown
//	GET  /v1/payments/search          200 {paging, results}, filter external_reference,
//	                                  sort date_created, criteria asc|desc
//	POST /v1/payments/{id}/refunds    201 a refund, in full or {amount} in part, of an
//	                                  approved payment; the same X-Idempotency-Key
//	                                  answers the same refund
//
// The test plays the buyer and Mercado Pago's back office: Pay makes a
// payment in a preference's checkout, SetStatus changes one (a refund),
// Notification builds a signed webhook and Deliver sends it — once, twice,
// late, never, with a wrong secret or again after the window.
package mptest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is the test server.
type Server struct {
	*httptest.Server
	// Token is the access token the API requires.
	Token string
	// Secret signs the webhooks.
	Secret string
	// Webhook is where notifications go (the service's webhook URL).
	Webhook string
	// Now is the server's clock (the signatures' ts).
	Now func() time.Time

	mu       sync.Mutex
	prefs    map[string]*Preference
	byKey    map[string]string // idempotency key → preference id
	payments map[int]*Payment
	refunds  map[string]*Refund // idempotency key → refund
	nextID   int
	calls    map[string]int
	failNext int
	hold     chan struct{} // when set, API answers wait for it (a slow gateway)
}

// Preference is a stored checkout preference.
type Preference struct {
	ID                string         `json:"id"`
	InitPoint         string         `json:"init_point"`
	SandboxInitPoint  string         `json:"sandbox_init_point"`
	ExternalReference string         `json:"external_reference"`
	NotificationURL   string         `json:"notification_url"`
	AutoReturn        string         `json:"auto_return"`
	BackURLs          map[string]any `json:"back_urls"`
	Items             []struct {
		ID         string  `json:"id"`
		Title      string  `json:"title"`
		Quantity   int     `json:"quantity"`
		CurrencyID string  `json:"currency_id"`
		UnitPrice  float64 `json:"unit_price"`
	} `json:"items"`
	DateCreated string `json:"date_created"`
	CollectorID int    `json:"collector_id"`
}

// Payment is a stored payment (the fields the documentation shows that the
// SDK's Response reads and the service uses).
type Payment struct {
	ID                        int       `json:"id"`
	Status                    string    `json:"status"`
	StatusDetail              string    `json:"status_detail"`
	ExternalReference         string    `json:"external_reference"`
	TransactionAmount         float64   `json:"transaction_amount"`
	TransactionAmountRefunded float64   `json:"transaction_amount_refunded"`
	CurrencyID                string    `json:"currency_id"`
	PaymentMethodID           string    `json:"payment_method_id"`
	PaymentTypeID             string    `json:"payment_type_id"`
	DateCreated               time.Time `json:"date_created"`
	DateLastUpdated           time.Time `json:"date_last_updated"`
	DateApproved              time.Time `json:"date_approved,omitzero"`
	LiveMode                  bool      `json:"live_mode"`
	NotificationURL           string    `json:"notification_url"`
	preference                string
}

// New starts the server for the test's duration.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts the server outside a test (the bench); Close stops it.
func Start() *Server {
	s := &Server{Token: "TEST-0000-token", Secret: "webhook-secret-de-prueba", Now: time.Now,
		prefs: map[string]*Preference{}, byKey: map[string]string{}, payments: map[int]*Payment{}, refunds: map[string]*Refund{},
		nextID: 1_300_000_000, calls: map[string]int{}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	return s
}

// Calls is how many requests an endpoint got ("POST /checkout/preferences").
func (s *Server) Calls(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[endpoint]
}

// FailNext makes the next n API calls answer 500 (an outage).
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	s.failNext = n
	s.mu.Unlock()
}

// Hold makes every API answer wait, after its work is done, until release
// is called (or the caller gives up).
func (s *Server) Hold() (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.hold = ch
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.hold = nil
			s.mu.Unlock()
			close(ch)
		})
	}
}

type apiError struct {
	Message string `json:"message"`
	Error   string `json:"error"`
	Status  int    `json:"status"`
	Cause   []any  `json:"cause"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// serve answers a call; while Hold is in force the call's work is done
// (a preference is stored) but the answer waits: the gateway has acted and
// the caller has not heard back yet.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.answer(rec, r)
	s.mu.Lock()
	hold := s.hold
	s.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	endpoint := r.Method + " " + r.URL.Path
	if strings.HasPrefix(r.URL.Path, "/v1/payments/") && strings.HasSuffix(r.URL.Path, "/refunds") {
		endpoint = r.Method + " /v1/payments/{id}/refunds"
	} else if strings.HasPrefix(r.URL.Path, "/v1/payments/") && r.URL.Path != "/v1/payments/search" {
		endpoint = r.Method + " /v1/payments/{id}"
	}
	s.mu.Lock()
	s.calls[endpoint]++
	fail := s.failNext > 0
	if fail {
		s.failNext--
	}
	s.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		writeJSON(w, 401, apiError{"invalid access token", "unauthorized", 401, []any{}})
		return
	}
	if fail {
		writeJSON(w, 500, apiError{"internal_error", "internal_error", 500, []any{}})
		return
	}
	switch {
	case endpoint == "POST /checkout/preferences":
		s.createPreference(w, r)
	case endpoint == "GET /v1/payments/search":
		s.search(w, r)
	case endpoint == "GET /v1/payments/{id}":
		s.getPayment(w, r)
	case endpoint == "POST /v1/payments/{id}/refunds":
		s.createRefund(w, r)
	default:
		writeJSON(w, 404, apiError{"resource not found", "not_found", 404, []any{}})
	}
}

func (s *Server) createPreference(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var p Preference
	if err := json.Unmarshal(raw, &p); err != nil {
		writeJSON(w, 400, apiError{"invalid json", "bad_request", 400, []any{}})
		return
	}
	if len(p.Items) == 0 {
		writeJSON(w, 400, apiError{"items needed", "invalid_items", 400, []any{}})
		return
	}
	for _, it := range p.Items {
		if it.Quantity <= 0 || it.UnitPrice <= 0 || it.CurrencyID != "COP" || it.Title == "" {
			writeJSON(w, 400, apiError{"invalid item", "invalid_items", 400, []any{}})
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := r.Header.Get("X-Idempotency-Key")
	if id, ok := s.byKey[key]; ok && key != "" {
		writeJSON(w, 201, s.prefs[id])
		return
	}
	s.nextID++
	p.ID = fmt.Sprintf("123456789-%d", s.nextID)
	p.CollectorID = 123456789
	p.InitPoint = s.URL + "/checkout/v1/redirect?pref_id=" + p.ID
	p.SandboxInitPoint = s.URL + "/checkout/v1/redirect?pref_id=" + p.ID + "&sandbox=1"
	p.DateCreated = s.Now().UTC().Format(time.RFC3339Nano)
	s.prefs[p.ID] = &p
	if key != "" {
		s.byKey[key] = p.ID
	}
	writeJSON(w, 201, &p)
}

func (s *Server) getPayment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/v1/payments/"))
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.payments[id]
	if !ok {
		writeJSON(w, 404, apiError{"Payment not found", "not_found", 404, []any{map[string]any{"code": 2000, "description": "Payment not found"}}})
		return
	}
	writeJSON(w, 200, p)
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("offset"))
	if limit <= 0 || limit > 1000 {
		limit = 30
	}
	s.mu.Lock()
	var found []Payment
	for _, p := range s.payments {
		if ref := q.Get("external_reference"); ref != "" && p.ExternalReference != ref {
			continue
		}
		found = append(found, *p)
	}
	s.mu.Unlock()
	sort.Slice(found, func(i, j int) bool {
		if q.Get("criteria") == "desc" {
			i, j = j, i
		}
		if !found[i].DateCreated.Equal(found[j].DateCreated) {
			return found[i].DateCreated.Before(found[j].DateCreated)
		}
		return found[i].ID < found[j].ID
	})
	total := len(found)
	if offset > len(found) {
		offset = len(found)
	}
	found = found[offset:min(len(found), offset+limit)]
	if found == nil {
		found = []Payment{}
	}
	writeJSON(w, 200, map[string]any{"paging": map[string]int{"total": total, "limit": limit, "offset": offset}, "results": found})
}

// Refund is a refund of a payment (POST /v1/payments/{id}/refunds).
type Refund struct {
	ID          int       `json:"id"`
	PaymentID   int       `json:"payment_id"`
	Amount      float64   `json:"amount"`
	Status      string    `json:"status"`
	RefundMode  string    `json:"refund_mode"`
	DateCreated time.Time `json:"date_created"`
	Source      struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"source"`
}

// createRefund refunds a payment in full (no body or no amount) or in
// part ({amount}), as documented: only an approved payment, never past
// what is left; the same X-Idempotency-Key answers the same refund.
// A payment refunded in full becomes "refunded".
func (s *Server) createRefund(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/payments/"), "/refunds"))
	var body struct {
		Amount float64 `json:"amount"`
	}
	if raw, _ := io.ReadAll(r.Body); len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			writeJSON(w, 400, apiError{"invalid json", "bad_request", 400, []any{}})
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := r.Header.Get("X-Idempotency-Key")
	if rf, ok := s.refunds[key]; ok && key != "" {
		writeJSON(w, 201, rf)
		return
	}
	p, ok := s.payments[id]
	if !ok {
		writeJSON(w, 404, apiError{"Payment not found", "not_found", 404, []any{map[string]any{"code": 2000, "description": "Payment not found"}}})
		return
	}
	left := p.TransactionAmount - p.TransactionAmountRefunded
	amount := body.Amount
	if amount == 0 {
		amount = left
	}
	if p.Status != "approved" || amount <= 0 || amount > left {
		writeJSON(w, 400, apiError{"Invalid refund amount or payment status", "bad_request", 400, []any{}})
		return
	}
	s.nextID++
	now := s.Now().UTC()
	rf := &Refund{ID: s.nextID, PaymentID: id, Amount: amount, Status: "approved", RefundMode: "standard", DateCreated: now}
	rf.Source.Type = "collector"
	p.TransactionAmountRefunded += amount
	p.DateLastUpdated = now
	if p.TransactionAmountRefunded >= p.TransactionAmount {
		p.Status, p.StatusDetail = "refunded", "refunded"
	}
	if key != "" {
		s.refunds[key] = rf
	}
	writeJSON(w, 201, rf)
}

// Refunded is how much of payment id was refunded.
func (s *Server) Refunded(id int) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.payments[id]; ok {
		return p.TransactionAmountRefunded
	}
	return 0
}

// Preferences is how many preferences were created.
func (s *Server) Preferences() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prefs)
}

// PreferenceByRef is the preference made for an external_reference.
func (s *Server) PreferenceByRef(ref string) *Preference {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prefs {
		if p.ExternalReference == ref {
			c := *p
			return &c
		}
	}
	return nil
}

// Pay makes a payment in the checkout of preference prefID, as the buyer
// would: status approved, pending (PSE, Efecty), rejected… with its detail.
func (s *Server) Pay(t testing.TB, prefID, status, detail string) int {
	t.Helper()
	id, err := s.PayNow(prefID, status, detail)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// PayNow is Pay outside a test (the bench): an unknown preference is an error.
func (s *Server) PayNow(prefID, status, detail string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pref, ok := s.prefs[prefID]
	if !ok {
		return 0, fmt.Errorf("mptest: no preference %q", prefID)
	}
	var amount float64
	for _, it := range pref.Items {
		amount += it.UnitPrice * float64(it.Quantity)
	}
	s.nextID++
	now := s.Now().UTC()
	p := &Payment{ID: s.nextID, Status: status, StatusDetail: detail, ExternalReference: pref.ExternalReference,
		TransactionAmount: amount, CurrencyID: "COP", PaymentMethodID: "pse", PaymentTypeID: "bank_transfer",
		DateCreated: now, DateLastUpdated: now, NotificationURL: pref.NotificationURL, preference: prefID}
	if status == "approved" {
		p.DateApproved = now
	}
	s.payments[p.ID] = p
	return p.ID, nil
}

// SetStatus changes a payment (an approval after pending, a refund).
func (s *Server) SetStatus(t testing.TB, id int, status, detail string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.payments[id]
	if !ok {
		t.Fatalf("mptest: no payment %d", id)
	}
	p.Status, p.StatusDetail, p.DateLastUpdated = status, detail, s.Now().UTC()
	if status == "approved" {
		p.DateApproved = p.DateLastUpdated
	}
	if status == "refunded" {
		p.TransactionAmountRefunded = p.TransactionAmount
	}
}

// Delivery is one webhook request, kept so that it can be sent again.
type Delivery struct {
	URL     string
	Body    []byte
	Headers map[string]string
}

var requestSeq struct {
	sync.Mutex
	n int
}

// Notification builds the webhook Mercado Pago sends when payment id
// changes: POST {Webhook}?data.id=ID&type=payment, a JSON body, and the
// x-request-id and x-signature headers, signed with Secret over
// "id:{data.id};request-id:{x-request-id};ts:{ts};".
func (s *Server) Notification(id int) *Delivery { return s.NotificationSignedWith(id, s.Secret) }

// NotificationSignedWith is Notification signed with another secret (a forgery).
func (s *Server) NotificationSignedWith(id int, secret string) *Delivery {
	requestSeq.Lock()
	requestSeq.n++
	reqID := fmt.Sprintf("bb56a2f1-6aae-46ac-982e-%012d", requestSeq.n)
	requestSeq.Unlock()
	now := s.Now().UTC()
	ts := strconv.FormatInt(now.Unix(), 10)
	dataID := strconv.Itoa(id)
	manifest := "id:" + dataID + ";request-id:" + reqID + ";ts:" + ts + ";"
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(manifest))
	body, _ := json.Marshal(map[string]any{
		"action": "payment.updated", "api_version": "v1", "data": map[string]string{"id": dataID},
		"date_created": now.Format(time.RFC3339), "id": 100000000 + requestSeq.n, "live_mode": false,
		"type": "payment", "user_id": "123456789",
	})
	return &Delivery{
		URL:  s.Webhook + "?data.id=" + dataID + "&type=payment",
		Body: body,
		Headers: map[string]string{
			"Content-Type": "application/json",
			"x-request-id": reqID,
			"x-signature":  "ts=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil)),
		},
	}
}

// Deliver sends d with client and answers the status (0 when the request
// could not be made).
func Deliver(client *http.Client, d *Delivery) int {
	req, err := http.NewRequest(http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return 0
	}
	for k, v := range d.Headers {
		req.Header.Set(k, v)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
