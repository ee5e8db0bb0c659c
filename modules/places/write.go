package places

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"camellos/internal/cities"
	"camellos/internal/httpapi"
	"camellos/internal/text"
	"camellos/internal/writer"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/security"
	"github.com/pocketbase/pocketbase/tools/types"
)

// MsgPlaceNotFound is the 404 of an unknown place.
const MsgPlaceNotFound = "Lugar no encontrado"

// Input is a place written by an admin; nil leaves a field as it is (an
// update), every field but Department is required to create.
type Input struct {
	Name       *string  `json:"name"`
	Kind       *string  `json:"kind"`
	City       *string  `json:"city"`
	Department *string  `json:"department"`
	Lat        *float64 `json:"lat"`
	Lng        *float64 `json:"lng"`
	Source     *string  `json:"source"`
}

func (in *Input) apply(p *Place) {
	for field, v := range map[string]*string{FieldName: in.Name, FieldKind: in.Kind, FieldCity: in.City,
		FieldDepartment: in.Department, FieldSource: in.Source} {
		if v != nil {
			p.Set(field, strings.TrimSpace(*v))
		}
	}
	if in.Lat != nil {
		p.Set(FieldLat, *in.Lat)
	}
	if in.Lng != nil {
		p.Set(FieldLng, *in.Lng)
	}
}

// Create saves a new place in one write transaction.
func Create(app core.App, in Input) (*Place, error) {
	col, err := app.FindCachedCollectionByNameOrId(Collection)
	if err != nil {
		return nil, err
	}
	p := Wrap(core.NewRecord(col))
	in.apply(p)
	err = writer.Transaction(app, func(tx core.App) error { return tx.Save(p) })
	return p, err
}

// Update changes place id in one write transaction (404 when unknown).
func Update(app core.App, id string, in Input) (*Place, error) {
	var p *Place
	err := writer.Transaction(app, func(tx core.App) error {
		rec, err := tx.FindRecordById(Collection, id)
		if err != nil {
			return httpapi.NotFound(MsgPlaceNotFound)
		}
		p = Wrap(rec)
		in.apply(p)
		return tx.Save(p)
	})
	return p, err
}

// Delete removes place id (404 when unknown). A camello whose base point
// was picked from it keeps its point and its barrio's name (they are
// copied at the pick).
func Delete(app core.App, id string) error {
	return writer.Transaction(app, func(tx core.App) error {
		rec, err := tx.FindRecordById(Collection, id)
		if err != nil {
			return httpapi.NotFound(MsgPlaceNotFound)
		}
		return tx.Delete(rec)
	})
}

//go:embed places.csv
var seedCSV []byte

// mainCitiesCSV are the comunas, localidades and some barrios of Cali,
// Barranquilla, Cartagena and Bucaramanga, placed by hand (no public data
// set carries them; docs/gazetteer.md), seeded by migration 1764400200.
//
//go:embed main_cities.csv
var mainCitiesCSV []byte

// SeedRows parses the embedded seed (places.csv: name, kind, city,
// department, lat, lng, source).
func SeedRows() ([]Info, error) {
	return parseSeed(seedCSV)
}

// MainCitiesRows parses the second seed, main_cities.csv (as SeedRows).
func MainCitiesRows() ([]Info, error) {
	return parseSeed(mainCitiesCSV)
}

// parseSeed parses a seed file: name, kind, city, department, lat, lng,
// source.
func parseSeed(raw []byte) ([]Info, error) {
	r := csv.NewReader(bytes.NewReader(raw))
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	if strings.Join(head, ",") != "name,kind,city,department,lat,lng,source" {
		return nil, fmt.Errorf("places.csv: unexpected header %v", head)
	}
	var out []Info
	for {
		row, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		lat, err1 := strconv.ParseFloat(row[4], 64)
		lng, err2 := strconv.ParseFloat(row[5], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("places.csv: bad point in %v", row)
		}
		out = append(out, Info{Name: row[0], Kind: row[1], City: cities.Canonical(row[2]), Department: row[3],
			Lat: lat, Lng: lng, Source: row[6], NameKey: text.Fold(row[0])})
	}
}

// Seed inserts the embedded seed with app (the migration's transaction):
// one prepared INSERT per row, without the record hooks (the rows are
// already in their normal form) — 1,200 rows in milliseconds, so every
// test boot stays fast.
func Seed(app core.App) error {
	rows, err := SeedRows()
	if err != nil {
		return err
	}
	return insertSeed(app, rows)
}

// SeedMainCities inserts the rows of main_cities.csv that the gazetteer
// lacks (no place of that name in that city: an admin may have added one).
func SeedMainCities(app core.App) error {
	rows, err := MainCitiesRows()
	if err != nil {
		return err
	}
	var missing []Info
	for _, p := range rows {
		var n int
		err := app.DB().Select("COUNT(*)").From(Collection).
			Where(dbx.HashExp{FieldNameKey: p.NameKey, FieldCity: p.City}).Row(&n)
		if err != nil {
			return err
		}
		if n == 0 {
			missing = append(missing, p)
		}
	}
	return insertSeed(app, missing)
}

// UnseedMainCities deletes the rows SeedMainCities inserted (as they were
// seeded: an admin's edit of one keeps it).
func UnseedMainCities(app core.App) error {
	rows, err := MainCitiesRows()
	if err != nil {
		return err
	}
	for _, p := range rows {
		_, err := app.DB().Delete(Collection, dbx.HashExp{FieldNameKey: p.NameKey, FieldCity: p.City,
			FieldSource: p.Source, FieldLat: p.Lat, FieldLng: p.Lng}).Execute()
		if err != nil {
			return err
		}
	}
	return nil
}

// insertSeed inserts seed rows.
func insertSeed(app core.App, rows []Info) error {
	now := types.NowDateTime().String()
	for _, p := range rows {
		_, err := app.DB().Insert(Collection, dbx.Params{
			"id":      security.RandomStringWithAlphabet(15, "abcdefghijklmnopqrstuvwxyz0123456789"),
			FieldName: p.Name, FieldKind: p.Kind, FieldCity: p.City, FieldDepartment: p.Department,
			FieldLat: p.Lat, FieldLng: p.Lng, FieldSource: p.Source, FieldNameKey: p.NameKey,
			"created": now, "updated": now,
		}).Execute()
		if err != nil {
			return err
		}
	}
	return nil
}
