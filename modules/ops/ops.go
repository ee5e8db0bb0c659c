// Package ops is what running the service in production needs around the
// routes, applied at every start from the configuration (internal/config):
//
//   - PocketBase's own settings: the app name ("Camellos", which also names
//     the automatic backups), its URL (APP_URL), the sender of its mails
//     (MAIL_FROM) and the trusted proxy header (TRUSTED_PROXY_HEADER);
//   - the trusted proxies (TRUSTED_PROXIES): the client address is read from
//     the proxy header only when the request comes from one of them; the
//     header of anybody else is dropped before any middleware reads it;
//   - the log pipeline (internal/logs): redaction, _logs and stdout;
//   - one warning at start per production setting left unset.
package ops

import (
	"fmt"
	"net/mail"
	"net/netip"
	"strings"

	"camellos/internal/config"
	"camellos/internal/logs"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// AppName is PocketBase's Meta.AppName (dashboard title, automatic backup
// names `@auto_pb_backup_camellos_…`, its own mails).
const AppName = "Camellos"

// Register installs the log pipeline and applies the settings at every
// bootstrap and settings reload, binds the trusted-proxy middleware and
// logs the missing production settings when the service starts serving.
func Register(app core.App) {
	setup := func(a core.App) {
		logs.Install(a)
		if err := Apply(a, config.Of(a)); err != nil {
			a.Logger().Error("settings", "error", err.Error())
		}
	}
	app.OnBootstrap().BindFunc(func(e *core.BootstrapEvent) error {
		if err := e.Next(); err != nil {
			return err
		}
		setup(e.App)
		return nil
	})
	app.OnSettingsReload().BindFunc(func(e *core.SettingsReloadEvent) error {
		if err := e.Next(); err != nil {
			return err
		}
		return Apply(e.App, config.Of(e.App))
	})
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		se.Router.Bind(TrustedProxies())
		for _, m := range config.Of(se.App).Missing() {
			se.App.Logger().Warn("production setting missing", "variable", m[0], "effect", m[1])
		}
		if err := se.Next(); err != nil {
			return err
		}
		if se.Server == nil {
			return nil // the test kit's in-process server
		}
		se.App.Logger().Info("server started", "address", se.Server.Addr, "version", Version())
		// Rows logged before redaction existed lose their secrets (in the
		// background: a large _logs table must not delay the start).
		go func(app core.App) {
			if n, err := logs.ScrubStored(app); err != nil {
				app.Logger().Error("logs: scrubbing stored secrets failed", "error", err.Error())
			} else if n > 0 {
				app.Logger().Info("logs: secrets redacted in stored rows", "rows", n)
			}
		}(se.App)
		return nil
	})
	if app.IsBootstrapped() { // the test kit registers after bootstrapping
		setup(app)
	}
}

// Apply writes the configuration into PocketBase's settings in memory
// (the environment is their source; the service never saves them).
func Apply(app core.App, cfg config.Config) error {
	st := app.Settings()
	st.Meta.AppName = AppName
	st.Meta.AppURL = cfg.AppURL
	if from, err := mail.ParseAddress(cfg.MailFrom); err == nil {
		st.Meta.SenderAddress = from.Address
		st.Meta.SenderName = from.Name
		if st.Meta.SenderName == "" {
			st.Meta.SenderName = AppName
		}
	} else {
		return fmt.Errorf("MAIL_FROM: %w", err)
	}
	st.TrustedProxy.UseLeftmostIP = false
	st.TrustedProxy.Headers = nil
	if len(cfg.TrustedProxies) > 0 {
		st.TrustedProxy.Headers = []string{cfg.ProxyHeader}
	}
	return nil
}

// TrustedProxyPriority runs the middleware before every other one (the
// rate limits, the request log and our routes read RealIP).
const TrustedProxyPriority = -1_000_000

// TrustedProxies is the first middleware: a request from a trusted proxy
// gets its proxy header reduced to the one client address (the rightmost
// address that is not itself a trusted proxy, so a forged value the client
// put in front is ignored); from anybody else the header is dropped, so
// PocketBase's RealIP is the peer's address.
func TrustedProxies() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "camellosTrustedProxies",
		Priority: TrustedProxyPriority,
		Func: func(e *core.RequestEvent) error {
			cfg := config.Of(e.App)
			h := cfg.ProxyHeader
			peer, err := netip.ParseAddr(e.RemoteIP())
			if err != nil || !cfg.TrustedProxy(peer) {
				e.Request.Header.Del(h)
				return e.Next()
			}
			if client, ok := ClientAddr(cfg, e.Request.Header.Values(h)); ok {
				e.Request.Header.Set(h, client.String())
			} else {
				e.Request.Header.Del(h)
			}
			return e.Next()
		},
	}
}

// ClientAddr reads the client address out of a proxy header's values: the
// rightmost valid address that is not a trusted proxy.
func ClientAddr(cfg config.Config, values []string) (netip.Addr, bool) {
	var all []string
	for _, v := range values {
		all = append(all, strings.Split(v, ",")...)
	}
	for i := len(all) - 1; i >= 0; i-- {
		s := strings.TrimSpace(all[i])
		if host, _, ok := strings.Cut(s, "]"); ok && strings.HasPrefix(host, "[") {
			s = host[1:] // "[v6]:port"
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			if ap, perr := netip.ParseAddrPort(s); perr == nil {
				a = ap.Addr()
			} else {
				return netip.Addr{}, false // garbage: do not guess past it
			}
		}
		a = a.Unmap()
		if cfg.TrustedProxy(a) {
			continue
		}
		return a, true
	}
	return netip.Addr{}, false
}
