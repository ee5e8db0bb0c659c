package hardening_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"camellos/internal/httpapi"
	"camellos/internal/session"
	"camellos/internal/text"
	"camellos/modules/auth"
	"camellos/modules/camellos"
)

// decodeTarget has a field of every kind our request structs use.
type decodeTarget struct {
	Name     string            `json:"name"`
	Accept   *bool             `json:"acceptTerms"`
	Trades   []string          `json:"trades"`
	Rating   int               `json:"rating"`
	Sort     *int              `json:"sortOrder"`
	Price    float64           `json:"price"`
	Keys     map[string]string `json:"keys"`
	Nested   *struct{ A int }  `json:"nested"`
	Ignored  string            `json:"-"`
	internal string
}

// FuzzDecodeObject: any bytes either decode or give our 400 (never a panic,
// never another status), and a decoded string field is what JSON says.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"name":"ñandú","acceptTerms":true,"trades":["a"],"rating":5}`, `{"rating":"5"}`,
		`{"rating":1e400}`, `{"trades":[1,2]}`, `[]`, `null`, `{"name":null}`, `{"keys":{"a":1}}`, "{\"name\":\"\\ud800\"}", `{"nested":{"A":"x"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var dst decodeTarget
		err := httpapi.DecodeObject(raw, &dst)
		if err != nil {
			var e *httpapi.Error
			if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
				t.Fatalf("error %v is not our 400", err)
			}
			if e.Message != httpapi.MsgInvalidJSON && e.Message != httpapi.MsgInvalidData {
				t.Fatalf("unexpected message %q", e.Message)
			}
			return
		}
		var generic map[string]json.RawMessage
		if json.Unmarshal(raw, &generic) != nil {
			t.Fatalf("decoded %q which is not a JSON object", raw)
		}
		if v, ok := generic["name"]; ok && string(v) != "null" {
			var want string
			if json.Unmarshal(v, &want) == nil && want != dst.Name {
				t.Fatalf("name %q, want %q", dst.Name, want)
			}
		}
	})
}

// FuzzFold: folding is idempotent, lower-case, accent-free and trimmed.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"", "  Bogotá D.C. ", "ÑANDÚ", "a\u0301", "İstanbul", "ǅ", "\u00a0x\u2003y", "ß", "😀 Ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := text.Fold(s)
		if !utf8.ValidString(s) {
			return
		}
		if again := text.Fold(got); again != got {
			t.Fatalf("Fold not idempotent: %q → %q → %q", s, got, again)
		}
		if strings.TrimSpace(got) != got || strings.Contains(got, "  ") {
			t.Fatalf("Fold(%q) = %q keeps extra spaces", s, got)
		}
		for _, r := range got {
			if unicode.Is(unicode.Mn, r) {
				t.Fatalf("Fold(%q) = %q keeps a combining mark", s, got)
			}
		}
	})
}

// FuzzAccountValidate: whatever the sign-up data, an account that passes
// validation is inside every bound of the interface.
func FuzzAccountValidate(f *testing.F) {
	f.Add("Ana", "ana@example.com", "3001234567", "secreto-123", "secreto-123", true, "Bogotá")
	f.Add(strings.Repeat("ñ", 120), " ANA@Example.COM ", "+57 (300) 123-4567", strings.Repeat("x", 128), strings.Repeat("x", 128), true, "Cali")
	f.Add("A", "no-at", "12", "corta", "otra", false, "")
	f.Add("\u202eAna", "a@b", "\x00\x00\x00\x00\x00\x00\x00", "12345678", "12345678", true, "xx")
	f.Fuzz(func(t *testing.T, name, email, phone, pass, confirm string, accept bool, city string) {
		a := auth.Account{Name: name, Email: email, Phone: phone, Password: pass, ConfirmPassword: confirm, AcceptTerms: &accept, City: city}
		v := httpapi.NewValidation()
		a.Validate(v, true)
		if !v.OK() {
			if err := v.Err(); err == nil {
				t.Fatal("failed validation without an error")
			}
			return
		}
		n := text.Chars(a.Name)
		if n < 2 || n > 120 || text.Chars(a.City) < 2 || text.Chars(a.City) > 120 {
			t.Fatalf("accepted name %q / city %q out of bounds", a.Name, a.City)
		}
		if p := text.Chars(a.Phone); p < 7 || p > 32 {
			t.Fatalf("accepted phone %q", a.Phone)
		}
		if p := text.Chars(a.Password); p < 8 || p > 128 || a.ConfirmPassword != a.Password {
			t.Fatalf("accepted password of %d characters / mismatched confirmation", p)
		}
		if !accept || a.Email != strings.ToLower(strings.TrimSpace(a.Email)) || !strings.Contains(a.Email, "@") {
			t.Fatalf("accepted terms=%v email %q", accept, a.Email)
		}
	})
}

// FuzzNormalizeTrades: accepted trades are 1–20, non-empty, trimmed,
// unique once folded and each within the length bound.
func FuzzNormalizeTrades(f *testing.F) {
	f.Add("plomería,Plomeria, PLOMERÍA")
	f.Add(",")
	f.Add(strings.Repeat("a,", 25))
	f.Add(strings.Repeat("ñ", 200))
	f.Fuzz(func(t *testing.T, joined string) {
		out, msg := camellos.NormalizeTrades(strings.Split(joined, ","))
		if msg != "" {
			if out != nil {
				t.Fatal("message and trades together")
			}
			return
		}
		if len(out) < 1 || len(out) > camellos.MaxTrades {
			t.Fatalf("%d trades accepted", len(out))
		}
		seen := map[string]bool{}
		for _, tr := range out {
			if tr == "" || strings.TrimSpace(tr) != tr || text.Chars(tr) > camellos.MaxTradeLen || seen[text.Fold(tr)] {
				t.Fatalf("bad trade %q in %q", tr, out)
			}
			seen[text.Fold(tr)] = true
		}
	})
}

// FuzzSameOrigin: an origin is only trusted when it is an http(s) origin
// whose host is the request's host or APP_URL's.
func FuzzSameOrigin(f *testing.F) {
	f.Add("https://evil.example", "127.0.0.1:8090", "https://app.co")
	f.Add("http://127.0.0.1:8090", "127.0.0.1:8090", "")
	f.Add("null", "", "")
	f.Add("https://app.co@evil.example", "app.co", "https://app.co")
	f.Fuzz(func(t *testing.T, origin, host, appURL string) {
		if !session.SameOrigin(origin, host, appURL) {
			return
		}
		u, err := url.Parse(strings.TrimSpace(origin))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("trusted %q", origin)
		}
		if !strings.EqualFold(u.Host, host) {
			a, err := url.Parse(appURL)
			if err != nil || !strings.EqualFold(a.Host, u.Host) {
				t.Fatalf("trusted %q for host %q and APP_URL %q", origin, host, appURL)
			}
		}
	})
}

// FuzzValidID: an accepted path id is 1–50 of [A-Za-z0-9_-].
func FuzzValidID(f *testing.F) {
	for _, s := range []string{"abc", "", strings.Repeat("a", 51), "a/b", "ñ", "a\x00", "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !httpapi.ValidID(s) {
			return
		}
		if len(s) < 1 || len(s) > 50 {
			t.Fatalf("accepted %q", s)
		}
		for _, r := range s {
			if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}
