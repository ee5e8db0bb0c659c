package agenda_test

import (
	"bytes"
	"sort"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/agenda"

	ical "github.com/emersion/go-ical"
)

const feedBase = "https://camellos.example"

// feedEvent is one parsed VEVENT.
type feedEvent struct{ uid, start, end, summary, location, status string }

// readFeed fetches a feed URL and parses it with an independent iCalendar
// parser (emersion/go-ical).
func readFeed(t *testing.T, k *testkit.Kit, url string) map[string]feedEvent {
	t.Helper()
	if !strings.HasPrefix(url, feedBase+"/api/agenda/calendar/") || !strings.HasSuffix(url, ".ics") {
		t.Fatalf("feed url %q", url)
	}
	r := k.Get(strings.TrimPrefix(url, feedBase), "")
	expect(t, r, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "text/calendar; charset=utf-8" {
		t.Fatalf("content type %q", ct)
	}
	if !bytes.Contains(r.Raw, []byte("\r\n")) {
		t.Fatalf("lines not CRLF")
	}
	cal, err := ical.NewDecoder(bytes.NewReader(r.Raw)).Decode()
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, r.Raw)
	}
	if v := cal.Props.Get(ical.PropVersion); v == nil || v.Value != "2.0" {
		t.Fatalf("VERSION: %s", r.Raw)
	}
	out := map[string]feedEvent{}
	for _, ev := range cal.Events() {
		get := func(name string) string {
			if p := ev.Props.Get(name); p != nil {
				return p.Value
			}
			return ""
		}
		start, err := ev.DateTimeStart(time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		end, err := ev.DateTimeEnd(time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(get(ical.PropDateTimeStart), "Z") || !strings.HasSuffix(get(ical.PropDateTimeEnd), "Z") {
			t.Fatalf("times not in UTC: %s", r.Raw)
		}
		loc, _ := ev.Props.Text(ical.PropLocation)
		e := feedEvent{uid: get(ical.PropUID), start: start.UTC().Format(time.RFC3339), end: end.UTC().Format(time.RFC3339),
			summary: get(ical.PropSummary), location: loc, status: get(ical.PropStatus)}
		out[e.uid] = e
	}
	return out
}

func uids(m map[string]feedEvent) string {
	out := []string{}
	for id := range m {
		out = append(out, id)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func TestCalendarFeed(t *testing.T) {
	t.Setenv("APP_URL", feedBase)
	w := newWorld(t)
	k := w.k
	job := k.CreateJob(testkit.JobOpts{Client: w.client, Provider: w.camello, Status: "ASIGNADO", Title: "Arreglar la ducha"})
	job.Set("address", "Calle 45 # 12-30, apto 301")
	if err := k.App.Save(job); err != nil {
		t.Fatal(err)
	}
	a1 := w.book(job.Id, "2026-11-24T13:00:00Z").Str("appointment.id")
	a2 := w.book(job.Id, "2026-11-25T13:00:00Z").Str("appointment.id")
	expect(t, k.Post("/api/appointments/"+a2+"/cancel", w.clientCookie, nil), 200, "")
	// 29 days back is listed, 31 days back is not.
	old := func(days int) string {
		start := monday.Add(-time.Duration(days) * 24 * time.Hour)
		return k.CreateRecord("appointments", map[string]any{"job": job.Id, "camello": w.camello.Id, "client": w.client.Id,
			"start": start, "end": start.Add(time.Hour), "status": "PROGRAMADA"}).Id
	}
	a3, _ := old(29), old(31)
	// The stranger's appointment with the same camello.
	sjob := k.CreateJob(testkit.JobOpts{Client: w.stranger, Provider: w.camello, Status: "ASIGNADO", Title: "Pintar"})
	rs := k.Post("/api/jobs/"+sjob.Id+"/appointments", w.strangerCookie, map[string]any{"start": "2026-11-26T13:00:00Z"})
	expect(t, rs, 201, "")
	s1 := rs.Str("appointment.id")

	expect(t, k.Get("/api/agenda/calendar", ""), 401, "No autorizado")
	expect(t, k.Post("/api/agenda/calendar/rotate", "", nil), 401, "No autorizado")
	url := k.Get("/api/agenda/calendar", w.clientCookie).Str("url")
	if again := k.Get("/api/agenda/calendar", w.clientCookie).Str("url"); again != url {
		t.Fatalf("the URL changed without a rotation: %s / %s", url, again)
	}

	t.Run("lists exactly the owner's appointments", func(t *testing.T) {
		got := readFeed(t, k, url)
		want := strings.Join(sortedStrings(a1+"@camellos", a2+"@camellos", a3+"@camellos"), ",")
		if uids(got) != want {
			t.Fatalf("client feed %s, want %s", uids(got), want)
		}
		e := got[a1+"@camellos"]
		if e.start != "2026-11-24T13:00:00Z" || e.end != "2026-11-24T14:00:00Z" || e.summary != "Arreglar la ducha" ||
			e.location != "Chapinero, Bogotá" || e.status != "CONFIRMED" {
			t.Fatalf("event %+v", e)
		}
		if got[a2+"@camellos"].status != "CANCELLED" {
			t.Fatalf("cancelled event %+v", got[a2+"@camellos"])
		}
		cam := readFeed(t, k, k.Get("/api/agenda/calendar", w.camCookie).Str("url"))
		want = strings.Join(sortedStrings(a1+"@camellos", a2+"@camellos", a3+"@camellos", s1+"@camellos"), ",")
		if uids(cam) != want {
			t.Fatalf("camello feed %s, want %s", uids(cam), want)
		}
		// The job's camello also gets the address.
		if loc := cam[a1+"@camellos"].location; loc != "Calle 45 # 12-30, apto 301, Chapinero, Bogotá" {
			t.Fatalf("camello's location %q", loc)
		}
		str := readFeed(t, k, k.Get("/api/agenda/calendar", w.strangerCookie).Str("url"))
		if uids(str) != s1+"@camellos" {
			t.Fatalf("stranger feed %s", uids(str))
		}
		if n := len(readFeed(t, k, k.Get("/api/agenda/calendar", w.adminCookie).Str("url"))); n != 0 {
			t.Fatalf("admin feed has %d events", n)
		}
	})

	t.Run("rotation", func(t *testing.T) {
		r := k.Post("/api/agenda/calendar/rotate", w.clientCookie, nil)
		expect(t, r, 200, "")
		fresh := r.Str("url")
		if fresh == url || !strings.HasPrefix(fresh, feedBase) {
			t.Fatalf("rotated url %q", fresh)
		}
		expect(t, k.Get(strings.TrimPrefix(url, feedBase), ""), 404, agenda.MsgFeedNotFound)
		if len(readFeed(t, k, fresh)) != 3 {
			t.Fatal("new feed")
		}
		if now := k.Get("/api/agenda/calendar", w.clientCookie).Str("url"); now != fresh {
			t.Fatalf("GET after rotate: %s", now)
		}
		token := strings.TrimSuffix(strings.TrimPrefix(fresh, feedBase+"/api/agenda/calendar/"), ".ics")
		for _, p := range []string{"/api/agenda/calendar/" + token, "/api/agenda/calendar/abc.ics",
			"/api/agenda/calendar/.ics", "/api/agenda/calendar/" + token + ".ICS", "/api/agenda/calendar/" + strings.Repeat("a", 200) + ".ics"} {
			expect(t, k.Get(p, ""), 404, agenda.MsgFeedNotFound)
		}
		// Only a hash of the token is stored.
		rec, err := k.App.FindFirstRecordByData("calendar_feeds", "user", w.client.Id)
		if err != nil {
			t.Fatal(err)
		}
		for field, v := range rec.FieldsData() {
			if s, ok := v.(string); ok && strings.Contains(s, token) {
				t.Fatalf("calendar_feeds.%s holds the token", field)
			}
		}
		if rec.GetString("tokenHash") == "" {
			t.Fatal("no token hash")
		}
	})
}

func sortedStrings(s ...string) []string {
	sort.Strings(s)
	return s
}

// TestCalendarFeedKeyLost: with a new feed key the old URLs stop and GET
// hands out a working one.
func TestCalendarFeedKeyLost(t *testing.T) {
	t.Setenv("APP_URL", feedBase)
	w := newWorld(t)
	k := w.k
	old := k.Get("/api/agenda/calendar", w.clientCookie).Str("url")
	readFeed(t, k, old)
	rec, err := k.App.FindFirstRecordByData("calendar_feeds", "user", w.client.Id)
	if err != nil {
		t.Fatal(err)
	}
	// Another key: the stored hash no longer matches what it derives.
	rec.Set("tokenHash", strings.Repeat("0", 64))
	if err := k.App.Save(rec); err != nil {
		t.Fatal(err)
	}
	expect(t, k.Get(strings.TrimPrefix(old, feedBase), ""), 404, agenda.MsgFeedNotFound)
	fresh := k.Get("/api/agenda/calendar", w.clientCookie).Str("url")
	if fresh == old {
		t.Fatal("same URL")
	}
	readFeed(t, k, fresh)
}
