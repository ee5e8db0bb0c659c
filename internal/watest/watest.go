// Package watest is a local HTTPS test server that follows the WhatsApp
// Business Cloud API (Meta's Graph API) as Meta publishes it, for exactly
// the call the service makes, and delivers status webhooks signed as Meta
// documents them (X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256 of the
// raw body keyed with the app secret). It is a model written from the
// public documentation for tests, NOT Meta's service: docs/api/whatsapp.md
// lists what it models and what it does not.
//
// Call served (JSON; Authorization: Bearer <token> required):
//
//	POST /{version}/{phone-number-id}/messages   type "template" only
//
// 200 {"messaging_product":"whatsapp","contacts":[{"input","wa_id"}],
// "messages":[{"id":"wamid.…","message_status":"accepted"}]}; errors as
// Meta's error object {"error":{"message","type","code","error_data":
// {"messaging_product","details"},"fbtrace_id"}} with its codes: 190 (bad
// token, 401), 100 (bad parameter or path), 132001 (template unknown in
// that language), 132000 (parameter count), 132018 (a parameter with a
// newline, a tab or more than four spaces in a row), and what FailNext
// injects (131000 outages, 130429 rate limits, 131026 undeliverable…).
package watest

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is the test server.
type Server struct {
	*httptest.Server
	Token         string // the bearer the API requires
	AppSecret     string // signs the webhooks
	VerifyToken   string // what a subscription check sends as hub.verify_token
	PhoneNumberID string // the sending number's id
	Version       string // the Graph API version of the path
	// Webhook is where status deliveries go (the service's webhook URL).
	Webhook string

	mu        sync.Mutex
	templates map[string]tmpl // name|language → template
	sent      []Message
	fails     []Failure
	calls     int
}

type tmpl struct {
	params int
	auth   bool
}

// Message is a message the API accepted.
type Message struct {
	ID       string
	To       string
	Template string
	Language string
	Params   []string
	Button   []string // the copy-code button's parameters (authentication templates)
}

// Failure is an answer FailNext injects instead of accepting a message.
type Failure struct {
	Status  int
	Code    int
	Message string
}

// Injected failures as Meta answers them.
var (
	Outage        = Failure{Status: 500, Code: 131000, Message: "Something went wrong"}
	RateLimited   = Failure{Status: 400, Code: 130429, Message: "Rate limit hit"}
	Undeliverable = Failure{Status: 400, Code: 131026, Message: "Message undeliverable"}
)

// New starts the server for the test's duration.
func New(t testing.TB) *Server {
	s := &Server{Token: "EAAG-prueba-0000", AppSecret: "app-secret-de-prueba", VerifyToken: "verificar-camellos",
		PhoneNumberID: "109876543210", Version: "v23.0", templates: map[string]tmpl{}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Env is the service's configuration for this server.
func (s *Server) Env() map[string]string {
	return map[string]string{
		"WHATSAPP_TOKEN": s.Token, "WHATSAPP_PHONE_NUMBER_ID": s.PhoneNumberID,
		"WHATSAPP_APP_SECRET": s.AppSecret, "WHATSAPP_VERIFY_TOKEN": s.VerifyToken,
		"WHATSAPP_API_URL": s.URL, "WHATSAPP_API_VERSION": s.Version,
	}
}

// Approve makes a template usable, as its approval in WhatsApp Manager
// does: its name, language, how many body parameters it has, and whether
// it is an authentication template (a copy-code button taking the code).
func (s *Server) Approve(name, language string, params int, authentication bool) {
	s.mu.Lock()
	s.templates[name+"|"+language] = tmpl{params: params, auth: authentication}
	s.mu.Unlock()
}

// FailNext makes the next API calls answer these failures, in order.
func (s *Server) FailNext(f ...Failure) {
	s.mu.Lock()
	s.fails = append(s.fails, f...)
	s.mu.Unlock()
}

// Sent is every message accepted so far, in order.
func (s *Server) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.sent...)
}

// Calls is how many message calls arrived (accepted or not).
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	want := "/" + s.Version + "/" + s.PhoneNumberID + "/messages"
	if r.Method != http.MethodPost || r.URL.Path != want {
		writeError(w, 400, 100, "Unsupported post request. Object with ID does not exist, cannot be loaded due to missing permissions, or does not support this operation", "")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		writeError(w, 401, 190, "Invalid OAuth access token - Cannot parse access token", "")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, 400, 100, "Invalid parameter", "the body must be JSON")
		return
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	s.calls++
	var fail *Failure
	if len(s.fails) > 0 {
		f := s.fails[0]
		s.fails = s.fails[1:]
		fail = &f
	}
	s.mu.Unlock()
	if fail != nil {
		writeError(w, fail.Status, fail.Code, fail.Message, "")
		return
	}
	var in struct {
		MessagingProduct string `json:"messaging_product"`
		RecipientType    string `json:"recipient_type"`
		To               string `json:"to"`
		Type             string `json:"type"`
		Template         *struct {
			Name     string `json:"name"`
			Language struct {
				Code string `json:"code"`
			} `json:"language"`
			Components []struct {
				Type       string `json:"type"`
				SubType    string `json:"sub_type"`
				Index      string `json:"index"`
				Parameters []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"parameters"`
			} `json:"components"`
		} `json:"template"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		writeError(w, 400, 100, "Invalid parameter", "the body is not JSON")
		return
	}
	switch {
	case in.MessagingProduct != "whatsapp":
		writeError(w, 400, 100, "(#100) The parameter messaging_product is required.", "")
		return
	case in.RecipientType != "" && in.RecipientType != "individual":
		writeError(w, 400, 100, "(#100) Param recipient_type must be one of {INDIVIDUAL, GROUP}", "")
		return
	case !digits(in.To) || len(in.To) < 8 || len(in.To) > 15:
		writeError(w, 400, 100, "(#100) Invalid parameter", "to: a phone number in international format is required")
		return
	case in.Type != "template" || in.Template == nil:
		// The model serves template messages only (the only kind that opens a conversation).
		writeError(w, 400, 100, "(#100) Invalid parameter", "type: only template is modelled")
		return
	}
	s.mu.Lock()
	tp, ok := s.templates[in.Template.Name+"|"+in.Template.Language.Code]
	s.mu.Unlock()
	if !ok {
		writeError(w, 404, 132001, "(#132001) Template name does not exist in the translation",
			"template name ("+in.Template.Name+") does not exist in "+in.Template.Language.Code)
		return
	}
	var body, button []string
	for _, c := range in.Template.Components {
		var texts []string
		for _, p := range c.Parameters {
			if p.Type != "text" {
				writeError(w, 400, 132012, "(#132012) Parameter format does not match format in the created template", "")
				return
			}
			if strings.ContainsAny(p.Text, "\n\t") || strings.Contains(p.Text, "     ") || p.Text == "" {
				writeError(w, 400, 132018, "(#132018) There was an issue with the parameters in your template.",
					"Param text cannot have new-line/tab characters or more than 4 consecutive spaces")
				return
			}
			texts = append(texts, p.Text)
		}
		switch {
		case c.Type == "body":
			body = texts
		case c.Type == "button" && c.SubType == "url" && c.Index == "0":
			button = texts
		}
	}
	if len(body) != tp.params {
		writeError(w, 400, 132000, "(#132000) Number of parameters does not match the expected number of params",
			fmt.Sprintf("body: number of localizable_params (%d) does not match the expected number of params (%d)", len(body), tp.params))
		return
	}
	if tp.auth && (len(button) != 1 || len(body) != 1 || button[0] != body[0]) {
		writeError(w, 400, 131008, "(#131008) Required parameter is missing", "buttons: the copy-code button needs the code")
		return
	}
	m := Message{ID: newWAMID(), To: in.To, Template: in.Template.Name, Language: in.Template.Language.Code,
		Params: body, Button: button}
	s.mu.Lock()
	s.sent = append(s.sent, m)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"messaging_product": "whatsapp",
		"contacts":          []any{map[string]any{"input": in.To, "wa_id": in.To}},
		"messages":          []any{map[string]any{"id": m.ID, "message_status": "accepted"}},
	})
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// newWAMID is a message id of Meta's shape ("wamid." and base64 text).
func newWAMID() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "wamid.HBgM" + strings.ToUpper(hex.EncodeToString(b))
}

func writeError(w http.ResponseWriter, status, code int, msg, details string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]any{"message": msg, "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEfGh123"}
	if details != "" {
		e["error_data"] = map[string]any{"messaging_product": "whatsapp", "details": details}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// Status is one status of a message as the webhook reports it.
type Status struct {
	WAMID     string
	Status    string // sent, delivered, read, failed
	Recipient string
	At        time.Time
	ErrorCode int // failed: Meta's error code
}

// Delivery is one webhook POST: its raw body and the signature header.
type Delivery struct {
	Body      []byte
	Signature string
}

// Statuses builds a signed delivery of statuses, in the shape Meta sends
// (object whatsapp_business_account, one entry, one change of field
// "messages" whose value carries metadata and statuses).
func (s *Server) Statuses(st ...Status) *Delivery {
	list := make([]any, 0, len(st))
	for _, x := range st {
		at := x.At
		if at.IsZero() {
			at = time.Now()
		}
		item := map[string]any{
			"id": x.WAMID, "status": x.Status, "timestamp": strconv.FormatInt(at.Unix(), 10),
			"recipient_id": x.Recipient,
		}
		if x.Status != "failed" && x.Status != "read" {
			item["conversation"] = map[string]any{"id": "conv-" + x.WAMID[len(x.WAMID)-8:],
				"origin": map[string]any{"type": "utility"}}
			item["pricing"] = map[string]any{"billable": true, "pricing_model": "PMP", "category": "utility"}
		}
		if x.Status == "failed" {
			item["errors"] = []any{map[string]any{"code": x.ErrorCode, "title": "Message undeliverable",
				"message": "Message undeliverable", "error_data": map[string]any{"details": "Message Undeliverable."}}}
		}
		list = append(list, item)
	}
	body, _ := json.Marshal(map[string]any{
		"object": "whatsapp_business_account",
		"entry": []any{map[string]any{"id": "102290129340398", "changes": []any{map[string]any{
			"field": "messages",
			"value": map[string]any{
				"messaging_product": "whatsapp",
				"metadata":          map[string]any{"display_phone_number": "15550783881", "phone_number_id": s.PhoneNumberID},
				"statuses":          list,
			},
		}}}},
	})
	return &Delivery{Body: body, Signature: Sign(s.AppSecret, body)}
}

// Sign is X-Hub-Signature-256 of body with secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Forged is d signed with another secret (an attacker's delivery).
func (d *Delivery) Forged() *Delivery {
	return &Delivery{Body: d.Body, Signature: Sign("not-the-app-secret", d.Body)}
}

// Tampered is d's signature over a changed body.
func (d *Delivery) Tampered(body []byte) *Delivery {
	return &Delivery{Body: body, Signature: d.Signature}
}

// Deliver posts d to the server's Webhook with client and answers the
// status code (0 when the request failed).
func (s *Server) Deliver(client *http.Client, d *Delivery) int {
	req, err := http.NewRequest(http.MethodPost, s.Webhook, bytes.NewReader(d.Body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	if d.Signature != "" {
		req.Header.Set("X-Hub-Signature-256", d.Signature)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}
