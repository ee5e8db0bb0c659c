package camellos

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"camellos/internal/geo"
	"camellos/internal/jsonenc/jsonenctest"
	"camellos/internal/timefmt"

	"github.com/pocketbase/pocketbase/tools/list"
)

// randomText is a text of every kind of character JSON escapes or not.
var randomText = jsonenctest.Text

// The listing's appenders write the bytes encoding/json writes: strings
// (every escape), ratings (0, fractions, the exponent forms, NaN refused
// as it refuses it), stored trades (the simple form and every other one),
// stored dates (PocketBase's form, impossible dates, other forms), and a
// whole camello as json.Marshal(publicJSON) writes it.
func TestRenderersWriteWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	// distances: every tenth up to 10 km and its neighbours, whole km
	// past it, the halves that round either way, and any distance
	kms := []float64{0, 9.95, 9.949999999, 10, 10.5, 99.5, 1e6, 2e7}
	for n := 0; n <= 1200; n++ {
		d := float64(n) / 10
		kms = append(kms, d, math.Nextafter(d, 0), math.Nextafter(d, 1e9), d+0.05)
	}
	for i := 0; i < 20000; i++ {
		kms = append(kms, rng.Float64()*200)
	}
	for _, km := range kms {
		if got, want := appendKm(nil, km), strconv.AppendFloat(nil, geo.RoundKm(km), 'f', -1, 64); !bytes.Equal(got, want) {
			t.Fatalf("distance %v: %s, strconv %s", km, got, want)
		}
	}
	for i := 0; i < 20000; i++ {
		s := randomText(rng)
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("string %q: %s, encoding/json %s", s, got, want)
		}
	}
	for _, avg := range []float64{0, math.Copysign(0, -1), 1, 4.35, 2.0 / 3, 5, 1e-6, 9e-7, 1e20, 1e21, 123456789.125, -3.5} {
		want, _ := json.Marshal(ratingJSON{Average: avg, Count: 7})
		got, err := appendRating(nil, avg, 7)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("rating %v: %s (%v), encoding/json %s", avg, got, err, want)
		}
	}
	if _, err := appendRating(nil, math.NaN(), 1); err == nil {
		t.Fatal("a NaN rating rendered")
	}
	for _, raw := range []string{`[]`, `["plomería"]`, `["a","b"]`, `["a", "b"]`, `["a\"b"]`, `["<x>&"]`, `[1]`, `["a",]`, `[,"a"]`,
		`["a""b"]`, `nada`, ``, `["\u00e9"]`, `null`, `["a"`, `["a\nb"]`, "[\"\xff\"]", `["","a",""]`, `["a","a"]`} {
		want, _ := json.Marshal(tradesOf(raw))
		got, err := appendTrades(nil, raw)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("trades %q: %s (%v), encoding/json %s", raw, got, err, want)
		}
	}
	for _, d := range []string{"2026-11-27 10:00:00.000Z", "2024-02-29 23:59:59.999Z", "2025-02-29 10:00:00.000Z", "2026-13-01 10:00:00.000Z",
		"2026-04-31 10:00:00.000Z", "2026-11-27 24:00:00.000Z", "2026-11-27 10:60:00.000Z", "2026-11-27 10:00:60.000Z", "2026-11-00 10:00:00.000Z",
		"1900-02-29 10:00:00.000Z", "2000-02-29 10:00:00.000Z", "0001-01-01 00:00:00.000Z", "", "2026-11-27T10:00:00.000Z",
		"2026-11-27 10:00:00Z", "2026-11-27 10:00:00.000", "2026-11-27 1a:00:00.000Z", "2026-11-27"} {
		want, _ := json.Marshal(timefmt.ISOOfStored(d))
		if got := appendISOOfStored(nil, d, true); !bytes.Equal(got, want) {
			t.Fatalf("date %q: %s, timefmt %s", d, got, want)
		}
	}
	// Whole camellos, against json.Marshal of the object the listing
	// answers, its services as ToUniqueStringSlice reads them.
	var services []*serviceRef
	for _, id := range []string{"svc000000000001", "svc000000000002", "svc000000000003"} {
		s := &serviceRef{ServiceSummary: ServiceSummary{ID: id, Name: "Servicio <" + id + ">", Slug: "s-" + id}}
		s.json, _ = json.Marshal(s.ServiceSummary)
		services = append(services, s)
	}
	l := newListing(services, 0)
	svcRaws := []string{`["svc000000000001"]`, `["svc000000000002","svc000000000001","svc000000000002"]`, `[]`, ``, `["otro","svc000000000003"]`,
		`["svc000000000003", "svc000000000001"]`, `svc000000000002`, `["","svc000000000001"]`}
	for i := 0; i < 2000; i++ {
		r := camelloRow{ID: "cam" + strings.Repeat("x", i%3), Name: randomText(rng), Trades: []string{`["plomería"]`, `[]`, `["a", "<b>"]`}[i%3],
			Status: StatusActive, Services: svcRaws[i%len(svcRaws)], Created: "2026-11-27 10:00:00.000Z", Updated: []string{"2026-02-30 10:00:00.000Z", "2026-11-27 11:00:00.123Z"}[i%2],
			City: randomText(rng), CityKey: "c", Neighborhood: randomText(rng), Photo: []string{"", "a<b>.jpg", "foto.png"}[i%3],
			Description: randomText(rng), RatingAvg: float64(rng.Intn(51)) / 10, RatingCount: float64(rng.Intn(300)), Premium: i%2 == 0, Verified: i%3 == 0}
		if i%50 == 0 {
			r.ID = "cam<&>" // an id that needs escaping
		}
		idx, err := l.addRow(&r)
		if err != nil {
			t.Fatal(err)
		}
		want := publicJSON{City: r.City, CreatedAt: timefmt.ISOOfStored(r.Created), Description: r.Description, ID: r.ID, Name: r.Name,
			Neighborhood: r.Neighborhood, Premium: r.Premium, Rating: ratingJSON{Average: r.RatingAvg, Count: int(r.RatingCount)},
			Services: []ServiceSummary{}, Status: StatusActive, Trades: tradesOf(r.Trades), UpdatedAt: timefmt.ISOOfStored(r.Updated), Verified: r.Verified}
		if r.Photo != "" {
			want.Photo = "/uploads/camellos/" + r.Photo
		}
		for _, id := range list.ToUniqueStringSlice(r.Services) {
			for _, s := range services {
				if s.ID == id {
					want.Services = append(want.Services, s.ServiceSummary)
				}
			}
		}
		raw, _ := json.Marshal(want)
		if got := l.rendered(idx); !bytes.Equal(got, raw) {
			t.Fatalf("camello %d:\n%s\nencoding/json:\n%s", i, got, raw)
		}
	}
}

// publicJSON is the public Camello object of JSON(app, recs, false), its
// fields in the order encoding/json writes that map's keys (sorted):
// appendJSON writes the same bytes from the values rendered once.
type publicJSON struct {
	City         string           `json:"city"`
	CreatedAt    string           `json:"createdAt"`
	Description  string           `json:"description"`
	ID           string           `json:"id"`
	Name         string           `json:"name"`
	Neighborhood string           `json:"neighborhood"`
	Photo        string           `json:"photo"`
	Premium      bool             `json:"premium"`
	Rating       ratingJSON       `json:"rating"`
	Services     []ServiceSummary `json:"services"`
	Status       string           `json:"status"`
	Trades       []string         `json:"trades"`
	UpdatedAt    string           `json:"updatedAt"`
	Verified     bool             `json:"verified"`
}
