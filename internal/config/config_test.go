package config

import (
	"net/netip"
	"strings"
	"testing"
)

// APP_URL, TRUSTED_PROXIES, TRUSTED_PROXY_HEADER, LOG_FORMAT, LOG_LEVEL,
// MAIL_FROM, VAPID_SUBJECT and the WhatsApp settings are checked at start: a malformed value stops the service with
// the variable's name.
func TestLoadRefusesMalformedValues(t *testing.T) {
	for _, tc := range []struct {
		k, v string
		ok   bool
	}{
		{"APP_URL", "https://camellos.example.com", true},
		{"APP_URL", "http://127.0.0.1:8090/", true},
		{"APP_URL", "https://example.com/camellos", true},
		{"APP_URL", "notaurl", false},
		{"APP_URL", "camellos.example.com", false},
		{"APP_URL", "ftp://camellos.example.com", false},
		{"APP_URL", "https://", false},
		{"APP_URL", "https://example.com/?x=1", false},
		{"APP_URL", "https://example.com/#x", false},
		{"APP_URL", "https://user:pw@example.com", false},
		{"TRUSTED_PROXIES", "127.0.0.1", true},
		{"TRUSTED_PROXIES", "10.0.0.0/8, ::1, 172.16.0.0/12", true},
		{"TRUSTED_PROXIES", "10.0.0.0/33", false},
		{"TRUSTED_PROXIES", "proxy.local", false},
		{"TRUSTED_PROXY_HEADER", "X-Real-IP", true},
		{"TRUSTED_PROXY_HEADER", "X Real", false},
		{"LOG_FORMAT", "json", true},
		{"LOG_FORMAT", "TEXT", true},
		{"LOG_FORMAT", "off", true},
		{"LOG_FORMAT", "xml", false},
		{"LOG_LEVEL", "warn", true},
		{"LOG_LEVEL", "loud", false},
		{"MAIL_FROM", "Camellos <hola@camellos.co>", true},
		{"MAIL_FROM", "no es un correo", false},
		{"VAPID_SUBJECT", "mailto:soporte@camellos.co", true},
		{"VAPID_SUBJECT", "MAILTO:soporte@camellos.co", true},
		{"VAPID_SUBJECT", "soporte@camellos.co", true},
		{"VAPID_SUBJECT", "mailto:mailto:x@camellos.co", true},
		{"VAPID_SUBJECT", "https://camellos.co/contacto", true},
		{"VAPID_SUBJECT", "https://camellos.co", true},
		{"VAPID_SUBJECT", "mailto:soporte@localhost", false},
		{"VAPID_SUBJECT", "mailto:soporte@camellos.local", false},
		{"VAPID_SUBJECT", "mailto:soporte", false},
		{"VAPID_SUBJECT", "mailto:", false},
		{"VAPID_SUBJECT", "mailto:Soporte <s@camellos.co>", false},
		{"VAPID_SUBJECT", "http://camellos.co", false},
		{"VAPID_SUBJECT", "https://localhost", false},
		{"VAPID_SUBJECT", "https://127.0.0.1", false},
		{"VAPID_SUBJECT", "https://camellos.co:8443", false},
		{"VAPID_SUBJECT", "https://", false},
		{"VAPID_SUBJECT", "soporte", false},
		{"VAPID_SUBJECT", "tel:+573001234567", false},
		{"WHATSAPP_API_VERSION", "v23.0", true},
		{"WHATSAPP_API_VERSION", "v9.10", true},
		{"WHATSAPP_API_VERSION", "23.0", false},
		{"WHATSAPP_API_VERSION", "v23", false},
		{"WHATSAPP_API_VERSION", "vX.0", false},
		{"WHATSAPP_API_URL", "https://graph.facebook.com", true},
		{"WHATSAPP_API_URL", "graph.facebook.com", false},
		{"WHATSAPP_TOKEN", "EAAG", false},
	} {
		_, err := FromMap(map[string]string{tc.k: tc.v})
		if tc.ok != (err == nil) {
			t.Errorf("%s=%q: err=%v, want ok=%v", tc.k, tc.v, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), tc.k) {
			t.Errorf("%s=%q: the error does not name the variable: %v", tc.k, tc.v, err)
		}
	}
}

func TestTrustedProxyMatchesAddressesAndRanges(t *testing.T) {
	c, err := FromMap(map[string]string{"TRUSTED_PROXIES": "127.0.0.9,10.0.0.0/8,fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"127.0.0.9": true, "127.0.0.8": false, "10.1.2.3": true, "11.0.0.1": false,
		"fd00::1": true, "::ffff:10.0.0.1": true, "::1": false,
	} {
		if got := c.TrustedProxy(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %v, want %v", addr, got, want)
		}
	}
}

// The production settings left unset are each named once.
func TestMissingNamesEveryProductionSetting(t *testing.T) {
	c, _ := FromMap(nil)
	got := map[string]bool{}
	for _, m := range c.Missing() {
		got[m[0]] = true
	}
	for _, v := range []string{"APP_URL", "SMTP_HOST", "CRON_SECRET", "METRICS_TOKEN", "BACKUP_SCHEDULE", "S3_ENDPOINT", "TRUSTED_PROXIES", "WHATSAPP_TOKEN"} {
		if !got[v] {
			t.Errorf("%s missing but not reported", v)
		}
	}
	full, err := FromMap(map[string]string{
		"APP_URL": "https://camellos.example.com", "SMTP_HOST": "smtp", "CRON_SECRET": "s", "METRICS_TOKEN": "m",
		"BACKUP_SCHEDULE": "0 3 * * *", "S3_ENDPOINT": "https://s3", "S3_BUCKET": "b", "TRUSTED_PROXIES": "127.0.0.1",
		"VAPID_PUBLIC_KEY": "p", "VAPID_PRIVATE_KEY": "k",
		"WHATSAPP_TOKEN": "t", "WHATSAPP_PHONE_NUMBER_ID": "1", "WHATSAPP_APP_SECRET": "s", "WHATSAPP_VERIFY_TOKEN": "v",
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := full.Missing(); len(m) != 0 {
		t.Fatalf("a full configuration reports %v", m)
	}
}
