package agenda_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/jobs"

	"github.com/pocketbase/pocketbase/core"
)

// weekdays is the world's availability: Monday to Friday 08:00–12:00 in
// Bogotá (13:00Z–17:00Z).
func weekdays() []any {
	out := []any{}
	for d := 1; d <= 5; d++ {
		out = append(out, map[string]any{"weekday": d, "start": "08:00", "end": "12:00"})
	}
	return out
}

// putRules saves the world's weekly availability with the given rules.
func (w *world) putRules(t *testing.T, rules map[string]any) *testkit.Response {
	t.Helper()
	body := map[string]any{"weekly": weekdays(), "blockedDates": []any{}}
	for k, v := range rules {
		body[k] = v
	}
	return w.k.Put("/api/agenda/availability", w.camCookie, body)
}

// slotsOn lists the free slot starts of the world's camello on one UTC day.
func (w *world) slotsOn(t *testing.T, day string) string {
	t.Helper()
	r := w.k.Get("/api/camellos/"+w.camello.Id+"/slots?from="+day+"T00:00:00Z&to="+day+"T23:59:00Z", w.strangerCookie)
	expect(t, r, 200, "")
	return strings.Join(slotStarts(r), ",")
}

func (w *world) book(jobID string, start string) *testkit.Response {
	return w.k.Post("/api/jobs/"+jobID+"/appointments", w.clientCookie, map[string]any{"start": start})
}

func TestAvailabilityRulesBounds(t *testing.T) {
	w := newWorld(t)
	r := w.k.Get("/api/agenda/availability", w.camCookie)
	for field, want := range map[string]float64{"minNoticeMinutes": 120, "bufferMinutes": 0, "horizonDays": 60, "travelBufferMinutes": 0} {
		if got := r.Get("availability." + field); got != want {
			t.Fatalf("default %s = %v, want %v: %s", field, got, want, r.Raw)
		}
	}
	for _, c := range []struct {
		field string
		value any
		ok    bool
	}{
		{"minNoticeMinutes", 0, true}, {"minNoticeMinutes", 10080, true},
		{"minNoticeMinutes", -1, false}, {"minNoticeMinutes", 10081, false},
		{"bufferMinutes", 0, true}, {"bufferMinutes", 240, true},
		{"bufferMinutes", -1, false}, {"bufferMinutes", 241, false},
		{"horizonDays", 1, true}, {"horizonDays", 365, true},
		{"horizonDays", 0, false}, {"horizonDays", 366, false},
		{"travelBufferMinutes", 0, true}, {"travelBufferMinutes", 240, true},
		{"travelBufferMinutes", -1, false}, {"travelBufferMinutes", 241, false},
		{"minNoticeMinutes", 1.5, false}, {"horizonDays", 1e12, false},
	} {
		r := w.putRules(t, map[string]any{c.field: c.value})
		if c.ok {
			expect(t, r, 200, "")
			if got := r.Get("availability." + c.field); got != c.value && got != float64(c.value.(int)) {
				t.Fatalf("%s = %v saved as %v", c.field, c.value, got)
			}
			continue
		}
		expectField(t, r, c.field, "Debe ser un número entero entre")
	}
	expectField(t, w.putRules(t, map[string]any{"bufferMinutes": "10"}), "bufferMinutes", "número")
	// An absent rule keeps its saved value.
	expect(t, w.putRules(t, map[string]any{"bufferMinutes": 30}), 200, "")
	if r := w.putRules(t, nil); r.Get("availability.bufferMinutes") != 30.0 {
		t.Fatalf("absent rule reset: %s", r.Raw)
	}
	// The record hook refuses the same bounds whatever saves the record.
	av, err := w.k.App.FindFirstRecordByData("availability", "camello", w.camello.Id)
	if err != nil {
		t.Fatal(err)
	}
	av.Set("horizonDays", 0)
	if err := w.k.App.Save(av); err == nil {
		t.Fatal("horizonDays 0 saved")
	}
}

// TestRulesChangeSlotsAndBooking: each rule removes the same slots from
// the listing and from what can be booked.
func TestRulesChangeSlotsAndBooking(t *testing.T) {
	w := newWorld(t)
	// now is Monday 06:00Z; Monday's slots are 13:00Z–16:00Z.
	t.Run("minimum notice", func(t *testing.T) {
		expect(t, w.putRules(t, map[string]any{"minNoticeMinutes": 480}), 200, "")
		// now + 8 h = 14:00Z: a slot starting exactly then is in.
		if s := w.slotsOn(t, "2026-11-23"); s != "2026-11-23T14:00:00.000Z,2026-11-23T15:00:00.000Z,2026-11-23T16:00:00.000Z" {
			t.Fatalf("notice 480: %s", s)
		}
		expect(t, w.putRules(t, map[string]any{"minNoticeMinutes": 481}), 200, "")
		if s := w.slotsOn(t, "2026-11-23"); strings.Contains(s, "T14:00") {
			t.Fatalf("notice 481: %s", s)
		}
		job := w.job("ASIGNADO")
		expect(t, w.book(job.Id, "2026-11-23T14:00:00Z"), 409, agenda.MsgSlotTaken)
		expect(t, w.putRules(t, map[string]any{"minNoticeMinutes": 480}), 200, "")
		r := w.book(job.Id, "2026-11-23T14:00:00Z")
		expect(t, r, 201, "")
		expect(t, w.k.Post("/api/appointments/"+r.Str("appointment.id")+"/cancel", w.clientCookie, nil), 200, "")
		expect(t, w.putRules(t, map[string]any{"minNoticeMinutes": 0}), 200, "")
	})
	t.Run("horizon", func(t *testing.T) {
		expect(t, w.putRules(t, map[string]any{"horizonDays": 1}), 200, "")
		// now + 1 day = Tuesday 06:00Z: nothing on Tuesday.
		if s := w.slotsOn(t, "2026-11-24"); s != "" {
			t.Fatalf("horizon 1, Tuesday: %s", s)
		}
		if s := w.slotsOn(t, "2026-11-23"); len(strings.Split(s, ",")) != 4 {
			t.Fatalf("horizon 1, Monday: %s", s)
		}
		job := w.job("ASIGNADO")
		expect(t, w.book(job.Id, "2026-11-24T13:00:00Z"), 409, agenda.MsgSlotTaken)
		expect(t, w.putRules(t, map[string]any{"horizonDays": 2}), 200, "")
		if s := w.slotsOn(t, "2026-11-24"); len(strings.Split(s, ",")) != 4 {
			t.Fatalf("horizon 2, Tuesday: %s", s)
		}
		expect(t, w.putRules(t, map[string]any{"horizonDays": 60}), 200, "")
	})
	t.Run("buffer", func(t *testing.T) {
		job := w.job("ASIGNADO")
		expect(t, w.book(job.Id, "2026-11-25T14:00:00Z"), 201, "")
		expect(t, w.putRules(t, map[string]any{"bufferMinutes": 60}), 200, "")
		// 13:00 ends at 14:00 with no room; 15:00 starts when 14:00 ends.
		if s := w.slotsOn(t, "2026-11-25"); s != "2026-11-25T16:00:00.000Z" {
			t.Fatalf("buffer 60: %s", s)
		}
		other := w.job("ASIGNADO")
		expect(t, w.book(other.Id, "2026-11-25T15:00:00Z"), 409, agenda.MsgSlotTaken)
		expect(t, w.book(other.Id, "2026-11-25T13:00:00Z"), 409, agenda.MsgSlotTaken)
		expect(t, w.putRules(t, map[string]any{"bufferMinutes": 0}), 200, "")
		if s := w.slotsOn(t, "2026-11-25"); s != "2026-11-25T13:00:00.000Z,2026-11-25T15:00:00.000Z,2026-11-25T16:00:00.000Z" {
			t.Fatalf("buffer 0: %s", s)
		}
	})
	t.Run("travel buffer between neighbourhoods", func(t *testing.T) {
		// An appointment in Chapinero on Thursday at 14:00Z; 60 minutes of
		// travel to anywhere else.
		chapinero := w.job("ASIGNADO")
		expect(t, w.book(chapinero.Id, "2026-11-26T14:00:00Z"), 201, "")
		expect(t, w.putRules(t, map[string]any{"travelBufferMinutes": 60}), 200, "")
		usaquen := w.job("ASIGNADO")
		usaquen.Set("neighborhood", "Usaquén")
		if err := w.k.App.Save(usaquen); err != nil {
			t.Fatal(err)
		}
		// The listing does not know the place: it keeps the travel gap.
		if s := w.slotsOn(t, "2026-11-26"); s != "2026-11-26T16:00:00.000Z" {
			t.Fatalf("travel listing: %s", s)
		}
		expect(t, w.book(usaquen.Id, "2026-11-26T15:00:00Z"), 409, agenda.MsgSlotTaken)
		// Same neighbourhood (case and accents folded): no travel.
		same := w.job("ASIGNADO")
		same.Set("neighborhood", "  CHAPINERO ")
		if err := w.k.App.Save(same); err != nil {
			t.Fatal(err)
		}
		// With ?job= the listing knows the place and lists what that job can book.
		forJob := func(jobID, cookie string) *testkit.Response {
			return w.k.Get("/api/camellos/"+w.camello.Id+"/slots?from=2026-11-26T00:00:00Z&to=2026-11-26T23:59:00Z&job="+jobID, cookie)
		}
		if r := forJob(same.Id, w.clientCookie); strings.Join(slotStarts(r), ",") != "2026-11-26T13:00:00.000Z,2026-11-26T15:00:00.000Z,2026-11-26T16:00:00.000Z" {
			t.Fatalf("listing for the Chapinero job: %s", r.Raw)
		}
		if r := forJob(usaquen.Id, w.clientCookie); strings.Join(slotStarts(r), ",") != "2026-11-26T16:00:00.000Z" {
			t.Fatalf("listing for the Usaquén job: %s", r.Raw)
		}
		expect(t, forJob(same.Id, w.strangerCookie), 404, jobs.MsgJobNotFound)
		expect(t, forJob("nosuchjob00001", w.clientCookie), 404, jobs.MsgJobNotFound)
		expectField(t, forJob("bad.id", w.clientCookie), "job", "Identificador")
		expect(t, w.book(same.Id, "2026-11-26T15:00:00Z"), 201, "")
		expect(t, w.book(usaquen.Id, "2026-11-26T16:00:00Z"), 409, agenda.MsgSlotTaken) // after the Chapinero 15:00 one
		expect(t, w.putRules(t, map[string]any{"travelBufferMinutes": 0}), 200, "")
		expect(t, w.book(usaquen.Id, "2026-11-26T16:00:00Z"), 201, "")
	})
}

// TestViewFollowsRules: the in-memory slots view answers what the
// database says with every rule on.
func TestViewFollowsRules(t *testing.T) {
	w := newWorld(t)
	k := w.k
	from, to := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	j1, j2 := w.job("ASIGNADO"), w.job("ASIGNADO")
	j2.Set("neighborhood", "Usaquén")
	if err := k.App.Save(j2); err != nil {
		t.Fatal(err)
	}
	expect(t, w.putRules(t, map[string]any{"minNoticeMinutes": 0}), 200, "")
	expect(t, w.book(j1.Id, "2026-11-24T14:00:00Z"), 201, "")
	expect(t, w.book(j2.Id, "2026-11-25T13:00:00Z"), 201, "")
	for _, rules := range []map[string]any{
		{"minNoticeMinutes": 0, "bufferMinutes": 0, "horizonDays": 60, "travelBufferMinutes": 0},
		{"minNoticeMinutes": 600, "bufferMinutes": 60, "horizonDays": 3, "travelBufferMinutes": 0},
		{"minNoticeMinutes": 120, "bufferMinutes": 30, "horizonDays": 60, "travelBufferMinutes": 120},
		{"minNoticeMinutes": 120, "bufferMinutes": 240, "horizonDays": 365, "travelBufferMinutes": 60},
	} {
		expect(t, w.putRules(t, rules), 200, "")
		r := k.Get("/api/camellos/"+w.camello.Id+"/slots?from=2026-11-23T00:00:00Z&to=2026-11-28T00:00:00Z", w.strangerCookie)
		expect(t, r, 200, "")
		truth, err := agenda.FreeSlotsOf(k.App, reload(t, k, w.camello), from, to, monday)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{}
		for _, s := range truth {
			want = append(want, s.Start.Format("2006-01-02T15:04:05.000Z"))
		}
		if got := strings.Join(slotStarts(r), ","); got != strings.Join(want, ",") {
			t.Fatalf("%v: view %s, database %s", rules, got, strings.Join(want, ","))
		}
	}
}

// TestJobCap: a job holds at most 12 future PROGRAMADA appointments.
func TestJobCap(t *testing.T) {
	w := newWorld(t)
	expect(t, w.putRules(t, map[string]any{"minNoticeMinutes": 0}), 200, "")
	job := w.job("ASIGNADO")
	starts := []string{}
	for d := 23; d <= 27; d++ {
		for h := 13; h <= 16; h++ {
			starts = append(starts, time.Date(2026, 11, d, h, 0, 0, 0, time.UTC).Format(time.RFC3339))
		}
	}
	var ids []string
	for i := 0; i < agenda.MaxFutureAppointments; i++ {
		r := w.book(job.Id, starts[i])
		expect(t, r, 201, "")
		ids = append(ids, r.Str("appointment.id"))
	}
	expect(t, w.book(job.Id, starts[12]), 409, agenda.MsgTooMany)
	// Cancelling one makes room again; another job is not affected.
	expect(t, w.k.Post("/api/appointments/"+ids[0]+"/cancel", w.clientCookie, nil), 200, "")
	expect(t, w.book(job.Id, starts[12]), 201, "")
	expect(t, w.book(job.Id, starts[13]), 409, agenda.MsgTooMany)
	expect(t, w.book(w.job("ASIGNADO").Id, starts[13]), 201, "")
	if n := w.k.Count("appointments", "job = {:j} AND status = 'PROGRAMADA'", map[string]any{"j": job.Id}); n != 12 {
		t.Fatalf("%d PROGRAMADA", n)
	}
}

func recordOf(t *testing.T, k *testkit.Kit, id string) *core.Record {
	t.Helper()
	rec, err := k.App.FindRecordById("appointments", id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
