package jobs

import (
	"encoding/json"
	"fmt"
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
// reviewed or not; read back after other entries were added.
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
	st := newStore()
	var idx []int32
	for i := range rows {
		idx = append(idx, st.add(&rows[i]))
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
		if got := st.appendJSON(nil, idx[i], refJSON); string(got) != string(raw) {
			t.Errorf("row %d:\n got %s\nwant %s", i, got, raw)
		}
		created, id := st.order(idx[i])
		if string(created) != r.Created || string(id) != r.ID {
			t.Errorf("row %d: order key %q %q", i, created, id)
		}
		_, n := st.decode(idx[i])
		if end := st.entries[idx[i]].text + n; int(idx[i])+1 < len(st.entries) && end != st.entries[idx[i]+1].text {
			t.Errorf("row %d: texts end at %d, the next entry's start at %d", i, end, st.entries[idx[i]+1].text)
		}
	}
	if len(st.strs) != 8 { // bogota, "Bogotá", "WEB", x, odd, "<ADMIN>", "", `""`
		t.Errorf("interned %d texts: %q", len(st.strs), st.strs)
	}
}

// TestBoardStoreViewsNeverChange: successive patches (each derived from
// the one before, as readmodel.Snapshot.Update runs them: one at a time,
// from the newest) do not write into the entries, texts or interned
// cities of the snapshots before them.
func TestBoardStoreViewsNeverChange(t *testing.T) {
	row := func(i int, city string) *boardRow {
		return &boardRow{ID: fmt.Sprintf("job%012d", i), Created: "2026-01-01 10:00:00.000Z", Title: fmt.Sprint("Trabajo ", i), City: city, CityKey: city}
	}
	base := newStore()
	for i := range 40 {
		base.add(row(i, "bogota"))
	}
	base.built()
	render := func(st *store) (out []string) {
		for i := range st.entries {
			out = append(out, string(st.appendJSON(nil, int32(i), []byte("{}"))))
		}
		return out
	}
	before := render(base)
	a := base.derive()
	ja := a.add(row(100, "cali"))
	wantA := string(a.appendJSON(nil, ja, []byte("{}")))
	c := a.derive()
	jc := c.add(row(300, "medellin"))
	if jc != ja+1 {
		t.Fatalf("indexes %d %d", ja, jc)
	}
	if got := string(a.appendJSON(nil, ja, []byte("{}"))); got != wantA {
		t.Errorf("a's entry changed by c's patch:\n got %s\nwant %s", got, wantA)
	}
	if !strings.Contains(string(c.appendJSON(nil, jc, []byte("{}"))), "Trabajo 300") {
		t.Error("c's entry is not its own")
	}
	if got := render(base); strings.Join(got, "\n") != strings.Join(before, "\n") || len(base.strs) != 3 || len(base.strIdx) != 3 {
		t.Errorf("the base snapshot changed: %d interned", len(base.strs))
	}
	if _, leaked := a.strIdx["medellin"]; leaked || a.strs[a.entries[ja].key] != "cali" || c.strs[c.entries[jc].key] != "medellin" {
		t.Error("interned cities mixed up")
	}
}
