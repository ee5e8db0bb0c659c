// Package config is the one place the service reads its environment. Load
// reads every variable once at start, with its default; modules receive the
// value through the app (Of) and never call os.Getenv themselves. Every
// variable is documented in the README's configuration table.
package config

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// Defaults of the configuration.
const (
	DefaultAppURL            = "http://127.0.0.1:8090"
	DefaultTimezone          = "America/Bogota"
	DefaultRemindersSchedule = "*/15 * * * *"
	DefaultVAPIDSubject      = "mailto:soporte@camellos.co"
	DefaultSMTPPort          = 587
	DefaultMailFrom          = "Camellos <no-responder@camellos.co>"
	DefaultAuthIPLimit       = 30
	DefaultBackupKeep        = 7
	// DefaultProjectionCheckSeconds: the projections are checked every 10 minutes.
	DefaultProjectionCheckSeconds = 600
	DefaultMemoryLimitMB          = 0
)

// SMTP TLS modes (SMTP_TLS).
const (
	SMTPStartTLS = "starttls"
	SMTPTLS      = "tls"
	SMTPOff      = "off"
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
	// VAPIDSubject is the raw contact URI sent to push services (VAPID_SUBJECT).
	VAPIDSubject string
	// WebPushAllowPrivate lets push endpoints resolve to loopback and private
	// addresses (tests, self-hosted push services) (WEBPUSH_ALLOW_PRIVATE=1).
	WebPushAllowPrivate bool

	// MemoryLimitMB is the Go runtime's soft memory limit in MiB
	// (MEMORY_LIMIT_MB, 0 for none): past it the garbage collector runs
	// more often instead of letting the heap grow to twice the live data.
	// GOMEMLIMIT, when set, is the runtime's own and wins (GoMemLimitSet).
	MemoryLimitMB int
	GoMemLimitSet bool

	// AuthIPLimit is how many password-checking requests one client IP may
	// make per minute; 0 turns the limit off (AUTH_IP_LIMIT).
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
	// (PROJECTION_CHECK_SECONDS; internal/projcheck).
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
		VAPIDSubject:           strings.TrimSpace(get("VAPID_SUBJECT")),
		WebPushAllowPrivate:    flag("WEBPUSH_ALLOW_PRIVATE"),
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
	}
	switch c.SMTPTLS {
	case SMTPStartTLS, SMTPTLS, SMTPOff:
	default:
		errs = append(errs, "SMTP_TLS: se esperaba starttls, tls u off")
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
)

// Switch is the value of a test switch (Switch* constants).
func Switch(name string) string { return strings.TrimSpace(os.Getenv(name)) }
