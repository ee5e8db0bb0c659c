package hardening_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"camellos/hardening"
	"camellos/internal/logs"
	"camellos/internal/testkit"
	"camellos/modules/mail"

	"github.com/pocketbase/pocketbase/tests"
)

var tokenLink = regexp.MustCompile(`https?://[^\s"<>]+\?token=[^\s"<>&]+`)

// Secrets never reach a log, a metric or a backup of the logs: after a run
// of every route as every role (each request carrying a password-reset
// link, a verification link or the calendar feed's URL as its Referer, as
// the web pages send them), requests for the feed (token in the path), the
// reset and verification pages (token in the query), the cron and metrics
// bearers, the logs database (auxiliary.db: the _logs table and the raw
// file), the stdout log, /metrics and a backup's copy of auxiliary.db are
// searched for every secret: session tokens, the feed token, the reset and
// verification tokens, CRON_SECRET and METRICS_TOKEN.
func TestSecretsNeverReachTheLogs(t *testing.T) {
	const cronSecret, metricsToken = "cron-secreto-0123456789abcdef", "metricas-secreto-0123456789abcdef"
	mb := testkit.NewMailbox(t)
	mb.Env(t, "off")
	t.Setenv("AUTH_IP_LIMIT", "0")
	t.Setenv("CRON_SECRET", cronSecret)
	t.Setenv("METRICS_TOKEN", metricsToken)
	t.Setenv("REMINDERS_SCHEDULE", "off")
	var stdout bytes.Buffer
	fastMail := func(app *tests.TestApp) {
		mail.SetOptions(app, mail.Options{Backoff: []time.Duration{100 * time.Millisecond}, Poll: 100 * time.Millisecond})
		app.Settings().Logs.MaxDays = 5 // PocketBase's test app turns the logs off; the service keeps 5 days
	}
	w := hardening.NewWorld(t, testkit.LogTo(&stdout), fastMail)
	k := w.K

	secrets := map[string]string{"CRON_SECRET": cronSecret, "METRICS_TOKEN": metricsToken}
	for role, c := range w.Cookies {
		if c != "" {
			secrets["session of "+string(role)] = c
		}
	}
	// A client signs up (verification mail), signs in and asks for a reset.
	email := "secretos" + hardening.Unique() + "@example.com"
	if res := k.Post("/api/auth/register", "", map[string]any{"name": "Cliente Secreto", "email": email,
		"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": true}); res.Status != 201 {
		t.Fatalf("register: %d %s", res.Status, res.Raw)
	}
	login := k.Post("/api/auth/login", "", map[string]any{"email": email, "password": "secreto-123"})
	for _, c := range strings.Split(login.Header.Get("Set-Cookie"), ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(c), "auth.session-token="); ok && v != "" {
			secrets["session from login"] = v
		}
	}
	if secrets["session from login"] == "" {
		t.Fatalf("login: %d %s", login.Status, login.Raw)
	}
	if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": email}); res.Status != 202 {
		t.Fatalf("forgot: %d", res.Status)
	}
	links := map[string]string{}
	for _, m := range mb.Wait(email, 2, 20*time.Second) {
		for _, l := range tokenLink.FindAllString(m.Text, -1) {
			u, err := url.Parse(l)
			if err != nil {
				continue
			}
			page := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), ".html")
			links[page] = l
			secrets[page+" token"] = u.Query().Get("token")
		}
	}
	if links["restablecer"] == "" || links["verificar"] == "" {
		t.Fatalf("no reset or verify link in the mails: %v", links)
	}
	feed := k.Get("/api/agenda/calendar", w.Cookies[hardening.Client])
	feedURL := feed.Str("url")
	fu, err := url.Parse(feedURL)
	if err != nil || feedURL == "" {
		t.Fatalf("feed: %d %s", feed.Status, feed.Raw)
	}
	feedToken := strings.TrimSuffix(filepath.Base(fu.Path), ".ics")
	secrets["calendar feed token"] = feedToken
	for name, s := range secrets {
		if len(s) < 16 {
			t.Fatalf("secret %s too short to search for: %q", name, s)
		}
	}

	// Every route as every role, each request with a secret in its Referer.
	referers := []string{links["restablecer"], links["verificar"], feedURL, feedURL + "?token=" + secrets["session from login"]}
	n := 0
	for _, rt := range hardening.OwnedRoutes(t) {
		exp, ok := hardening.Table[rt.Key()]
		if !ok {
			continue
		}
		for _, role := range hardening.Roles {
			c := exp.Build(w, role)
			cookie := w.Cookies[role]
			if c.FreshSession {
				cookie = w.Fresh(role)
			}
			path := w.ExpandID(rt.Path, c.ID)
			if c.Query != "" {
				path += "?" + c.Query
			}
			path = hardening.WithStreamQuery(rt, path)
			k.Do(testkit.Req{Method: rt.Method, Path: path, Body: c.Body, Cookie: cookie,
				Headers: map[string]string{"Referer": referers[n%len(referers)]}})
			n++
		}
	}
	// The secrets where they travel: the feed's path, the pages' queries,
	// the bearers; and wrong or stale ones (logged as errors).
	rs := secrets["restablecer token"]
	for _, r := range []testkit.Req{
		{Method: "GET", Path: fu.Path},
		{Method: "GET", Path: "/api/agenda/calendar/" + feedToken},
		{Method: "GET", Path: "/api/agenda/calendar/" + feedToken + "x.ics"},
		{Method: "GET", Path: "/restablecer.html?token=" + rs},
		{Method: "GET", Path: "/verificar.html?token=" + secrets["verificar token"]},
		{Method: "GET", Path: "/api/health?token=" + secrets["session from login"] + "&next=%2F"},
		{Method: "GET", Path: "/api/files/users/x/y.png?token=" + secrets["session from login"]},
		{Method: "POST", Path: "/api/cron/appointment-reminders", Headers: map[string]string{"Authorization": "Bearer " + cronSecret}},
		{Method: "POST", Path: "/api/cron/appointment-reminders", Headers: map[string]string{"Authorization": "Bearer " + cronSecret + "x"}},
		{Method: "POST", Path: "/api/auth/verify", Body: map[string]any{"token": secrets["verificar token"]}, Headers: map[string]string{"Referer": links["verificar"]}},
		{Method: "POST", Path: "/api/auth/password/reset", Body: map[string]any{"token": rs, "password": "otra-clave-123", "confirmPassword": "otra-clave-123"}, Headers: map[string]string{"Referer": links["restablecer"]}},
		{Method: "POST", Path: "/api/auth/password/reset", Body: map[string]any{"token": rs, "password": "otra-clave-123", "confirmPassword": "otra-clave-123"}, Headers: map[string]string{"Referer": links["restablecer"]}},
	} {
		k.Do(r)
	}
	metrics := k.Do(testkit.Req{Method: "GET", Path: "/metrics", Headers: map[string]string{"Authorization": "Bearer " + metricsToken}})
	if metrics.Status != 200 {
		t.Fatalf("metrics: %d", metrics.Status)
	}
	mail.WaitIdle(k.App, 2*time.Minute)
	logs.Flush(k.App)

	// The logs database: every row, then the raw files.
	type row struct{ Message, Data string }
	var rows []row
	if err := k.App.AuxDB().NewQuery("SELECT message, data FROM _logs").All(&rows); err != nil {
		t.Fatal(err)
	}
	var logText strings.Builder
	requests, feedLogged := 0, false
	for _, r := range rows {
		logText.WriteString(r.Message + "\n" + r.Data + "\n")
		if strings.Contains(r.Data, `"type":"request"`) {
			requests++
		}
		if strings.Contains(r.Message, "/api/agenda/calendar/"+logs.Redacted) {
			feedLogged = true
		}
	}
	// (a request is logged after its answer is sent, and some routes skip
	// the log of a success: most, not all, are there when this reads)
	if requests < n/2 || !feedLogged {
		t.Fatalf("the request log is incomplete: %d request rows for %d requests, feed request logged redacted: %v", requests, n, feedLogged)
	}
	raw := map[string][]byte{"_logs rows": []byte(logText.String()), "stdout log": stdout.Bytes(), "/metrics": metrics.Raw}
	for _, f := range []string{"auxiliary.db", "auxiliary.db-wal"} {
		if b, err := os.ReadFile(filepath.Join(k.App.DataDir(), f)); err == nil {
			raw[f] = b
		}
	}
	if !strings.Contains(stdout.String(), "/api/agenda/calendar/"+logs.Redacted) || strings.Count(stdout.String(), "\n") < n/2 {
		t.Fatalf("the stdout log lacks the requests (%d lines for %d requests)", strings.Count(stdout.String(), "\n"), n)
	}
	// A backup holds the logs database as it is.
	if err := k.App.CreateBackup(context.Background(), "secretos.zip"); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(filepath.Join(k.App.DataDir(), "backups", "secretos.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "auxiliary.db") {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			raw["backup "+f.Name] = b
		}
	}
	if _, ok := raw["backup auxiliary.db"]; !ok {
		t.Fatal("the backup holds no auxiliary.db")
	}
	names := make([]string, 0, len(secrets))
	for name := range secrets {
		names = append(names, name)
	}
	sort.Strings(names)
	for where, b := range raw {
		for _, name := range names {
			if bytes.Contains(b, []byte(secrets[name])) {
				i := bytes.Index(b, []byte(secrets[name]))
				lo, hi := max(0, i-120), min(len(b), i+60)
				t.Errorf("%s holds the %s: …%q…", where, name, b[lo:hi])
			}
		}
	}
	t.Logf("%d route calls, %d _logs rows (%d requests), %d stdout lines, %d secrets searched in %d places",
		n, len(rows), requests, strings.Count(stdout.String(), "\n"), len(secrets), len(raw))
}
