package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"camellos/internal/config"
)

// The call the service makes to the WhatsApp Business Cloud API (Meta's
// Graph API), as Meta documents it:
//
//	POST {WHATSAPP_API_URL}/{WHATSAPP_API_VERSION}/{WHATSAPP_PHONE_NUMBER_ID}/messages
//	Authorization: Bearer {WHATSAPP_TOKEN}
//	{"messaging_product": "whatsapp", "recipient_type": "individual", "to": "573001234567",
//	 "type": "template", "template": {"name": …, "language": {"code": "es"},
//	 "components": [{"type": "body", "parameters": [{"type": "text", "text": …}, …]}]}}
//
// 200 {"messaging_product": "whatsapp", "contacts": [{"input", "wa_id"}],
// "messages": [{"id": "wamid.…", "message_status": "accepted"}]}; an error is
// {"error": {"message", "type", "code", "error_data": {"details"}, "fbtrace_id"}}.

// sendRequest is the body of the messages call.
type sendRequest struct {
	MessagingProduct string       `json:"messaging_product"`
	RecipientType    string       `json:"recipient_type"`
	To               string       `json:"to"`
	Type             string       `json:"type"`
	Template         templateCall `json:"template"`
}

type templateCall struct {
	Name       string      `json:"name"`
	Language   languageArg `json:"language"`
	Components []component `json:"components"`
}

type languageArg struct {
	Code string `json:"code"`
}

type component struct {
	Type       string      `json:"type"`
	SubType    string      `json:"sub_type,omitempty"`
	Index      string      `json:"index,omitempty"`
	Parameters []parameter `json:"parameters"`
}

type parameter struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// apiError is a failed call: the HTTP status (0: no answer), Meta's error
// code and message, and whether trying again later may succeed.
type apiError struct {
	Status    int
	Code      int
	Message   string
	Retryable bool
}

func (e *apiError) Error() string {
	if e.Status == 0 {
		return "whatsapp: " + e.Message
	}
	return fmt.Sprintf("whatsapp: HTTP %d, code %d: %s", e.Status, e.Code, e.Message)
}

// retryableCodes are Meta's error codes of a passing condition: rate limits
// (4, 80007, 130429, 131056: the pair rate limit), service trouble (1, 2,
// 131000, 131016, 133004). Any other error code is final for the message.
var retryableCodes = map[int]bool{1: true, 2: true, 4: true, 80007: true, 130429: true,
	131000: true, 131016: true, 131056: true, 133004: true}

// requestOf builds the messages call of one outbox row.
func requestOf(phone, template, language string, params []string) sendRequest {
	body := component{Type: "body", Parameters: make([]parameter, 0, len(params))}
	for _, p := range params {
		body.Parameters = append(body.Parameters, parameter{Type: "text", Text: p})
	}
	comps := []component{body}
	if template == TemplateCode.Name && len(params) == 1 {
		// The copy-code button of an authentication template takes the code too.
		comps = append(comps, component{Type: "button", SubType: "url", Index: "0",
			Parameters: []parameter{{Type: "text", Text: params[0]}}})
	}
	return sendRequest{MessagingProduct: "whatsapp", RecipientType: "individual", To: phone, Type: "template",
		Template: templateCall{Name: template, Language: languageArg{Code: language}, Components: comps}}
}

// send makes the messages call and answers the message id Meta gave it.
func send(ctx context.Context, client *http.Client, cfg config.Config, req sendRequest) (string, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return "", &apiError{Message: err.Error()}
	}
	endpoint := cfg.WhatsAppAPIURL + "/" + cfg.WhatsAppAPIVersion + "/" + url.PathEscape(cfg.WhatsAppPhoneNumberID) + "/messages"
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(raw))
	if err != nil {
		return "", &apiError{Message: err.Error()}
	}
	hr.Header.Set("Authorization", "Bearer "+cfg.WhatsAppToken)
	hr.Header.Set("Content-Type", "application/json")
	res, err := client.Do(hr)
	if err != nil {
		return "", &apiError{Message: err.Error(), Retryable: true}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		var ok struct {
			Messages []struct {
				ID string `json:"id"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &ok); err != nil || len(ok.Messages) == 0 || ok.Messages[0].ID == "" {
			// Accepted without an id we can read: sending again could
			// deliver twice, so the message is given up (and falls back).
			return "", &apiError{Status: res.StatusCode, Message: "answer without a message id"}
		}
		return ok.Messages[0].ID, nil
	}
	var fail struct {
		Error struct {
			Message   string `json:"message"`
			Code      int    `json:"code"`
			ErrorData struct {
				Details string `json:"details"`
			} `json:"error_data"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &fail)
	e := &apiError{Status: res.StatusCode, Code: fail.Error.Code, Message: fail.Error.Message}
	if d := fail.Error.ErrorData.Details; d != "" {
		e.Message += " (" + d + ")"
	}
	if e.Message == "" {
		e.Message = http.StatusText(res.StatusCode)
	}
	// A server error, a rate limit, a rejected token (fixed by the
	// operator, then the backlog goes out) or a code of a passing condition.
	e.Retryable = res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests ||
		res.StatusCode == http.StatusUnauthorized || retryableCodes[e.Code]
	return "", e
}

// errorCode is Meta's code of err (0 for none).
func errorCode(err error) int {
	var e *apiError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// retryable reports whether err may pass when tried again.
func retryable(err error) bool {
	var e *apiError
	return errors.As(err, &e) && e.Retryable
}

// itoa is strconv.Itoa (short for the SQL parameters).
func itoa(n int) string { return strconv.Itoa(n) }
