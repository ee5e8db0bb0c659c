package search_test

import (
	"strings"
	"testing"
	"time"

	"camellos/internal/timefmt"
	"camellos/modules/search"
)

var bogota = func() *time.Location {
	loc, err := time.LoadLocation("America/Bogota")
	if err != nil {
		panic(err)
	}
	return loc
}()

// The fixed clock: Wednesday 18 November 2026, 10:00 in Bogotá (15:00Z).
var wednesday10 = time.Date(2026, 11, 18, 10, 0, 0, 0, bogota)

// local turns "2026-11-19 12:00" (Bogotá) into the UTC ISO the API answers.
func local(s string) string {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, bogota)
	if err != nil {
		panic(err)
	}
	return timefmt.ISO(t)
}

func testVocabulary() *search.Vocabulary {
	return search.BuildVocabulary(search.Catalog{
		Categories: []search.Named{{ID: "hogar", Name: "Hogar"}, {ID: "autos", Name: "Autos y motos"}, {ID: "limpieza", Name: "Limpieza"}},
		Services: []search.Service{
			{ID: "s1", Name: "Reparación de tuberías", Category: "hogar"},
			{ID: "s2", Name: "Instalación eléctrica", Category: "hogar"},
			{ID: "s3", Name: "Aseo de oficinas", Category: "limpieza"},
			{ID: "s4", Name: "Cambio de aceite", Category: "autos"},
			{ID: "s5", Name: "Plomería general", Category: "hogar"},
		},
		Trades: []string{"Plomería", "Tapicería", "Electricista"},
		Places: []search.Place{{City: "Bogotá", Neighborhood: "Chapinero"}, {City: "Chía"}, {City: "Bogotá D.C.", Neighborhood: "Barrio Inglés"}},
	})
}

type expect struct {
	category     string // "" = null
	services     string // comma separated
	trades       string // comma separated
	city         string
	neighborhood string
	from, to     string // local times; "" = when null
	urgent       bool
	keywords     string // comma separated
}

func TestInterpret(t *testing.T) {
	v := testVocabulary()
	cases := []struct {
		query string
		now   time.Time // zero = wednesday10
		want  expect
	}{
		// Trades by synonym and inflection, learned services and their category.
		{"Necesito un plomero en Chapinero mañana en la tarde, urgente", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", city: "Bogotá", neighborhood: "Chapinero", from: "2026-11-19 12:00", to: "2026-11-19 18:00", urgent: true}},
		{"fontanero para mañana por la mañana", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", from: "2026-11-19 06:00", to: "2026-11-19 12:00"}},
		{"PLOMERÍA en bogota", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", city: "Bogotá"}},
		{"plomeros baratos en Bogotá D.C.", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", city: "Bogotá", keywords: "baratos"}},
		{"electricista en Medellín el lunes", time.Time{}, expect{category: "hogar", services: "s2", trades: "electricidad", city: "Medellín", from: "2026-11-23 00:00", to: "2026-11-24 00:00"}},
		{"se fue la luz, necesito un eléctrico hoy", time.Time{}, expect{category: "hogar", services: "s2", trades: "electricidad", from: "2026-11-18 10:00", to: "2026-11-19 00:00", keywords: "luz"}},
		{"instalación eléctrica en El Poblado", time.Time{}, expect{category: "hogar", services: "s2", trades: "electricidad", city: "Medellín", neighborhood: "El Poblado"}},
		{"Electricista ahora", time.Time{}, expect{category: "hogar", services: "s2", trades: "electricidad", urgent: true}},
		{"aseo este fin de semana en Cali", time.Time{}, expect{category: "limpieza", services: "s3", trades: "aseo", city: "Cali", from: "2026-11-21 00:00", to: "2026-11-23 00:00"}},
		{"limpieza de oficinas hoy mismo barrio Inglés", time.Time{}, expect{category: "limpieza", services: "s3", trades: "aseo", city: "Bogotá", neighborhood: "Barrio Inglés", from: "2026-11-18 10:00", to: "2026-11-19 00:00", urgent: true, keywords: "oficinas"}},
		{"señora para hacer aseo el sábado en Laureles", time.Time{}, expect{category: "limpieza", services: "s3", trades: "aseo", city: "Medellín", neighborhood: "Laureles", from: "2026-11-21 00:00", to: "2026-11-22 00:00"}},
		{"Aseo de oficinas", time.Time{}, expect{category: "limpieza", services: "s3", trades: "aseo"}},
		{"cerrajero ya mismo, se me quedaron las llaves", time.Time{}, expect{trades: "cerrajería", urgent: true, keywords: "quedaron,llaves"}},
		{"cerrajería urgente en Barranquilla", time.Time{}, expect{trades: "cerrajería", city: "Barranquilla", urgent: true}},
		{"pintor la próxima semana en Bucaramanga", time.Time{}, expect{trades: "pintura", city: "Bucaramanga", from: "2026-11-23 00:00", to: "2026-11-30 00:00"}},
		{"pintar la fachada de la casa la semana que viene", time.Time{}, expect{trades: "pintura", from: "2026-11-23 00:00", to: "2026-11-30 00:00", keywords: "fachada"}},
		{"lo más pronto posible un pintor en medellin", time.Time{}, expect{trades: "pintura", city: "Medellín", urgent: true}},
		{"carpintero para arreglar un closet en Usaquén", time.Time{}, expect{trades: "carpintería", city: "Bogotá", neighborhood: "Usaquén", keywords: "closet"}},
		{"ebanista en Cabecera", time.Time{}, expect{trades: "carpintería", city: "Bucaramanga", neighborhood: "Cabecera"}},
		{"jardinero para cortar el pasto en Pasto", time.Time{}, expect{trades: "jardinería", city: "Pasto", keywords: "cortar,pasto"}},
		{"podar los árboles del jardín el domingo", time.Time{}, expect{trades: "jardinería", from: "2026-11-22 00:00", to: "2026-11-23 00:00", keywords: "podar,árboles"}},
		{"jardinería en Ciudad Jardín", time.Time{}, expect{trades: "jardinería", neighborhood: "Ciudad Jardín"}},
		{"jardinero en Ciudad Jardín, Cali", time.Time{}, expect{trades: "jardinería", city: "Cali", neighborhood: "Ciudad Jardín"}},
		{"mecánico a domicilio el 24 de diciembre", time.Time{}, expect{category: "autos", services: "s4", trades: "mecánica", from: "2026-12-24 00:00", to: "2026-12-25 00:00"}},
		{"necesito mecánico para la moto", time.Time{}, expect{category: "autos", services: "s4", trades: "mecánica", keywords: "moto"}},
		{"cambio de aceite pasado mañana a las 3", time.Time{}, expect{category: "autos", services: "s4", trades: "mecánica", from: "2026-11-20 15:00", to: "2026-11-20 16:00"}},
		{"tapicería de muebles en chía", time.Time{}, expect{trades: "tapicería", city: "Chía", keywords: "muebles"}},
		{"plomería y electricidad en Kennedy", time.Time{}, expect{category: "hogar", services: "s1,s5,s2", trades: "plomería,electricidad", city: "Bogotá", neighborhood: "Kennedy"}},
		{"Reparación de tuberías en Envigado", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", city: "Medellín", neighborhood: "Envigado"}},
		// Clues point to a trade and stay keywords.
		{"se me dañó la nevera, lo antes posible", time.Time{}, expect{trades: "refrigeración", urgent: true, keywords: "dañó,nevera"}},
		{"busco alguien que destape el lavaplatos", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", keywords: "destape,lavaplatos"}},
		{"fuga de agua en el baño, urgente!!", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", urgent: true, keywords: "fuga,agua,baño"}},
		{"técnico de lavadoras en Suba", time.Time{}, expect{trades: "electrodomésticos", city: "Bogotá", neighborhood: "Suba", keywords: "lavadoras"}},
		{"mudanza el 5", time.Time{}, expect{trades: "mudanzas", from: "2026-12-05 00:00", to: "2026-12-06 00:00"}},
		// "mañana" (tomorrow) versus "la mañana" (the morning).
		{"mañana", time.Time{}, expect{from: "2026-11-19 00:00", to: "2026-11-20 00:00"}},
		{"en la mañana", time.Time{}, expect{from: "2026-11-18 10:00", to: "2026-11-18 12:00"}},
		{"en la mañana", time.Date(2026, 11, 18, 15, 0, 0, 0, bogota), expect{from: "2026-11-19 06:00", to: "2026-11-19 12:00"}},
		{"mañana en la mañana", time.Time{}, expect{from: "2026-11-19 06:00", to: "2026-11-19 12:00"}},
		{"por la mañana, plomero", time.Time{}, expect{category: "hogar", services: "s1,s5", trades: "plomería", from: "2026-11-18 10:00", to: "2026-11-18 12:00"}},
		{"mañana temprano", time.Time{}, expect{from: "2026-11-19 06:00", to: "2026-11-19 12:00"}},
		{"esta mañana", time.Time{}, expect{from: "2026-11-18 10:00", to: "2026-11-18 12:00"}},
		{"mañana a las 8 de la mañana", time.Time{}, expect{from: "2026-11-19 08:00", to: "2026-11-19 09:00"}},
		{"pasado mañana", time.Time{}, expect{from: "2026-11-20 00:00", to: "2026-11-21 00:00"}},
		// Other relative dates and times.
		{"esta noche", time.Time{}, expect{from: "2026-11-18 18:00", to: "2026-11-19 00:00"}},
		{"en la tarde", time.Date(2026, 11, 18, 20, 0, 0, 0, bogota), expect{from: "2026-11-19 12:00", to: "2026-11-19 18:00"}},
		{"hoy", time.Time{}, expect{from: "2026-11-18 10:00", to: "2026-11-19 00:00"}},
		{"el miércoles", time.Time{}, expect{from: "2026-11-25 00:00", to: "2026-11-26 00:00"}},
		{"este miércoles", time.Time{}, expect{from: "2026-11-18 10:00", to: "2026-11-19 00:00"}},
		{"el próximo viernes a las 10 am", time.Time{}, expect{from: "2026-11-20 10:00", to: "2026-11-20 11:00"}},
		{"en 3 días", time.Time{}, expect{from: "2026-11-21 00:00", to: "2026-11-22 00:00"}},
		{"dentro de dos días en la tarde", time.Time{}, expect{from: "2026-11-20 12:00", to: "2026-11-20 18:00"}},
		{"hoy a las 4 de la tarde", time.Time{}, expect{from: "2026-11-18 16:00", to: "2026-11-18 17:00"}},
		{"a las 11:30 de la mañana", time.Time{}, expect{from: "2026-11-18 11:30", to: "2026-11-18 12:30"}},
		{"esta semana", time.Time{}, expect{from: "2026-11-18 10:00", to: "2026-11-23 00:00"}},
		{"este fin de semana", time.Date(2026, 11, 21, 9, 30, 0, 0, bogota), expect{from: "2026-11-21 09:30", to: "2026-11-23 00:00"}},
		{"el fin de semana", time.Date(2026, 11, 22, 9, 0, 0, 0, bogota), expect{from: "2026-11-22 09:00", to: "2026-11-23 00:00"}},
		{"el lunes", time.Date(2026, 11, 22, 23, 30, 0, 0, bogota), expect{from: "2026-11-23 00:00", to: "2026-11-24 00:00"}},
		{"el 31 de diciembre", time.Time{}, expect{from: "2026-12-31 00:00", to: "2027-01-01 00:00"}},
		{"el 2 de enero", time.Time{}, expect{from: "2027-01-02 00:00", to: "2027-01-03 00:00"}},
		// Nothing to interpret but words.
		{"reparación de nevera samsung", time.Time{}, expect{trades: "refrigeración", keywords: "reparación,nevera,samsung"}},
		{"Hola", time.Time{}, expect{}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			now := c.now
			if now.IsZero() {
				now = wednesday10
			}
			got := search.Interpret(c.query, v, now, bogota)
			w := c.want
			check := func(field, got, want string) {
				if got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("query", got.Query, c.query)
			check("categoryId", str(got.CategoryID), w.category)
			check("serviceIds", strings.Join(got.ServiceIDs, ","), w.services)
			check("trades", strings.Join(got.Trades, ","), w.trades)
			check("city", str(got.City), w.city)
			check("neighborhood", str(got.Neighborhood), w.neighborhood)
			check("keywords", strings.Join(got.Keywords, ","), w.keywords)
			if got.Urgent != w.urgent {
				t.Errorf("urgent = %v", got.Urgent)
			}
			switch {
			case w.from == "" && got.When != nil:
				t.Errorf("when = %+v, want null", *got.When)
			case w.from != "" && got.When == nil:
				t.Errorf("when = null, want %s – %s", w.from, w.to)
			case w.from != "":
				check("when.from", got.When.From, local(w.from))
				check("when.to", got.When.To, local(w.to))
			}
		})
	}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// The same query and clock always give the same answer.
func TestInterpretDeterministic(t *testing.T) {
	v := testVocabulary()
	q := "plomero y electricista urgente en Chapinero mañana a las 3"
	first := search.Interpret(q, v, wednesday10, bogota)
	for i := 0; i < 20; i++ {
		got := search.Interpret(q, v, wednesday10, bogota)
		if strings.Join(got.Trades, ",") != strings.Join(first.Trades, ",") ||
			strings.Join(got.ServiceIDs, ",") != strings.Join(first.ServiceIDs, ",") ||
			got.When.From != first.When.From || got.When.To != first.When.To {
			t.Fatalf("run %d differs: %+v vs %+v", i, got, first)
		}
	}
}
