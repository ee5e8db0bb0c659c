package agenda_test

import (
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/modules/agenda"
	"camellos/modules/users"
)

func TestAvailability(t *testing.T) {
	k := testkit.New(t)
	_, camello, cookie := k.CreateCamello()
	_, clientCookie := k.UserWithSession(users.RoleClient)
	_, adminCookie := k.UserWithSession(users.RoleAdmin)
	_, orphanCookie := k.UserWithSession(users.RoleCamello) // CAMELLOS user without a profile
	const path = "/api/agenda/availability"
	rng := func(d int, s, e string) map[string]any { return map[string]any{"weekday": d, "start": s, "end": e} }

	t.Run("roles", func(t *testing.T) {
		expect(t, k.Get(path, ""), 401, "No autorizado")
		expect(t, k.Put(path, "", map[string]any{"weekly": []any{}}), 401, "No autorizado")
		expect(t, k.Get(path, clientCookie), 403, agenda.MsgOnlyCamellos)
		expect(t, k.Put(path, adminCookie, map[string]any{"weekly": []any{}}), 403, agenda.MsgOnlyCamellos)
		expect(t, k.Get(path, orphanCookie), 404, agenda.MsgNoProfile)
	})

	t.Run("default", func(t *testing.T) {
		r := k.Get(path, cookie)
		expect(t, r, 200, "")
		if r.Str("availability.timezone") != "America/Bogota" || r.Get("availability.updatedAt") != nil {
			t.Fatalf("default: %s", r.Raw)
		}
		if w, _ := r.Get("availability.weekly").([]any); w == nil || len(w) != 0 {
			t.Fatalf("weekly must be []: %s", r.Raw)
		}
		_, _, madCookie := k.CreateCamello(testkit.CamelloOpts{Timezone: "Europe/Madrid"})
		if got := k.Get(path, madCookie).Str("availability.timezone"); got != "Europe/Madrid" {
			t.Fatalf("camello zone default: %s", got)
		}
	})

	t.Run("invalid", func(t *testing.T) {
		cases := []struct {
			name, field, msg string
			body             map[string]any
		}{
			{"weekly missing", "weekly", "obligatorio", map[string]any{}},
			{"weekly not a list", "weekly", "lista", map[string]any{"weekly": "lunes"}},
			{"weekday 7", "weekly.0.weekday", "0 (domingo) a 6", map[string]any{"weekly": []any{rng(7, "08:00", "09:00")}}},
			{"weekday -1", "weekly.0.weekday", "0 (domingo) a 6", map[string]any{"weekly": []any{rng(-1, "08:00", "09:00")}}},
			{"weekday 1.5", "weekly.0.weekday", "entero", map[string]any{"weekly": []any{map[string]any{"weekday": 1.5, "start": "08:00", "end": "09:00"}}}},
			{"weekday text", "weekly.0.weekday", "entero", map[string]any{"weekly": []any{map[string]any{"weekday": "1", "start": "08:00", "end": "09:00"}}}},
			{"weekday missing", "weekly.0.weekday", "obligatorio", map[string]any{"weekly": []any{map[string]any{"start": "08:00", "end": "09:00"}}}},
			{"range not an object", "weekly.0", "objeto", map[string]any{"weekly": []any{nil}}},
			{"start 9:00", "weekly.0.start", "HH:MM", map[string]any{"weekly": []any{rng(1, "9:00", "10:00")}}},
			{"start 24:00", "weekly.0.start", "HH:MM", map[string]any{"weekly": []any{rng(1, "24:00", "24:00")}}},
			{"start 08:60", "weekly.0.start", "HH:MM", map[string]any{"weekly": []any{rng(1, "08:60", "10:00")}}},
			{"start number", "weekly.0.start", "texto", map[string]any{"weekly": []any{map[string]any{"weekday": 1, "start": 8, "end": "10:00"}}}},
			{"end 24:01", "weekly.0.end", "HH:MM", map[string]any{"weekly": []any{rng(1, "08:00", "24:01")}}},
			{"end 25:00", "weekly.0.end", "HH:MM", map[string]any{"weekly": []any{rng(1, "08:00", "25:00")}}},
			{"end equals start", "weekly.0.end", "posterior", map[string]any{"weekly": []any{rng(1, "08:00", "08:00")}}},
			{"crossing midnight", "weekly.0.end", "24:00", map[string]any{"weekly": []any{rng(1, "22:00", "02:00")}}},
			{"overlap", "weekly.2", "Se cruza", map[string]any{"weekly": []any{rng(1, "08:00", "12:00"), rng(2, "08:00", "12:00"), rng(1, "11:59", "13:00")}}},
			{"contained", "weekly.1", "Se cruza", map[string]any{"weekly": []any{rng(3, "08:00", "18:00"), rng(3, "09:00", "10:00")}}},
			{"bad zone", "timezone", "IANA", map[string]any{"timezone": "Marte/Olimpo", "weekly": []any{}}},
			{"Local zone", "timezone", "IANA", map[string]any{"timezone": "Local", "weekly": []any{}}},
			{"empty zone", "timezone", "IANA", map[string]any{"timezone": "", "weekly": []any{}}},
			{"bad date", "blockedDates.1", "AAAA-MM-DD", map[string]any{"weekly": []any{}, "blockedDates": []any{"2026-12-24", "2026-02-30"}}},
			{"date format", "blockedDates.0", "AAAA-MM-DD", map[string]any{"weekly": []any{}, "blockedDates": []any{"24/12/2026"}}},
			{"dates not strings", "blockedDates", "lista", map[string]any{"weekly": []any{}, "blockedDates": []any{5}}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectField(t, k.Put(path, cookie, c.body), c.field, c.msg)
			})
		}
		many := []any{}
		for i := 0; i < agenda.MaxRanges+1; i++ {
			many = append(many, rng(i%7, "00:00", "00:30"))
		}
		expectField(t, k.Put(path, cookie, map[string]any{"weekly": many}), "weekly", "Como máximo")
		if n := k.Count("availability", ""); n != 0 {
			t.Fatalf("invalid PUTs saved %d records", n)
		}
	})

	t.Run("save and read", func(t *testing.T) {
		body := map[string]any{
			"timezone": "Europe/Madrid",
			"weekly": []any{rng(5, "14:00", "24:00"), rng(1, "12:00", "14:00"), rng(1, "08:00", "12:00"),
				rng(0, "00:00", "01:00")},
			"blockedDates": []any{"2026-12-25", "2026-12-24", "2026-12-25"},
		}
		r := k.Put(path, cookie, body)
		expect(t, r, 200, "")
		want := `"blockedDates":["2026-12-24","2026-12-25"],"timezone":"Europe/Madrid",` +
			`"updatedAt":"` + r.Str("availability.updatedAt") + `","weekly":[{"weekday":0,"start":"00:00","end":"01:00"},` +
			`{"weekday":1,"start":"08:00","end":"12:00"},{"weekday":1,"start":"12:00","end":"14:00"},` +
			`{"weekday":5,"start":"14:00","end":"24:00"}]`
		if !strings.Contains(string(r.Raw), want) || r.Str("availability.updatedAt") == "" {
			t.Fatalf("saved: %s\nwant %s", r.Raw, want)
		}
		if got := k.Get(path, cookie); !strings.Contains(string(got.Raw), want) {
			t.Fatalf("read back: %s", got.Raw)
		}
		// Absent timezone and blockedDates keep their saved values.
		r = k.Put(path, cookie, map[string]any{"weekly": []any{rng(2, "09:00", "10:00")}})
		if r.Str("availability.timezone") != "Europe/Madrid" || r.Get("availability.blockedDates.1") != "2026-12-25" {
			t.Fatalf("kept values: %s", r.Raw)
		}
		r = k.Put(path, cookie, map[string]any{"weekly": []any{}, "blockedDates": []any{}, "timezone": "UTC"})
		expect(t, r, 200, "")
		if n := k.Count("availability", "camello = {:c}", map[string]any{"c": camello.Id}); n != 1 {
			t.Fatalf("%d availability records, want 1", n)
		}
	})

	t.Run("hook refuses invalid records", func(t *testing.T) {
		_, other, _ := k.CreateCamello()
		for name, fields := range map[string]map[string]any{
			"overlap":  {"timezone": "UTC", "weekly": []any{rng(1, "08:00", "12:00"), rng(1, "10:00", "13:00")}},
			"bad zone": {"timezone": "Nowhere/Land", "weekly": []any{}},
			"bad end":  {"timezone": "UTC", "weekly": []any{rng(1, "08:00", "07:00")}},
			"bad date": {"timezone": "UTC", "weekly": []any{}, "blockedDates": []any{"mañana"}},
			"not list": {"timezone": "UTC", "weekly": map[string]any{"a": 1}},
		} {
			col, _ := k.App.FindCollectionByNameOrId("availability")
			rec := newRecord(col, fields)
			rec.Set("camello", other.Id)
			if err := k.App.Save(rec); err == nil {
				t.Errorf("%s: saved", name)
			}
		}
	})
}
