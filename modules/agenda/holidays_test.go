package agenda_test

import (
	"strings"
	"testing"

	"camellos/modules/agenda"
)

// Festivos around the tests' clock (Monday 2026-11-23): 8 December
// (Tuesday, Inmaculada Concepción), 25 December and 1 January (Fridays).
// Bogotá is UTC−5 all year: Tuesday 8 December runs from 05:00Z on the 8th
// to 05:00Z on the 9th, so the UTC date alone would be wrong on both sides.

// nightWeek is availability around midnight: Monday and Tuesday 22:00–24:00,
// Tuesday and Wednesday 00:00–02:00, Friday 08:00–10:00 (Bogotá).
func nightWeek() []any {
	rng := func(d int, s, e string) map[string]any { return map[string]any{"weekday": d, "start": s, "end": e} }
	return []any{rng(1, "22:00", "24:00"), rng(2, "00:00", "02:00"), rng(2, "22:00", "24:00"), rng(3, "00:00", "02:00"),
		rng(5, "08:00", "10:00")}
}

// holidayWorld is newWorld with nightWeek, working festivos or not.
func holidayWorld(t *testing.T, works bool) *world {
	t.Helper()
	w := newWorld(t)
	expect(t, w.k.Put("/api/agenda/availability", w.camCookie, map[string]any{"weekly": nightWeek(), "worksHolidays": works}), 200, "")
	return w
}

func TestHolidaySlots(t *testing.T) {
	for _, works := range []bool{false, true} {
		w := holidayWorld(t, works)
		path := "/api/camellos/" + w.camello.Id + "/slots?from=2026-12-08T00:00:00Z&to=2026-12-09T12:00:00Z"
		want := "2026-12-08T03:00:00.000Z,2026-12-08T04:00:00.000Z,2026-12-09T05:00:00.000Z,2026-12-09T06:00:00.000Z"
		if works {
			want = "2026-12-08T03:00:00.000Z,2026-12-08T04:00:00.000Z,2026-12-08T05:00:00.000Z,2026-12-08T06:00:00.000Z," +
				"2026-12-09T03:00:00.000Z,2026-12-09T04:00:00.000Z,2026-12-09T05:00:00.000Z,2026-12-09T06:00:00.000Z"
		}
		// Twice: the second answer comes from the kept answers.
		for round := 0; round < 2; round++ {
			r := w.k.Get(path, w.clientCookie)
			expect(t, r, 200, "")
			if got := strings.Join(slotStarts(r), ","); got != want {
				t.Fatalf("works=%v round %d:\n got %s\nwant %s", works, round, got, want)
			}
			hs, _ := r.Get("holidays").([]any)
			if len(hs) != 1 || r.Str("holidays.0.date") != "2026-12-08" || r.Str("holidays.0.name") != "Día de la Inmaculada Concepción" ||
				r.Str("holidays.0.label") != "Martes festivo — Día de la Inmaculada Concepción" || r.Get("holidays.0.closed") != !works {
				t.Fatalf("works=%v holidays: %s", works, r.Raw)
			}
		}
		// The listing for a job (read from the database) agrees.
		job := w.job("ASIGNADO")
		r := w.k.Get(path+"&job="+job.Id, w.clientCookie)
		if got := strings.Join(slotStarts(r), ","); got != want || r.Get("holidays.0.closed") != !works {
			t.Fatalf("works=%v for a job: %s", works, r.Raw)
		}
	}
	// A window that ends at the holiday's first instant (05:00Z) does not
	// name it; one that starts at its last nanosecond does.
	w := holidayWorld(t, false)
	for _, c := range []struct {
		window string
		named  bool
	}{
		{"from=2026-12-07T12:00:00Z&to=2026-12-08T05:00:00Z", false},
		{"from=2026-12-07T12:00:00Z&to=2026-12-08T05:00:01Z", true},
		{"from=2026-12-09T04:59:59Z&to=2026-12-09T12:00:00Z", true},
		{"from=2026-12-09T05:00:00Z&to=2026-12-09T12:00:00Z", false},
	} {
		r := w.k.Get("/api/camellos/"+w.camello.Id+"/slots?"+c.window, w.clientCookie)
		hs, _ := r.Get("holidays").([]any)
		if r.Status != 200 || (len(hs) == 1) != c.named {
			t.Errorf("%s: %s", c.window, r.Raw)
		}
	}
}

func TestHolidayBooking(t *testing.T) {
	cases := []struct {
		name  string
		start string
		off   int // status when the camello does not work festivos
	}{
		{"Monday 22:00, the eve", "2026-12-08T03:00:00Z", 201},
		{"Monday 23:00, ends at the holiday's midnight", "2026-12-08T04:00:00Z", 201},
		{"Tuesday 00:00, the holiday's first hour", "2026-12-08T05:00:00Z", 409},
		{"Tuesday 01:00", "2026-12-08T06:00:00Z", 409},
		{"Tuesday 23:00, the holiday's last hour (9 December in UTC)", "2026-12-09T04:00:00Z", 409},
		{"Wednesday 00:00, just after", "2026-12-09T05:00:00Z", 201},
		{"Friday 25 December 08:00, Navidad", "2026-12-25T13:00:00Z", 409},
		{"Friday 18 December 08:00, an ordinary Friday", "2026-12-18T13:00:00Z", 201},
	}
	for _, works := range []bool{false, true} {
		w := holidayWorld(t, works)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				want := c.off
				if works {
					want = 201
				}
				r := w.book(w.job("ASIGNADO").Id, c.start)
				if want == 201 {
					expect(t, r, 201, "")
					return
				}
				expect(t, r, 409, agenda.MsgHolidayClosed)
				if r.Str("issues.conflicts.0.start") != c.start[:19]+".000Z" || r.Str("issues.conflicts.0.name") == "" ||
					!strings.Contains(r.Str("detail"), "es festivo: "+r.Str("issues.conflicts.0.name")) {
					t.Fatalf("refusal: %s", r.Raw)
				}
			})
		}
		n := w.k.Count("appointments", "")
		if want := map[bool]int{false: 4, true: len(cases)}[works]; n != want {
			t.Fatalf("works=%v: %d appointments, want %d", works, n, want)
		}
	}
	w := holidayWorld(t, false)
	r := w.book(w.job("ASIGNADO").Id, "2026-12-08T05:00:00Z")
	if r.Str("detail") != "El martes 08/12/2026 es festivo: Día de la Inmaculada Concepción. Elige otro día." {
		t.Fatalf("detail: %s", r.Raw)
	}
}

func TestHolidaySeries(t *testing.T) {
	series := func(start, every string, count int) map[string]any {
		return map[string]any{"start": start, "repeat": map[string]any{"every": every, "count": count}}
	}
	cases := []struct {
		name    string
		body    map[string]any
		works   bool
		status  int
		msg     string
		starts  string // booked
		skipped string // skippedHolidays (start dates)
	}{
		{"weekly Tuesdays skip 8 December", series("2026-12-01T05:00:00Z", "WEEK", 3), false, 201, "",
			"2026-12-01T05:00:00.000Z,2026-12-15T05:00:00.000Z", "2026-12-08"},
		{"weekly Tuesdays, camello works festivos", series("2026-12-01T05:00:00Z", "WEEK", 3), true, 201, "",
			"2026-12-01T05:00:00.000Z,2026-12-08T05:00:00.000Z,2026-12-15T05:00:00.000Z", ""},
		{"Monday 23:00 is the eve, never skipped", series("2026-11-24T04:00:00Z", "WEEK", 3), false, 201, "",
			"2026-11-24T04:00:00.000Z,2026-12-01T04:00:00.000Z,2026-12-08T04:00:00.000Z", ""},
		{"Tuesday 23:00 (UTC Wednesday) is skipped", series("2026-12-02T04:00:00Z", "WEEK", 2), false, 201, "",
			"2026-12-02T04:00:00.000Z", "2026-12-08"},
		{"Navidad and Año Nuevo: every date a festivo", series("2026-12-25T13:00:00Z", "WEEK", 2), false, 409,
			agenda.MsgSeriesAllHolidays, "", "2026-12-25,2027-01-01"},
		{"Navidad and Año Nuevo, camello works festivos", series("2026-12-25T13:00:00Z", "WEEK", 2), true, 201, "",
			"2026-12-25T13:00:00.000Z,2027-01-01T13:00:00.000Z", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := holidayWorld(t, c.works)
			r := w.k.Post("/api/jobs/"+w.job("ASIGNADO").Id+"/appointments", w.clientCookie, c.body)
			expect(t, r, c.status, c.msg)
			if got := strings.Join(seriesStarts(t, r), ","); got != c.starts {
				t.Fatalf("booked %s, want %s", got, c.starts)
			}
			path := "skippedHolidays"
			if c.status == 409 {
				path = "issues.conflicts"
			}
			list, ok := r.Get(path).([]any)
			if !ok {
				t.Fatalf("%s absent: %s", path, r.Raw)
			}
			dates := []string{}
			for _, x := range list {
				m := x.(map[string]any)
				if m["name"] == "" || m["label"] == "" || m["start"] == "" {
					t.Fatalf("skipped entry: %v", m)
				}
				dates = append(dates, m["date"].(string))
			}
			if got := strings.Join(dates, ","); got != c.skipped {
				t.Fatalf("skipped %s, want %s: %s", got, c.skipped, r.Raw)
			}
			if n := w.k.Count("appointments", ""); n != len(seriesStarts(t, r)) {
				t.Fatalf("%d appointments stored", n)
			}
		})
	}
}

func TestHolidayReschedule(t *testing.T) {
	w := holidayWorld(t, false)
	r := w.book(w.job("ASIGNADO").Id, "2026-12-01T05:00:00Z")
	expect(t, r, 201, "")
	id := r.Str("appointment.id")
	for _, c := range []struct {
		start  string
		status int
		msg    string
	}{
		{"2026-12-09T04:00:00Z", 409, agenda.MsgHolidayClosed}, // Tuesday 8th 23:00 in Bogotá
		{"2026-12-08T05:00:00Z", 409, agenda.MsgHolidayClosed}, // Tuesday 8th 00:00
		{"2026-12-08T04:00:00Z", 200, ""},                      // Monday 7th 23:00
	} {
		for _, cookie := range []string{w.clientCookie, w.camCookie} {
			r := w.k.Post("/api/appointments/"+id+"/reschedule", cookie, map[string]any{"start": c.start})
			expect(t, r, c.status, c.msg)
			if c.status == 200 {
				break
			}
		}
	}
}

func TestWorksHolidaysSetting(t *testing.T) {
	w := newWorld(t)
	k := w.k
	path := "/api/agenda/availability"
	weekly := nightWeek()

	t.Run("default, bad input, absent keeps", func(t *testing.T) {
		// A camello that never saved availability does not work festivos.
		_, _, fresh := k.CreateCamello()
		if r := k.Get(path, fresh); r.Get("availability.worksHolidays") != false {
			t.Fatalf("default: %s", r.Raw)
		}
		expect(t, k.Put(path, fresh, map[string]any{"weekly": weekly}), 200, "")
		if r := k.Get(path, fresh); r.Get("availability.worksHolidays") != false {
			t.Fatalf("saved without it: %s", r.Raw)
		}
		for _, bad := range []any{"sí", 1, map[string]any{}, []any{true}} {
			expectField(t, k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "worksHolidays": bad}), "worksHolidays", "")
		}
		for _, c := range []struct {
			body map[string]any
			want bool
		}{
			{map[string]any{"weekly": weekly, "worksHolidays": false}, false},
			{map[string]any{"weekly": weekly}, false},
			{map[string]any{"weekly": weekly, "worksHolidays": true}, true},
			{map[string]any{"weekly": weekly, "worksHolidays": nil}, true}, // null is absent
			{map[string]any{"weekly": weekly}, true},
		} {
			r := k.Put(path, w.camCookie, c.body)
			expect(t, r, 200, "")
			if r.Get("availability.worksHolidays") != c.want || k.Get(path, w.camCookie).Get("availability.worksHolidays") != c.want {
				t.Fatalf("%v: %s", c.body, r.Raw)
			}
		}
		// Only camellos have an agenda.
		expect(t, k.Put(path, w.clientCookie, map[string]any{"weekly": weekly, "worksHolidays": true}), 403, agenda.MsgOnlyCamellos)
		expect(t, k.Put(path, "", map[string]any{"weekly": weekly, "worksHolidays": true}), 401, "")
	})

	t.Run("stopping with appointments on festivos", func(t *testing.T) {
		expect(t, k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "worksHolidays": true}), 200, "")
		onHoliday := w.book(w.job("ASIGNADO").Id, "2026-12-09T04:00:00Z") // Tuesday 8th 23:00 in Bogotá
		expect(t, onHoliday, 201, "")
		eve := w.book(w.job("ASIGNADO").Id, "2026-12-08T04:00:00Z") // Monday 7th 23:00
		expect(t, eve, 201, "")
		r := k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "worksHolidays": false})
		expect(t, r, 409, agenda.MsgHolidayConflicts)
		conflicts, _ := r.Get("issues.conflicts").([]any)
		if len(conflicts) != 1 || r.Str("issues.conflicts.0.appointmentId") != onHoliday.Str("appointment.id") ||
			r.Str("issues.conflicts.0.holiday") != "Día de la Inmaculada Concepción" || r.Str("issues.conflicts.0.date") != "2026-12-08" {
			t.Fatalf("conflicts: %s", r.Raw)
		}
		if k.Get(path, w.camCookie).Get("availability.worksHolidays") != true {
			t.Fatal("a refused PUT changed the setting")
		}
		// A blocked date among them: the blocked-dates message.
		r = k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "worksHolidays": false, "blockedDates": []any{"2026-12-07"}})
		expect(t, r, 409, agenda.MsgBlockedConflicts)
		if c, _ := r.Get("issues.conflicts").([]any); len(c) != 2 || r.Get("issues.conflicts.0.holiday") != nil {
			t.Fatalf("mixed conflicts: %s", r.Raw)
		}
		r = k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "worksHolidays": false, "cancelConflicts": true})
		expect(t, r, 200, "")
		if c, _ := r.Get("cancelled").([]any); len(c) != 1 || c[0] != onHoliday.Str("appointment.id") {
			t.Fatalf("cancelled: %s", r.Raw)
		}
		if n := k.Count("notifications", "user = {:u} AND body LIKE '%ya no trabaja en festivos%Inmaculada%'",
			map[string]any{"u": w.client.Id}); n != 1 {
			t.Fatalf("client told %d times", n)
		}
		if n := k.Count("appointments", "status = 'PROGRAMADA'"); n != 1 {
			t.Fatalf("%d still scheduled, want the eve's", n)
		}
	})

	t.Run("an old appointment on a festivo never blocks another change", func(t *testing.T) {
		expect(t, k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "worksHolidays": true}), 200, "")
		expect(t, w.book(w.job("ASIGNADO").Id, "2026-12-08T05:00:00Z"), 201, "")
		// Turned off around the route (the dashboard): the appointment stays.
		rec, err := k.App.FindFirstRecordByData("availability", "camello", w.camello.Id)
		if err != nil {
			t.Fatal(err)
		}
		rec.Set("worksHolidays", false)
		if err := k.App.Save(rec); err != nil {
			t.Fatal(err)
		}
		expect(t, k.Put(path, w.camCookie, map[string]any{"weekly": weekly, "minNoticeMinutes": 60}), 200, "")
		if n := k.Count("appointments", "status = 'PROGRAMADA' AND start LIKE '2026-12-08 05:%'"); n != 1 {
			t.Fatalf("the old appointment: %d", n)
		}
	})
}

// The appointments list names the festivo of each appointment, by its date
// in the camello's zone.
func TestAppointmentsNameHolidays(t *testing.T) {
	w := holidayWorld(t, true)
	for _, start := range []string{"2026-12-08T04:00:00Z", "2026-12-08T05:00:00Z", "2026-12-09T04:00:00Z", "2026-12-09T05:00:00Z"} {
		expect(t, w.book(w.job("ASIGNADO").Id, start), 201, "")
	}
	for _, cookie := range []string{w.clientCookie, w.camCookie} {
		r := w.k.Get("/api/agenda/appointments", cookie)
		expect(t, r, 200, "")
		got := []string{}
		for i := 0; i < 4; i++ {
			label := "-"
			if h, ok := r.Get("appointments." + string(rune('0'+i)) + ".holiday").(map[string]any); ok {
				label = h["label"].(string)
			} else if _, present := r.JSON["appointments"].([]any)[i].(map[string]any)["holiday"]; !present {
				t.Fatalf("holiday absent: %s", r.Raw)
			}
			got = append(got, label)
		}
		want := "-|Martes festivo — Día de la Inmaculada Concepción|Martes festivo — Día de la Inmaculada Concepción|-"
		if strings.Join(got, "|") != want {
			t.Fatalf("holidays: %s", strings.Join(got, "|"))
		}
	}
}
