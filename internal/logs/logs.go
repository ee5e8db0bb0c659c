// Package logs is the service's log pipeline, in one place: every record
// logged through app.Logger() (our modules' errors, backups, mail, the
// reminder sweep, push failures, and PocketBase's own request log) has its
// secrets redacted (Redact) and then goes both to PocketBase's logs
// database (auxiliary.db, table _logs, shown in the dashboard) and to the
// process's stdout (slog text or JSON, LOG_FORMAT / LOG_LEVEL), where
// journald or `docker logs` pick it up.
//
// PocketBase gives no way to replace its logger; Install swaps the handler
// of the *slog.Logger it hands out, in place, right after bootstrap.
package logs

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"

	"camellos/internal/config"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/logger"
)

// Redacted replaces every secret in a log line.
const Redacted = "[REDACTED]"

var (
	// query parameters (and fragment parameters) whose name says secret:
	// reset and verify links (?token=), PocketBase's file tokens, codes.
	secretParam = regexp.MustCompile(`(?i)([?&#;](?:[a-z0-9_.\-]*(?:token|secret|password|passwd|signature|code|key|otp|auth)[a-z0-9_.\-]*)=)([^&#\s"'<>]+)`)
	// the calendar feed's path carries its secret token.
	feedPath = regexp.MustCompile(`(/api/agenda/calendar/)([^/?#\s"'<>]+)`)
	// a session cookie or a bearer written out anywhere.
	cookieValue = regexp.MustCompile(`(?i)(auth\.session-token=)([^;\s"'<>]+)`)
	bearer      = regexp.MustCompile(`(?i)(bearer\s+)([^\s"'<>,;]+)`)
)

// Redact returns s with every secret replaced by [REDACTED]: calendar feed
// tokens (the path /api/agenda/calendar/<token>), query parameters named
// like a secret (token, code, key, secret, password, signature…: reset
// and verify links, file tokens), session cookies and bearer tokens.
func Redact(s string) string {
	// Each expression runs only on a line that holds what it needs (most
	// lines, such as a request log's path, hold none of it): the request
	// log redacts every request's attributes.
	lower := strings.ToLower(s) // s itself when it has no upper-case letter
	if strings.ContainsAny(s, "?&#;") && strings.Contains(s, "=") {
		s = secretParam.ReplaceAllString(s, "${1}"+Redacted)
	}
	if strings.Contains(s, "/api/agenda/calendar/") {
		s = feedPath.ReplaceAllStringFunc(s, func(m string) string {
			sub := feedPath.FindStringSubmatch(m)
			if sub[2] == "rotate" || sub[2] == Redacted {
				return m
			}
			return sub[1] + Redacted
		})
	}
	if strings.Contains(lower, "session-token=") {
		s = cookieValue.ReplaceAllString(s, "${1}"+Redacted)
	}
	if strings.Contains(lower, "bearer") {
		s = bearer.ReplaceAllString(s, "${1}"+Redacted)
	}
	return s
}

// redactAttr redacts an attribute's value (groups recursively; any other
// value is redacted in its printed form when that form holds a secret).
func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if r := Redact(v.String()); r != v.String() {
			return slog.String(a.Key, r)
		}
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = redactAttr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if v.Any() == nil {
			return a
		}
		s := fmt.Sprint(v.Any())
		if err, ok := v.Any().(error); ok {
			s = err.Error()
		}
		if r := Redact(s); r != s {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// tee redacts every record and hands it to PocketBase's handler (the _logs
// table) and to the stdout handler.
type tee struct {
	store  slog.Handler // PocketBase's batch handler
	stdout slog.Handler // nil: no stdout log
	batch  *logger.BatchHandler
}

func (t *tee) Enabled(ctx context.Context, l slog.Level) bool {
	return t.store.Enabled(ctx, l) || (t.stdout != nil && t.stdout.Enabled(ctx, l))
}

func (t *tee) Handle(ctx context.Context, r slog.Record) error {
	clean := slog.NewRecord(r.Time, r.Level, Redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		clean.AddAttrs(redactAttr(a))
		return true
	})
	var err error
	if t.store.Enabled(ctx, r.Level) {
		err = t.store.Handle(ctx, clean.Clone())
	}
	if t.stdout != nil && t.stdout.Enabled(ctx, r.Level) {
		if e := t.stdout.Handle(ctx, clean); err == nil {
			err = e
		}
	}
	return err
}

func (t *tee) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = redactAttr(a)
	}
	n := &tee{store: t.store.WithAttrs(clean), batch: t.batch}
	if t.stdout != nil {
		n.stdout = t.stdout.WithAttrs(clean)
	}
	return n
}

func (t *tee) WithGroup(name string) slog.Handler {
	n := &tee{store: t.store.WithGroup(name), batch: t.batch}
	if t.stdout != nil {
		n.stdout = t.stdout.WithGroup(name)
	}
	return n
}

// syncWriter serialises writes of the stdout handlers (one line each).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

const outputKey = "camellos.logs.output"

// SetOutput makes w the stdout log's destination for app (the CLI sets
// os.Stdout for `serve`; other commands keep their stdout for their own
// output and log only to _logs; tests pass a buffer). Call it before
// Install runs.
func SetOutput(app core.App, w io.Writer) { app.Store().Set(outputKey, w) }

// Install wraps app's logger (once per bootstrap): redaction, then
// PocketBase's _logs and, when an output was set and LOG_FORMAT is not
// off, the stdout log.
func Install(app core.App) {
	l := app.Logger()
	if l == nil || l == slog.Default() {
		return // not bootstrapped
	}
	if _, done := l.Handler().(*tee); done {
		return
	}
	t := &tee{store: l.Handler()}
	t.batch, _ = l.Handler().(*logger.BatchHandler)
	cfg := config.Of(app)
	if w, ok := app.Store().Get(outputKey).(io.Writer); ok && w != nil && cfg.LogFormat != config.LogOff {
		opts := &slog.HandlerOptions{Level: cfg.LogLevel}
		sw := &syncWriter{w: w}
		if cfg.LogFormat == config.LogJSON {
			t.stdout = slog.NewJSONHandler(sw, opts)
		} else {
			t.stdout = slog.NewTextHandler(sw, opts)
		}
	}
	*l = *slog.New(t)
}

// Flush writes the records PocketBase keeps in memory (it writes them
// every 3 s or per 200) to _logs now (tests, before reading the table).
func Flush(app core.App) {
	if t, ok := app.Logger().Handler().(*tee); ok && t.batch != nil {
		_ = t.batch.WriteAll(context.Background())
	}
}

// Stdout is the process's standard output (the CLI's `serve`).
func Stdout() io.Writer { return os.Stdout }

// ScrubStored redacts the log rows already stored in _logs (written before
// this version redacted them: feed URLs, reset and verification links in
// request URLs and referers), so that the logs database and its backups
// hold no secret after an upgrade. It returns how many rows it rewrote.
func ScrubStored(app core.App) (int, error) {
	type row struct {
		ID      string `db:"id"`
		Message string `db:"message"`
		Data    string `db:"data"`
	}
	var rows []row
	err := app.AuxDB().NewQuery(`SELECT id, message, data FROM _logs
		WHERE message LIKE '%/api/agenda/calendar/%' OR data LIKE '%/api/agenda/calendar/%'
		   OR data LIKE '%=%' OR message LIKE '%=%' OR data LIKE '%earer%'`).All(&rows)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range rows {
		msg, data := Redact(r.Message), Redact(r.Data)
		if msg == r.Message && data == r.Data {
			continue
		}
		if _, err := app.AuxDB().NewQuery("UPDATE _logs SET message = {:m}, data = {:d} WHERE id = {:id}").
			Bind(map[string]any{"m": msg, "d": data, "id": r.ID}).Execute(); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
