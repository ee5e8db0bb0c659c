// Package config is the one place the service reads its environment. Load
// reads every variable once at start, with its default; modules receive the
// value through the app (Of) and never call os.Getenv themselves. Every
// variable is documented in the README's configuration table.
package config

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// Defaults of the configuration.
const (
	DefaultAppURL                = "http://127.0.0.1:8090"
	DefaultTimezone              = "America/Bogota"
	DefaultRemindersSchedule     = "*/15 * * * *"
	DefaultVAPIDSubject          = "mailto:soporte@camellos.co"
	DefaultSMTPPort              = 587
	DefaultMailFrom              = "Camellos <no-responder@camellos.co>"
	DefaultAuthIPLimit           = 30
	DefaultPushWorkers           = 512
	DefaultPushOriginConcurrency = 512
	DefaultPushLeaseSeconds      = 60
	DefaultBackupKeep            = 7
	DefaultMemoryLimitMB         = 0
	// DefaultProjectionCheckSeconds: the projections are checked every 10 minutes.
	DefaultProjectionCheckSeconds = 600
	DefaultMercadoPagoAPIURL      = "https://api.mercadopago.com"
	DefaultCommissionPercent      = 10
	DefaultDisputeWindowHours     = 72
	DefaultProxyHeader            = "X-Forwarded-For"
	// DefaultWhatsAppAPIURL and DefaultWhatsAppAPIVersion: Meta's Graph API
	// (the WhatsApp Business Cloud API's host and version path).
	DefaultWhatsAppAPIURL     = "https://graph.facebook.com"
	DefaultWhatsAppAPIVersion = "v23.0"
	DefaultLogFormat          = LogText
)

// Log formats of the stdout log (LOG_FORMAT).
const (
	LogJSON = "json"
	LogText = "text"
	LogOff  = "off"
)

// SMTP TLS modes (SMTP_TLS).
const (
	SMTPStartTLS = "starttls"
	SMTPTLS      = "tls"
	SMTPOff      = "off"
)

// PUSH_DELIVERY values.
const (
	PushDeliveryWeb    = "web"
	PushDeliveryWorker = "worker"
)

// Config is every setting the service reads from its environment.
type Config struct {
	// AppURL is the public base URL, without a trailing slash (APP_URL).
	AppURL string
	// Timezone is the IANA zone of new camellos (APP_TIMEZONE).
	Timezone string

	// CronSecret is the bearer secret of /api/cron/* ("" → 503) (CRON_SECRET).
	CronSecret string
	// RemindersSchedule is the cron expression of the reminder sweep; "off"
	// disables it (REMINDERS_SCHEDULE).
	RemindersSchedule string

	// VAPIDPublicKey, VAPIDPrivateKey: the Web Push identity ("" → generated
	// once and stored) (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY).
	VAPIDPublicKey, VAPIDPrivateKey string
	// VAPIDSubject is the contact URI sent to push services (VAPID_SUBJECT):
	// checked at start (ValidVAPIDSubject), a bare e-mail given mailto:.
	VAPIDSubject string
	// WebPushAllowPrivate lets push endpoints resolve to loopback and private
	// addresses (tests, self-hosted push services) (WEBPUSH_ALLOW_PRIVATE=1).
	WebPushAllowPrivate bool
	// PushWorkers is how many notifications are delivered at once, each
	// waiting on its push services' answers (PUSH_WORKERS); sized by the
	// push services' latency, not by CPU: at 100–150 ms a round trip, 512
	// workers keep up with 3,400–5,100 pushes/s (a broadcast of 100,000 in
	// 20–30 s when the CPU keeps up).
	PushWorkers int
	// PushOriginConcurrency caps the push requests in flight to one push
	// service origin (PUSH_ORIGIN_CONCURRENCY), multiplexed on its HTTP/2
	// connection; when the service's SETTINGS_MAX_CONCURRENT_STREAMS is
	// lower (Google's front ends announce 100, APNs 500), Go's transport
	// opens another connection for the rest.
	PushOriginConcurrency int
	// PushDelivery says which process sends Web Push (PUSH_DELIVERY):
	// PushDeliveryWeb (default), the web process itself from memory; or
	// PushDeliveryWorker, every push written to the push outbox in the
	// notification's transaction and sent only by `camellos push work`.
	PushDelivery string
	// PushLeaseSeconds is how long a push claimed by a worker is left alone
	// by the others (PUSH_LEASE_SECONDS): a worker that died leaves its
	// claimed pushes due again after it (see docs/operations.md).
	PushLeaseSeconds int

	// MemoryLimitMB is the Go runtime's soft memory limit in MiB
	// (MEMORY_LIMIT_MB, 0 for none): past it the garbage collector runs
	// more often instead of letting the heap grow to twice the live data.
	// GOMEMLIMIT, when set, is the runtime's own and wins (GoMemLimitSet).
	MemoryLimitMB int
	GoMemLimitSet bool

	// AuthIPLimit is how many password-checking requests one client IP may
	// make per minute; 0 turns it and the whole quota table off (AUTH_IP_LIMIT).
	AuthIPLimit int

	// SMTP: mail transport; SMTPHost "" means nothing is mailed.
	SMTPHost     string // SMTP_HOST
	SMTPPort     int    // SMTP_PORT
	SMTPUsername string // SMTP_USERNAME
	SMTPPassword string // SMTP_PASSWORD
	SMTPTLS      string // SMTP_TLS: starttls | tls | off
	MailFrom     string // MAIL_FROM

	// MetricsToken enables GET /metrics behind this bearer ("" → 404) (METRICS_TOKEN).
	MetricsToken string

	// ProjectionCheckSeconds is how often the in-memory projections without
	// a maximum age are compared with a fresh build and repaired (0: never)
	// (PROJECTION_CHECK_SECONDS; internal/readmodel).
	ProjectionCheckSeconds int

	// BackupSchedule is the cron expression of automatic backups ("" → off) (BACKUP_SCHEDULE).
	BackupSchedule string
	// BackupKeep is how many automatic backups are kept (BACKUP_KEEP).
	BackupKeep int

	// S3: S3-compatible storage for backups (and files with S3Files).
	S3Endpoint       string // S3_ENDPOINT
	S3Bucket         string // S3_BUCKET
	S3Region         string // S3_REGION
	S3AccessKey      string // S3_ACCESS_KEY
	S3Secret         string // S3_SECRET
	S3ForcePathStyle bool   // S3_FORCE_PATH_STYLE
	S3Files          bool   // S3_FILES=1: uploaded files on S3 too

	// Payments through Mercado Pago (issue 23); MercadoPagoAccessToken ""
	// means payments are off (their routes answer 503).
	MercadoPagoAccessToken   string // MERCADOPAGO_ACCESS_TOKEN
	MercadoPagoWebhookSecret string // MERCADOPAGO_WEBHOOK_SECRET: the key of the webhooks' x-signature
	// MercadoPagoAPIURL replaces https://api.mercadopago.com (a local test
	// server) (MERCADOPAGO_API_URL).
	MercadoPagoAPIURL string
	// CommissionPercent is the platform's commission on a released payment
	// (COMMISSION_PERCENT, 0 to 50).
	CommissionPercent int
	// DisputeWindowHours is how long a client has, after the camello marks
	// the work done, to confirm or open a dispute before the held money is
	// released by itself (DISPUTE_WINDOW_HOURS, 1 to 720).
	DisputeWindowHours int
	// WhatsApp Business Cloud API (issue 26); WhatsAppToken "" means the
	// channel is off (its opt-in answers 503, nothing is sent).
	WhatsAppToken         string // WHATSAPP_TOKEN: the bearer of the Graph API calls
	WhatsAppPhoneNumberID string // WHATSAPP_PHONE_NUMBER_ID: the sending number's id
	WhatsAppAppSecret     string // WHATSAPP_APP_SECRET: the key of the webhooks' X-Hub-Signature-256
	WhatsAppVerifyToken   string // WHATSAPP_VERIFY_TOKEN: the webhook subscription's hub.verify_token
	// WhatsAppAPIURL replaces https://graph.facebook.com (a local test
	// server) (WHATSAPP_API_URL); WhatsAppAPIVersion is the Graph API
	// version path, e.g. v23.0 (WHATSAPP_API_VERSION).
	WhatsAppAPIURL     string
	WhatsAppAPIVersion string
	// TrustedProxies are the addresses (IPs or CIDRs) of the reverse proxies
	// in front of the service (TRUSTED_PROXIES): only a request whose peer
	// is one of them has its ProxyHeader read for the client address.
	TrustedProxies []netip.Prefix
	// ProxyHeader is the header those proxies set to the client address
	// (TRUSTED_PROXY_HEADER, X-Forwarded-For by default).
	ProxyHeader string

	// LogFormat is the stdout log's format: text, json or off (LOG_FORMAT).
	LogFormat string
	// LogLevel is the stdout log's lowest level (LOG_LEVEL: debug, info,
	// warn, error).
	LogLevel slog.Level
}

// Load reads the environment once, applying defaults. A malformed value is
// an error naming the variable, so a bad deployment fails at start.
func Load() (Config, error) {
	return load(os.Getenv)
}

// FromMap builds a configuration from explicit values as Load would read
// them from the environment (tests).
func FromMap(env map[string]string) (Config, error) {
	return load(func(k string) string { return env[k] })
}

func load(get func(string) string) (Config, error) {
	var errs []string
	str := func(k, def string) string {
		if v := strings.TrimSpace(get(k)); v != "" {
			return v
		}
		return def
	}
	num := func(k string, def, lo, hi int) int {
		v := strings.TrimSpace(get(k))
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Sprintf("%s: se esperaba un entero entre %d y %d", k, lo, hi))
			return def
		}
		return n
	}
	flag := func(k string) bool {
		switch strings.ToLower(strings.TrimSpace(get(k))) {
		case "1", "true", "yes", "on":
			return true
		}
		return false
	}
	c := Config{
		AppURL:                 strings.TrimRight(str("APP_URL", DefaultAppURL), "/"),
		Timezone:               str("APP_TIMEZONE", ""),
		CronSecret:             get("CRON_SECRET"),
		RemindersSchedule:      str("REMINDERS_SCHEDULE", DefaultRemindersSchedule),
		VAPIDPublicKey:         strings.TrimSpace(get("VAPID_PUBLIC_KEY")),
		VAPIDPrivateKey:        strings.TrimSpace(get("VAPID_PRIVATE_KEY")),
		VAPIDSubject:           NormalizeVAPIDSubject(get("VAPID_SUBJECT")),
		WebPushAllowPrivate:    flag("WEBPUSH_ALLOW_PRIVATE"),
		PushWorkers:            num("PUSH_WORKERS", DefaultPushWorkers, 1, 4096),
		PushOriginConcurrency:  num("PUSH_ORIGIN_CONCURRENCY", DefaultPushOriginConcurrency, 1, 4096),
		PushDelivery:           strings.ToLower(str("PUSH_DELIVERY", PushDeliveryWeb)),
		PushLeaseSeconds:       num("PUSH_LEASE_SECONDS", DefaultPushLeaseSeconds, 5, 3600),
		AuthIPLimit:            num("AUTH_IP_LIMIT", DefaultAuthIPLimit, 0, 1_000_000),
		MemoryLimitMB:          num("MEMORY_LIMIT_MB", DefaultMemoryLimitMB, 0, 1<<20),
		GoMemLimitSet:          strings.TrimSpace(get("GOMEMLIMIT")) != "",
		SMTPHost:               str("SMTP_HOST", ""),
		SMTPPort:               num("SMTP_PORT", DefaultSMTPPort, 1, 65535),
		SMTPUsername:           get("SMTP_USERNAME"),
		SMTPPassword:           get("SMTP_PASSWORD"),
		SMTPTLS:                strings.ToLower(str("SMTP_TLS", SMTPStartTLS)),
		MailFrom:               str("MAIL_FROM", DefaultMailFrom),
		MetricsToken:           get("METRICS_TOKEN"),
		BackupSchedule:         str("BACKUP_SCHEDULE", ""),
		ProjectionCheckSeconds: num("PROJECTION_CHECK_SECONDS", DefaultProjectionCheckSeconds, 0, 86_400),
		BackupKeep:             num("BACKUP_KEEP", DefaultBackupKeep, 1, 10_000),
		S3Endpoint:             str("S3_ENDPOINT", ""),
		S3Bucket:               str("S3_BUCKET", ""),
		S3Region:               str("S3_REGION", ""),
		S3AccessKey:            get("S3_ACCESS_KEY"),
		S3Secret:               get("S3_SECRET"),
		S3ForcePathStyle:       flag("S3_FORCE_PATH_STYLE"),
		S3Files:                flag("S3_FILES"),

		MercadoPagoAccessToken:   strings.TrimSpace(get("MERCADOPAGO_ACCESS_TOKEN")),
		MercadoPagoWebhookSecret: strings.TrimSpace(get("MERCADOPAGO_WEBHOOK_SECRET")),
		MercadoPagoAPIURL:        strings.TrimRight(str("MERCADOPAGO_API_URL", DefaultMercadoPagoAPIURL), "/"),
		CommissionPercent:        num("COMMISSION_PERCENT", DefaultCommissionPercent, 0, 50),
		DisputeWindowHours:       num("DISPUTE_WINDOW_HOURS", DefaultDisputeWindowHours, 1, 720),
		WhatsAppToken:            strings.TrimSpace(get("WHATSAPP_TOKEN")),
		WhatsAppPhoneNumberID:    strings.TrimSpace(get("WHATSAPP_PHONE_NUMBER_ID")),
		WhatsAppAppSecret:        strings.TrimSpace(get("WHATSAPP_APP_SECRET")),
		WhatsAppVerifyToken:      strings.TrimSpace(get("WHATSAPP_VERIFY_TOKEN")),
		WhatsAppAPIURL:           strings.TrimRight(str("WHATSAPP_API_URL", DefaultWhatsAppAPIURL), "/"),
		WhatsAppAPIVersion:       str("WHATSAPP_API_VERSION", DefaultWhatsAppAPIVersion),
		ProxyHeader:              http.CanonicalHeaderKey(str("TRUSTED_PROXY_HEADER", DefaultProxyHeader)),
		LogFormat:                strings.ToLower(str("LOG_FORMAT", DefaultLogFormat)),
	}
	if _, err := mail.ParseAddress(c.MailFrom); err != nil {
		errs = append(errs, "MAIL_FROM: se esperaba una dirección como \"Camellos <no-responder@camellos.co>\"")
	}
	if err := validAppURL(c.AppURL); err != nil {
		errs = append(errs, "APP_URL: "+err.Error())
	}
	for _, p := range strings.Split(get("TRUSTED_PROXIES"), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			addr, aerr := netip.ParseAddr(p)
			if aerr != nil {
				errs = append(errs, fmt.Sprintf("TRUSTED_PROXIES: %q no es una IP ni un CIDR", p))
				continue
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, prefix.Masked())
	}
	if !validHeaderName(c.ProxyHeader) {
		errs = append(errs, "TRUSTED_PROXY_HEADER: nombre de cabecera inválido")
	}
	switch c.LogFormat {
	case LogJSON, LogText, LogOff:
	default:
		errs = append(errs, "LOG_FORMAT: se esperaba text, json u off")
	}
	if v := strings.TrimSpace(get("LOG_LEVEL")); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			errs = append(errs, "LOG_LEVEL: se esperaba debug, info, warn o error")
		}
	}
	switch c.PushDelivery {
	case PushDeliveryWeb, PushDeliveryWorker:
	default:
		errs = append(errs, "PUSH_DELIVERY: se esperaba web o worker")
	}
	switch c.SMTPTLS {
	case SMTPStartTLS, SMTPTLS, SMTPOff:
	default:
		errs = append(errs, "SMTP_TLS: se esperaba starttls, tls u off")
	}
	if u, err := url.Parse(c.MercadoPagoAPIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, "MERCADOPAGO_API_URL: se esperaba una URL http(s)")
	}
	if c.MercadoPagoAccessToken != "" && c.MercadoPagoWebhookSecret == "" {
		errs = append(errs, "MERCADOPAGO_WEBHOOK_SECRET: es obligatorio con MERCADOPAGO_ACCESS_TOKEN (sin él no se verifican las notificaciones)")
	}
	if u, err := url.Parse(c.WhatsAppAPIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, "WHATSAPP_API_URL: se esperaba una URL http(s)")
	}
	if !validGraphVersion(c.WhatsAppAPIVersion) {
		errs = append(errs, "WHATSAPP_API_VERSION: se esperaba una versión de la Graph API como v23.0")
	}
	if c.WhatsAppToken != "" && (c.WhatsAppPhoneNumberID == "" || c.WhatsAppAppSecret == "") {
		errs = append(errs, "WHATSAPP_PHONE_NUMBER_ID y WHATSAPP_APP_SECRET: son obligatorios con WHATSAPP_TOKEN (sin ellos no hay número desde el que enviar ni se verifican los estados)")
	}
	if c.VAPIDSubject != "" {
		if err := ValidVAPIDSubject(c.VAPIDSubject); err != nil {
			errs = append(errs, "VAPID_SUBJECT: "+err.Error())
		}
	}
	if c.Timezone != "" {
		if _, err := time.LoadLocation(c.Timezone); err != nil {
			errs = append(errs, "APP_TIMEZONE: zona horaria IANA desconocida")
		}
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("configuración inválida: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// validAppURL accepts an absolute http(s) URL with a host and no query,
// fragment or credentials (links in mail are built by appending paths).
func validAppURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("se esperaba una URL absoluta http:// o https:// con host (p. ej. https://camellos.example.com), no %q", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, " \t\r\n") {
		return fmt.Errorf("la URL %q no debe llevar usuario, consulta (?) ni fragmento (#)", raw)
	}
	return nil
}

// validGraphVersion accepts a Graph API version path: v, digits, a dot, digits.
func validGraphVersion(v string) bool {
	major, minor, ok := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	if !strings.HasPrefix(v, "v") || !ok || major == "" || minor == "" {
		return false
	}
	for _, r := range major + minor {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// NormalizeVAPIDSubject trims VAPID_SUBJECT, collapses a doubled
// "mailto:mailto:" and gives a bare e-mail address its "mailto:"; anything
// else is left for ValidVAPIDSubject to judge.
func NormalizeVAPIDSubject(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(strings.ToLower(s), "mailto:mailto:") {
		s = s[len("mailto:"):]
	}
	if s != "" && !strings.ContainsAny(s, ":/ ") && strings.Contains(s, "@") {
		return "mailto:" + s
	}
	return s
}

// ValidVAPIDSubject checks the contact of the Web Push identity: push
// services (Apple's among them) refuse a VAPID JWT whose sub is not a real
// mailto: address or https: URL, so every push would fail. It must be
// mailto: with an address at a public domain (a dot; not localhost, an IP
// or a reserved name such as .local, .test, .invalid), or https:// with
// such a host.
func ValidVAPIDSubject(s string) error {
	lower := strings.ToLower(s)
	publicHost := func(h string) bool {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if h == "" || !strings.Contains(h, ".") || h == "localhost" {
			return false
		}
		for _, tld := range []string{".localhost", ".local", ".test", ".invalid", ".example", ".internal"} {
			if strings.HasSuffix(h, tld) {
				return false
			}
		}
		if _, err := netip.ParseAddr(h); err == nil {
			return false
		}
		return !strings.ContainsAny(h, " /?#@:")
	}
	switch {
	case strings.HasPrefix(lower, "mailto:"):
		addr := s[len("mailto:"):]
		a, err := mail.ParseAddress(addr)
		if err == nil && a.Address == addr && a.Name == "" {
			if at := strings.LastIndex(addr, "@"); at > 0 && publicHost(addr[at+1:]) {
				return nil
			}
		}
	case strings.HasPrefix(lower, "https://"):
		u, err := url.Parse(s)
		if err == nil && u.User == nil && publicHost(u.Hostname()) && u.Port() == "" {
			return nil
		}
	}
	return fmt.Errorf("%q no es un contacto real: usa mailto:alguien@tu-dominio.co o https://tu-dominio.co "+
		"(los servicios push, el de Apple incluido, rechazan los avisos firmados con otro contacto)", s)
}

// validHeaderName reports whether h is an HTTP header name (an RFC 9110 token).
func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for _, r := range h {
		if r > 0x7e || r <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// TrustedProxy reports whether addr (a request's peer) is one of the
// trusted reverse proxies.
func (c Config) TrustedProxy(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range c.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// Missing lists the production settings left unset, each with what is
// lost without it; the service logs one warning per entry at start.
func (c Config) Missing() [][2]string {
	var out [][2]string
	add := func(v, why string) { out = append(out, [2]string{v, why}) }
	if c.AppURL == DefaultAppURL {
		add("APP_URL", "links in mail and push point to "+DefaultAppURL)
	} else if !c.HTTPS() {
		add("APP_URL", "not https: session cookies are sent without Secure")
	}
	if c.SMTPHost == "" {
		add("SMTP_HOST", "nothing is mailed (password reset, verification, notifications)")
	}
	if c.CronSecret == "" {
		add("CRON_SECRET", "POST /api/cron/appointment-reminders answers 503")
	}
	if c.MetricsToken == "" {
		add("METRICS_TOKEN", "GET /metrics answers 404 (no monitoring)")
	}
	if c.BackupSchedule == "" {
		add("BACKUP_SCHEDULE", "no automatic backups")
	}
	if !c.S3Enabled() {
		add("S3_ENDPOINT", "backups stay on this machine (pb_data/backups)")
	}
	if c.VAPIDPublicKey == "" || c.VAPIDPrivateKey == "" {
		add("VAPID_PUBLIC_KEY", "the Web Push identity lives only in the database (a restore without it breaks every subscription)")
	}
	if c.WhatsAppToken == "" {
		add("WHATSAPP_TOKEN", "nothing goes out on WhatsApp (reminders, quotes, bookings, payments, conversation digests); its opt-in answers 503")
	} else if c.WhatsAppVerifyToken == "" {
		add("WHATSAPP_VERIFY_TOKEN", "Meta cannot verify the webhook subscription: no delivery or read statuses, no fallback to mail on a failed WhatsApp")
	}
	if len(c.TrustedProxies) == 0 {
		add("TRUSTED_PROXIES", "client addresses are the peer's: behind a reverse proxy every client shares one rate limit")
	}
	return out
}

// Zone is the default zone of new camellos: APP_TIMEZONE or America/Bogota.
func (c Config) Zone() string {
	if c.Timezone != "" {
		return c.Timezone
	}
	return DefaultTimezone
}

// HTTPS reports whether the service is public behind https (Secure cookies).
func (c Config) HTTPS() bool { return strings.HasPrefix(c.AppURL, "https://") }

// RemindersOff reports whether the built-in reminder sweep is disabled.
func (c Config) RemindersOff() bool { return strings.EqualFold(c.RemindersSchedule, "off") }

// PaymentsEnabled reports whether Mercado Pago is configured.
func (c Config) PaymentsEnabled() bool { return c.MercadoPagoAccessToken != "" }

// WhatsAppEnabled reports whether the WhatsApp Business Cloud API is configured.
func (c Config) WhatsAppEnabled() bool { return c.WhatsAppToken != "" }

// S3Enabled reports whether S3-compatible storage is configured.
func (c Config) S3Enabled() bool { return c.S3Endpoint != "" && c.S3Bucket != "" }

const storeKey = "camellos.config"

// Set makes cfg the configuration of app; modules.Register calls it once,
// before any module registers.
func Set(app core.App, cfg Config) { app.Store().Set(storeKey, cfg) }

// Of is the configuration of app. An app that was never given one (a bare
// test app) gets the environment's, read once and kept.
func Of(app core.App) Config {
	if c, ok := app.Store().Get(storeKey).(Config); ok {
		return c
	}
	c, _ := Load()
	app.Store().Set(storeKey, c)
	return c
}

// Test switches: opt-in knobs of long tests and test tools that the service
// itself never reads. They are read here so that the environment is read in
// one package only.
const (
	// SwitchSweepLoad runs the reminder sweep load test over that many
	// appointments (CAMELLOS_SWEEP_LOAD).
	SwitchSweepLoad = "CAMELLOS_SWEEP_LOAD"
	// SwitchStrictRoutes fails, instead of skipping, contract routes that
	// are not registered (CAMELLOS_STRICT_ROUTES=1).
	SwitchStrictRoutes = "CAMELLOS_STRICT_ROUTES"
	// SwitchLedgerOps sets how many random operations the ledger's fault
	// test runs (CAMELLOS_LEDGER_OPS, default 3000).
	SwitchLedgerOps = "CAMELLOS_LEDGER_OPS"
	// SwitchLong runs the long variants of the tests that have a bounded,
	// seeded default (CAMELLOS_LONG=1): every probe of the bad-input sweep
	// instead of a sample per route (docs/development.md lists them).
	SwitchLong = "CAMELLOS_LONG"
	// SwitchSeed fixes the seed of the tests that sample at random
	// (CAMELLOS_SEED=N; each such test logs the seed it used).
	SwitchSeed = "CAMELLOS_SEED"
)

// Long reports whether the long variants of the tests run (CAMELLOS_LONG=1).
func Long() bool { return Switch(SwitchLong) == "1" }

// SwitchBinCache is the directory `.ci/run` builds the test tools into
// (versitygw, litestream) (CAMELLOS_BIN_CACHE, default ~/.cache/camellos-bin).
const SwitchBinCache = "CAMELLOS_BIN_CACHE"

// BinCache is the test tools' directory: CAMELLOS_BIN_CACHE, else
// ~/.cache/camellos-bin ("" without a home directory).
func BinCache() string {
	if d := Switch(SwitchBinCache); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".cache", "camellos-bin")
}

// Switch is the value of a test switch (Switch* constants).
func Switch(name string) string { return strings.TrimSpace(os.Getenv(name)) }
