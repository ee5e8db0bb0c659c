// Package mail is the service's e-mail: the transport read from the
// environment (SMTP_*, MAIL_FROM) and applied to PocketBase's mail
// settings, the Spanish templates (embedded), and the outbox with its
// sender, which retries with backoff so that an SMTP failure never fails a
// request and never loses a mail. It also holds `camellos mail catch`.
package mail

import (
	"encoding/json"

	"camellos/internal/bus"
	"camellos/internal/config"

	"github.com/pocketbase/pocketbase/core"
)

// Register applies the SMTP settings of the environment to PocketBase's
// settings (at once and after every settings reload, so the environment
// wins over the dashboard) and runs the outbox sender while the service
// serves.
func Register(app core.App) {
	if app.IsBootstrapped() {
		applySettings(app)
	}
	app.OnBootstrap().BindFunc(func(e *core.BootstrapEvent) error {
		if err := e.Next(); err != nil {
			return err
		}
		applySettings(e.App)
		return nil
	})
	app.OnSettingsReload().BindFunc(func(e *core.SettingsReloadEvent) error {
		if err := e.Next(); err != nil {
			return err
		}
		applySettings(e.App)
		return nil
	})
	// An erased account's mails still waiting leave the outbox with it.
	bus.Of(app).UserErasing.BindFunc(func(e *bus.Erase) error {
		if err := EraseUser(e.App, e.User.Id); err != nil {
			return err
		}
		return e.Next()
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		if workerOf(se.App) == nil {
			startWorker(se.App)
		}
		return se.Next()
	})
	app.OnTerminate().BindFunc(func(e *core.TerminateEvent) error {
		if w := workerOf(e.App); w != nil {
			w.stop()
		}
		return e.Next()
	})
}

// applySettings copies SMTP_* and MAIL_FROM into PocketBase's (in-memory)
// mail settings. Without SMTP_HOST the settings are left as they are.
func applySettings(app core.App) {
	cfg := config.Of(app)
	if cfg.SMTPHost == "" {
		return
	}
	s := app.Settings()
	s.SMTP.Enabled = true
	s.SMTP.Host = cfg.SMTPHost
	s.SMTP.Port = cfg.SMTPPort
	s.SMTP.Username = cfg.SMTPUsername
	s.SMTP.Password = cfg.SMTPPassword
	s.SMTP.TLS = cfg.SMTPTLS == config.SMTPTLS
	from := Sender(app)
	s.Meta.SenderName = from.Name
	s.Meta.SenderAddress = from.Address
}

func headersJSON(h map[string]string) string {
	b, _ := json.Marshal(h)
	return string(b)
}

func parseHeaders(raw string) map[string]string {
	h := map[string]string{}
	_ = json.Unmarshal([]byte(raw), &h)
	return h
}
