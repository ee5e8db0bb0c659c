package jobs

import (
	"encoding/json"
	"strings"
	"testing"

	"camellos/internal/timefmt"
	"camellos/modules/catalog"
)

// markedJob is jobs.JSON's map of an open job without "address", its keys
// in the order encoding/json writes a map's: what the board rendered with
// json.Marshal per job before it was packed, kept here as the reference.
type markedJob struct {
	City         string             `json:"city"`
	Client       markedClient       `json:"client"`
	ClientID     string             `json:"clientId"`
	CreatedAt    string             `json:"createdAt"`
	Description  string             `json:"description"`
	ID           string             `json:"id"`
	Neighborhood string             `json:"neighborhood"`
	Price        *markedPrice       `json:"price"`
	Provider     any                `json:"provider"`
	Reviewed     bool               `json:"reviewed"`
	Service      catalog.ServiceRef `json:"service"`
	Source       string             `json:"source"`
	Status       string             `json:"status"`
	Title        string             `json:"title"`
	UpdatedAt    string             `json:"updatedAt"`
}

type markedClient struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type markedPrice struct {
	Amount   int    `json:"amount"`
	Currency string `json:"currency"`
}

// TestBoardEntryRendersAsMarshal: a packed entry renders the bytes
// json.Marshal writes for the job, for texts that need escaping (quotes,
// HTML, control characters, invalid UTF-8, U+2028), ids that need it,
// dates in and out of the stored layout, prices at and around 0, and
// reviewed or not; read back after other rows were packed with the same
// buffers.
func TestBoardEntryRendersAsMarshal(t *testing.T) {
	ref := catalog.ServiceRef{ID: "svc000000000001", Name: "Plomería <b>", CategoryName: "Hogar & \"más\""}
	refJSON, _ := json.Marshal(ref)
	odd := "Línea\u2028separada\tcon\x01control – y \xff inválido \\ fin <a&b>"
	rows := []boardRow{
		{ID: "job000000000001", Created: "2026-01-01 10:00:00.000Z", Updated: "2026-01-02 11:00:00.123Z", Title: "Arreglo", City: "Bogotá", CityKey: "bogota", Service: ref.ID, Client: "cli000000000001", ClientName: "Ana", Source: "WEB"},
		{ID: "job000000000002", Created: "2026-01-01 10:00:00Z", Updated: "2026-02-03T04:05:06.789Z", Title: odd, Description: odd, City: odd, CityKey: "x", Neighborhood: odd, Client: "c\"1", ClientName: odd, Source: "<ADMIN>", PriceAmount: 120000, Reviewed: true},
		{ID: "j\"<id>\u2028", Created: "", Updated: "", Title: "", PriceAmount: 0.9},
		{ID: "job000000000004", Created: "basura", Updated: "2026-13-45", PriceAmount: -5, Description: strings.Repeat("ñ", 3000)},
		{ID: "job000000000005", Created: "2026-01-01 10:00:00.000Z", Updated: "2026-01-01 10:00:00.000Z", PriceAmount: 1, City: "Bogotá", CityKey: "bogota", Source: "WEB"},
	}
	var pk packer
	var packed []boardJob
	for i := range rows {
		packed = append(packed, pk.pack(&rows[i]).job)
	}
	for i, r := range rows {
		want := markedJob{City: r.City, Client: markedClient{r.Client, r.ClientName}, ClientID: r.Client,
			CreatedAt: timefmt.ISOOfStored(r.Created), Description: r.Description, ID: r.ID, Neighborhood: r.Neighborhood,
			Reviewed: r.Reviewed, Service: ref, Source: r.Source, Status: StatusPending, Title: r.Title, UpdatedAt: timefmt.ISOOfStored(r.Updated)}
		if n := int(r.PriceAmount); n > 0 {
			want.Price = &markedPrice{n, Currency}
		}
		raw, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if got := packed[i].appendJSON(nil, refJSON); string(got) != string(raw) {
			t.Errorf("row %d:\n got %s\nwant %s", i, got, raw)
		}
		if created, id := packed[i].order(); created != r.Created || id != r.ID || packed[i].city() != r.CityKey {
			t.Errorf("row %d: order key %q %q, city %q", i, created, id, packed[i].city())
		}
	}
}
