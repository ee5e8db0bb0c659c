package agenda_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/users"
)

func seriesStarts(t *testing.T, r interface{ Get(string) any }) []string {
	t.Helper()
	list, _ := r.Get("appointments").([]any)
	out := []string{}
	for _, a := range list {
		out = append(out, a.(map[string]any)["start"].(string))
	}
	return out
}

func TestSeries(t *testing.T) {
	w := newWorld(t)
	k := w.k
	series := func(jobID, start, every string, count any) map[string]any {
		return map[string]any{"start": start, "repeat": map[string]any{"every": every, "count": count}}
	}
	post := func(jobID string, body any) *testkit.Response {
		return k.Post("/api/jobs/"+jobID+"/appointments", w.clientCookie, body)
	}
	job := w.job("ASIGNADO")

	t.Run("bad input", func(t *testing.T) {
		expectField(t, post(job.Id, map[string]any{"start": "2026-11-24T13:00:00Z", "repeat": "WEEK"}), "repeat", "objeto")
		expectField(t, post(job.Id, map[string]any{"start": "2026-11-24T13:00:00Z", "repeat": map[string]any{"count": 2}}), "repeat.every", "obligatorio")
		expectField(t, post(job.Id, series(job.Id, "2026-11-24T13:00:00Z", "DAY", 2)), "repeat.every", "WEEK o 2WEEKS")
		for _, count := range []any{1, 13, 2.5, "3", nil} {
			expectField(t, post(job.Id, series(job.Id, "2026-11-24T13:00:00Z", "WEEK", count)), "repeat.count", "")
		}
		expectField(t, post(job.Id, series(job.Id, "", "WEEK", 2)), "start", "obligatorio")
		// Far edges of time are refused as not free, never a 5xx.
		for _, start := range []string{"0001-01-01T00:00:00Z", "9999-12-31T23:00:00Z", "2026-11-23T05:00:00Z"} {
			expect(t, post(job.Id, series(job.Id, start, "2WEEKS", 12)), 409, agenda.MsgSeriesTaken)
			expect(t, post(job.Id, map[string]any{"start": start}), 409, agenda.MsgSlotTaken)
		}
		if n := k.Count("appointments", ""); n != 0 {
			t.Fatalf("bad input booked %d", n)
		}
	})

	t.Run("weekly, all booked", func(t *testing.T) {
		r := post(job.Id, series(job.Id, "2026-11-24T13:00:00Z", "WEEK", 2))
		expect(t, r, 201, "")
		if s := strings.Join(seriesStarts(t, r), ","); s != "2026-11-24T13:00:00.000Z,2026-12-01T13:00:00.000Z" {
			t.Fatalf("weekly: %s", s)
		}
		if r.Get("appointment") != nil {
			t.Fatalf("a series answers {appointments}: %s", r.Raw)
		}
		if n := k.Count("notifications", "user = {:u} AND kind = 'APPOINTMENT_BOOKED'", map[string]any{"u": w.camUser.Id}); n != 1 {
			t.Fatalf("camello told %d times", n)
		}
	})

	t.Run("one taken week books nothing", func(t *testing.T) {
		other := w.job("ASIGNADO")
		expect(t, w.book(other.Id, "2026-12-09T14:00:00Z"), 201, "")
		before := k.Count("appointments", "")
		r := post(job.Id, series(job.Id, "2026-11-25T14:00:00Z", "WEEK", 4))
		expect(t, r, 409, agenda.MsgSeriesTaken)
		conflicts, _ := r.Get("issues.conflicts").([]any)
		if len(conflicts) != 1 || conflicts[0] != "2026-12-09T14:00:00.000Z" {
			t.Fatalf("conflicts: %s", r.Raw)
		}
		if n := k.Count("appointments", ""); n != before {
			t.Fatalf("a refused series wrote %d appointments", n-before)
		}
	})

	t.Run("crossing the horizon", func(t *testing.T) {
		expect(t, w.putRules(t, map[string]any{"horizonDays": 14}), 200, "")
		// now + 14 days = Monday 7 December 06:00Z.
		r := post(job.Id, series(job.Id, "2026-11-26T13:00:00Z", "WEEK", 4))
		expect(t, r, 409, agenda.MsgSeriesTaken)
		conflicts, _ := r.Get("issues.conflicts").([]any)
		if len(conflicts) != 2 || conflicts[0] != "2026-12-10T13:00:00.000Z" || conflicts[1] != "2026-12-17T13:00:00.000Z" {
			t.Fatalf("conflicts: %s", r.Raw)
		}
		expect(t, w.putRules(t, map[string]any{"horizonDays": 365}), 200, "")
	})

	t.Run("crossing the cap", func(t *testing.T) {
		j := w.job("ASIGNADO")
		r := post(j.Id, series(j.Id, "2026-11-27T13:00:00Z", "2WEEKS", 12))
		expect(t, r, 201, "")
		if n := len(seriesStarts(t, r)); n != 12 {
			t.Fatalf("12 fortnights: %d", n)
		}
		j2 := w.job("ASIGNADO")
		expect(t, post(j2.Id, series(j2.Id, "2026-11-27T14:00:00Z", "WEEK", 10)), 201, "")
		before := k.Count("appointments", "")
		expect(t, post(j2.Id, series(j2.Id, "2026-11-27T15:00:00Z", "WEEK", 3)), 409, agenda.MsgTooMany)
		expect(t, post(j.Id, map[string]any{"start": "2026-11-27T16:00:00Z"}), 409, agenda.MsgTooMany)
		if n := k.Count("appointments", ""); n != before {
			t.Fatalf("over the cap wrote %d", n-before)
		}
		expect(t, post(j2.Id, series(j2.Id, "2026-11-27T15:00:00Z", "WEEK", 2)), 201, "")
	})
}

// TestSeriesAcrossDST: a series keeps its local time across a change of
// the camello's clocks.
func TestSeriesAcrossDST(t *testing.T) {
	for _, c := range []struct {
		zone, start, every string
		count              int
		want               []string
	}{
		// Madrid springs forward on Sunday 28 March 2027: 09:00 CET is
		// 08:00Z, 09:00 CEST is 07:00Z.
		{"Europe/Madrid", "2027-03-16T08:00:00Z", "WEEK", 4,
			[]string{"2027-03-16T08:00:00.000Z", "2027-03-23T08:00:00.000Z", "2027-03-30T07:00:00.000Z", "2027-04-06T07:00:00.000Z"}},
		// Santiago falls back on Saturday 3 April 2027 at 24:00: 09:00 at
		// -03 is 12:00Z, at -04 13:00Z.
		{"America/Santiago", "2027-03-23T12:00:00Z", "2WEEKS", 3,
			[]string{"2027-03-23T12:00:00.000Z", "2027-04-06T13:00:00.000Z", "2027-04-20T13:00:00.000Z"}},
	} {
		t.Run(c.zone, func(t *testing.T) {
			w := newWorld(t)
			expect(t, w.k.Put("/api/agenda/availability", w.camCookie, map[string]any{
				"timezone": c.zone, "horizonDays": 365,
				"weekly": []any{map[string]any{"weekday": 2, "start": "09:00", "end": "10:00"}},
			}), 200, "")
			job := w.job("ASIGNADO")
			r := w.k.Post("/api/jobs/"+job.Id+"/appointments", w.clientCookie,
				map[string]any{"start": c.start, "repeat": map[string]any{"every": c.every, "count": c.count}})
			expect(t, r, 201, "")
			got := seriesStarts(t, r)
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("series %v, want %v", got, c.want)
			}
			loc, _ := time.LoadLocation(c.zone)
			for _, s := range got {
				at, _ := time.Parse(time.RFC3339, s)
				if h, m, _ := at.In(loc).Clock(); h != 9 || m != 0 {
					t.Fatalf("%s is %02d:%02d local", s, h, m)
				}
			}
			// The same arithmetic as the listing: each start was a slot.
			slots := w.k.Get("/api/camellos/"+w.camello.Id+"/slots?from="+c.want[len(c.want)-1][:10]+"T00:00:00Z&to="+c.want[len(c.want)-1][:10]+"T23:00:00Z", w.strangerCookie)
			if n := len(slotStarts(slots)); n != 0 {
				t.Fatalf("the last occurrence's slot is still offered: %s", slots.Raw)
			}
		})
	}
}

// TestSeriesRacesBooking: a series and a booking of one of its weeks at
// once: exactly one wins, and a losing series books nothing.
func TestSeriesRacesBooking(t *testing.T) {
	w := newWorld(t)
	k := w.k
	other, otherCookie := k.UserWithSession(users.RoleClient)
	for round, hour := range []string{"13", "14", "15", "16"} {
		seriesJob := w.job("ASIGNADO")
		singleJob := k.CreateJob(testkit.JobOpts{Client: other, Provider: w.camello, Status: "ASIGNADO"})
		var seriesStatus, singleStatus int
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			seriesStatus = k.Post("/api/jobs/"+seriesJob.Id+"/appointments", w.clientCookie, map[string]any{
				"start": "2026-11-24T" + hour + ":00:00Z", "repeat": map[string]any{"every": "WEEK", "count": 4}}).Status
		}()
		go func() {
			defer wg.Done()
			<-start
			singleStatus = k.Post("/api/jobs/"+singleJob.Id+"/appointments", otherCookie,
				map[string]any{"start": "2026-12-08T" + hour + ":00:00Z"}).Status
		}()
		close(start)
		wg.Wait()
		held := k.Count("appointments", "job = {:j} AND status = 'PROGRAMADA'", map[string]any{"j": seriesJob.Id})
		switch {
		case seriesStatus == 201 && singleStatus == 409 && held == 4:
		case seriesStatus == 409 && singleStatus == 201 && held == 0:
		default:
			t.Fatalf("round %d: series %d (%d booked), single %d", round, seriesStatus, held, singleStatus)
		}
	}
}
