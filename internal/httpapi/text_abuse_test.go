package httpapi_test

import (
	"errors"
	"testing"

	"camellos/internal/httpapi"
)

// Every text bound through the shared JSON binding refuses Unicode control
// (Cc) and format (Cf) characters, nested ones too; newlines and tabs pass
// (long texts keep them); password fields are secrets and not inspected.
func TestDecodeObjectRefusesControlAndFormatCharacters(t *testing.T) {
	type input struct {
		Name        string            `json:"name"`
		Description *string           `json:"description"`
		Trades      []string          `json:"trades"`
		Keys        map[string]string `json:"keys"`
		Password    string            `json:"password"`
	}
	cases := []struct {
		body  string
		field string // "" = valid
	}{
		{`{"name":"Carla Gómez","description":"línea 1\nlínea 2\tcon tab\r\n","trades":["pintura"],"password":"a\u0000b\u202e"}`, ""},
		{`{"name":"Ana 👍 ñandú 中文 عربي"}`, ""},
		{`{"name":"Carla\u0000"}`, "name"},
		{`{"name":"\u202egnp.exe"}`, "name"},
		{`{"name":"Car\u200bla"}`, "name"},
		{`{"name":"a\u0007b"}`, "name"},
		{`{"name":"a\u0085b"}`, "name"},
		{`{"name":"a\ufeffb"}`, "name"},
		{`{"description":"ok\u2066x"}`, "description"},
		{`{"trades":["pintura","plo\u200dmeria"]}`, "trades"},
		{`{"keys":{"auth":"x\u0000"}}`, "keys"},
	}
	for _, tc := range cases {
		var in input
		err := httpapi.DecodeObject([]byte(tc.body), &in)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.body, err)
			}
			continue
		}
		var e *httpapi.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Issues == nil || len(e.Issues.FieldErrors[tc.field]) == 0 {
			t.Errorf("%s: want a field error on %s, got %v", tc.body, tc.field, err)
		}
	}
}

func TestMixedScript(t *testing.T) {
	cases := map[string]bool{
		"ana@example.com":         false,
		"josé.nuñez@correo.co":    false,
		"аdmin@camellos.co":       true, // Cyrillic а + Latin
		"admin@cаmellos.co":       true,
		"ivan@почта.рф":           false, // each label one script
		"пример@example.com":      false,
		"paypal@pаypal.com":       true,
		"user+tag@sub.example.co": false,
	}
	for s, want := range cases {
		if got := httpapi.MixedScript(s); got != want {
			t.Errorf("MixedScript(%q) = %v, want %v", s, got, want)
		}
	}
}
