package hardening_test

import (
	"strings"
	"testing"
	"time"

	"camellos/modules/agenda"
	"camellos/modules/search"
)

var fuzzVocabulary = search.BuildVocabulary(search.Catalog{
	Categories: []search.Named{{ID: "hogar", Name: "Hogar"}, {ID: "belleza", Name: "Belleza y cuidado"}},
	Services: []search.Service{{ID: "svc1", Name: "Plomería", Category: "hogar"}, {ID: "svc2", Name: "Corte de cabello", Category: "belleza"},
		{ID: "svc3", Name: "Instalación eléctrica", Category: "hogar"}},
	Trades: []string{"plomería", "electricidad", "peluquería canina"},
	Places: []search.Place{{City: "Bogotá", Neighborhood: "Chapinero"}, {City: "Medellín"}, {City: "Pasto"}, {City: "Cali", Neighborhood: "San Fernando"}},
})

// FuzzInterpret: any query is interpreted without panicking, into an
// interpretation whose ids come from the catalog, whose time window is
// ordered and in UTC, and whose lists are never nil.
func FuzzInterpret(f *testing.F) {
	for _, s := range []string{"plomero urgente en Chapinero mañana en la tarde", "", "   ", "PELUQUERÍA CANINA en pasto el 31 de febrero",
		"electricista hoy a las 25:99", "corte de cabello el próximo lunes 15:30 en Bogotá", "ñ\u0301\u200b😀", "en en en de de",
		strings.Repeat("mañana ", 60), "del 30 de diciembre al 2 de enero"} {
		f.Add(s, int64(1795000000))
	}
	loc, _ := time.LoadLocation("America/Bogota")
	ids := map[string]bool{"svc1": true, "svc2": true, "svc3": true}
	f.Fuzz(func(t *testing.T, q string, unix int64) {
		if len(q) > 1200 {
			q = q[:1200]
		}
		now := time.Unix(unix%(1<<34), 0)
		it := search.Interpret(q, fuzzVocabulary, now, loc)
		if it.Query != q || it.ServiceIDs == nil || it.Trades == nil || it.Keywords == nil {
			t.Fatalf("malformed interpretation %+v", it)
		}
		for _, id := range it.ServiceIDs {
			if !ids[id] {
				t.Fatalf("service id %q is not in the catalog", id)
			}
		}
		if it.CategoryID != nil && *it.CategoryID != "hogar" && *it.CategoryID != "belleza" {
			t.Fatalf("category %q is not in the catalog", *it.CategoryID)
		}
		if it.When != nil {
			from, err1 := time.Parse(time.RFC3339, it.When.From)
			to, err2 := time.Parse(time.RFC3339, it.When.To)
			if err1 != nil || err2 != nil || !strings.HasSuffix(it.When.From, "Z") || !strings.HasSuffix(it.When.To, "Z") || to.Before(from) {
				t.Fatalf("bad window %+v for %q", it.When, q)
			}
		}
	})
}

// FuzzFreeSlots: whatever the weekly ranges, zone, window and bookings,
// free slots are 60 minutes, sorted, unique, inside the window, not in the
// past and never overlapping a booked interval.
func FuzzFreeSlots(f *testing.F) {
	f.Add("America/Bogota", uint8(1), uint16(480), uint16(720), int64(1795000000), uint16(72), int64(1795010000))
	f.Add("Europe/Madrid", uint8(0), uint16(0), uint16(1440), int64(1792112400), uint16(744), int64(1792112400))   // autumn DST change
	f.Add("America/New_York", uint8(0), uint16(60), uint16(240), int64(1773550800), uint16(48), int64(1773550800)) // spring DST change
	f.Add("Australia/Lord_Howe", uint8(6), uint16(90), uint16(150), int64(1791000000), uint16(200), int64(1791000000))
	f.Add("Nope/Zone", uint8(9), uint16(2000), uint16(10), int64(-1), uint16(0), int64(0))
	f.Fuzz(func(t *testing.T, zone string, weekday uint8, start, end uint16, fromUnix int64, hours uint16, busyUnix int64) {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			loc = time.UTC
		}
		from := time.Unix(fromUnix%(1<<34), 0).UTC()
		to := from.Add(time.Duration(hours%(31*24+1)) * time.Hour)
		busyStart := time.Unix(busyUnix%(1<<34), 0).UTC().Truncate(time.Minute)
		busy := []agenda.Interval{{Start: busyStart, End: busyStart.Add(time.Hour)}}
		q := agenda.SlotQuery{
			Location: loc,
			Weekly:   []agenda.Range{{Weekday: int(weekday % 8), Start: int(start % 1500), End: int(end % 1500)}, {Weekday: int(weekday+3) % 7, Start: 0, End: 1440}},
			Blocked:  map[string]bool{from.In(loc).AddDate(0, 0, 2).Format("2006-01-02"): true},
			Busy:     busy,
			From:     from, To: to, Now: from.Add(90 * time.Minute),
		}
		slots := agenda.FreeSlots(q)
		for i, s := range slots {
			if s.End.Sub(s.Start) != agenda.SlotLength || s.Start.Location() != time.UTC {
				t.Fatalf("slot %v is not 60 minutes in UTC", s)
			}
			if s.Start.Before(q.From) || s.End.After(q.To) || s.Start.Before(q.Now) {
				t.Fatalf("slot %v outside [%v, %v] or before %v", s, q.From, q.To, q.Now)
			}
			if s.Overlaps(busy[0]) {
				t.Fatalf("slot %v overlaps the booking %v", s, busy[0])
			}
			if i > 0 && !slots[i-1].Start.Before(s.Start) {
				t.Fatalf("slots not sorted/unique at %d: %v then %v", i, slots[i-1], s)
			}
			if q.Blocked[s.Start.In(loc).Format("2006-01-02")] {
				t.Fatalf("slot %v on a blocked date", s)
			}
		}
	})
}
