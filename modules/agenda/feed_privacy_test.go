package agenda_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

var resetLink = regexp.MustCompile(`restablecer\.html\?token=([A-Za-z0-9_-]+)`)

// TestCalendarFeedDiesWithTheAccount (issue 21): a feed URL stops answering
// (404) when its owner is disabled, erased, changes or resets the
// password; re-enabling a disabled account does not revive it; the owner's
// next GET /api/agenda/calendar hands out a new working URL; another
// user's feed keeps answering throughout.
func TestCalendarFeedDiesWithTheAccount(t *testing.T) {
	mb := testkit.NewMailbox(t)
	mb.Env(t, "off")
	t.Setenv("APP_URL", feedBase)
	t.Setenv("AUTH_IP_LIMIT", "0")
	p := testkit.NewParties(t)
	k := p.K
	control := k.Get("/api/agenda/calendar", p.StrangerCookie).Str("url")
	path := func(url string) string { return strings.TrimPrefix(url, feedBase) }
	newPassword := "otra-clave-789"

	cases := []struct {
		name string
		kill func(t *testing.T, u *core.Record, cookie string) (newCookie string)
	}{
		{"disabled by an admin", func(t *testing.T, u *core.Record, _ string) string {
			expect(t, k.Patch("/api/admin/users/"+u.Id, p.AdminCookie, map[string]any{"disabled": true}), 200, "")
			return ""
		}},
		{"erased", func(t *testing.T, u *core.Record, cookie string) string {
			expect(t, k.Delete("/api/me", cookie, map[string]any{"password": testkit.DefaultPassword}), 200, "")
			return ""
		}},
		{"password changed", func(t *testing.T, u *core.Record, cookie string) string {
			r := k.Patch("/api/me", cookie, map[string]any{"currentPassword": testkit.DefaultPassword,
				"password": newPassword, "confirmPassword": newPassword})
			expect(t, r, 200, "")
			return k.Session(reload(t, k, u))
		}},
		{"password reset", func(t *testing.T, u *core.Record, _ string) string {
			expect(t, k.Post("/api/auth/password/forgot", "", map[string]any{"email": u.Email()}), 202, "")
			var token string
			for _, m := range mb.Wait(u.Email(), 1, 10*time.Second) {
				if s := resetLink.FindStringSubmatch(m.Text); s != nil {
					token = s[1]
				}
			}
			if token == "" {
				t.Fatal("no reset link mailed")
			}
			r := k.Post("/api/auth/password/reset", "", map[string]any{"token": token, "password": newPassword, "confirmPassword": newPassword})
			expect(t, r, 200, "")
			return k.Session(reload(t, k, u))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, cookie := k.UserWithSession(users.RoleClient)
			url := k.Get("/api/agenda/calendar", cookie).Str("url")
			readFeed(t, k, url) // it answers before
			fresh := c.kill(t, u, cookie)
			expect(t, k.Get(path(url), ""), 404, agenda.MsgFeedNotFound)
			readFeed(t, k, control) // another user's feed is untouched
			if fresh == "" {
				// Disabled or erased: the feed itself is gone, so
				// re-enabling the account does not bring the URL back.
				if n := k.Count(agenda.CalendarFeedsCollection, "user = {:u}", map[string]any{"u": u.Id}); n != 0 {
					t.Fatalf("%d feeds left for the user", n)
				}
				rec := reload(t, k, u)
				rec.Set("disabled", false)
				if err := k.App.Save(rec); err != nil {
					t.Fatal(err)
				}
				expect(t, k.Get(path(url), ""), 404, agenda.MsgFeedNotFound)
				return
			}
			next := k.Get("/api/agenda/calendar", fresh).Str("url")
			if next == url {
				t.Fatal("the same URL after the password changed")
			}
			readFeed(t, k, next)
			expect(t, k.Get(path(url), ""), 404, agenda.MsgFeedNotFound)
		})
	}
}

// TestCalendarFeedLineBreaks (issue 21): a bare CR, a bare LF and a CRLF in
// a job title (or address) never reach the .ics raw: each is one escaped
// line break ("\n" in the value), every physical line ends in CRLF, and an
// independent parser reads the title back with the break.
func TestCalendarFeedLineBreaks(t *testing.T) {
	t.Setenv("APP_URL", feedBase)
	w := newWorld(t)
	k := w.k
	titles := map[string]string{
		"Uno\rDos":        "Uno\nDos",
		"Tres\nCuatro":    "Tres\nCuatro",
		"Cinco\r\nSeis":   "Cinco\nSeis",
		"Siete\r\rOcho":   "Siete\n\nOcho",
		"Nueve\x0bDiez\t": "Nueve Diez\t",
	}
	want := map[string]string{}
	starts := []string{"2026-11-24T13:00:00Z", "2026-11-24T14:00:00Z", "2026-11-24T15:00:00Z", "2026-11-25T13:00:00Z", "2026-11-25T14:00:00Z"}
	i := 0
	for title, read := range titles {
		job := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: "ASIGNADO", Title: "Trabajo"})
		job.Set("title", title)
		job.Set("address", "Calle 1\rPiso 2")
		if err := k.App.Save(job); err != nil {
			t.Fatalf("title %q: %v", title, err)
		}
		want[w.book(job.Id, starts[i]).Str("appointment.id")+"@camellos"] = read
		i++
	}
	for _, cookie := range []string{w.clientCookie, w.camCookie} {
		url := k.Get("/api/agenda/calendar", cookie).Str("url")
		raw := k.Get(strings.TrimPrefix(url, feedBase), "").Raw
		for n, line := range bytes.Split(raw, []byte("\r\n")) {
			if bytes.ContainsAny(line, "\r\n\x0b") {
				t.Fatalf("line %d holds a raw CR, LF or VT: %q", n+1, line)
			}
		}
		events := readFeed(t, k, url)
		for uid, title := range want {
			got := events[uid].summary
			// go-ical leaves SUMMARY escaped; unescape the one sequence used.
			if got = strings.ReplaceAll(got, `\n`, "\n"); got != title {
				t.Errorf("SUMMARY %q, want %q", got, title)
			}
			if cookie == w.camCookie && !strings.HasPrefix(events[uid].location, "Calle 1\nPiso 2, ") {
				t.Errorf("camello's LOCATION %q", events[uid].location)
			}
		}
	}
}
