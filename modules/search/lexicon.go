package search

import (
	"strings"

	"camellos/internal/text"
)

// The static Spanish lexicon of the interpreter: common trades with their
// synonyms and inflections, words that point to a trade, known cities with
// some of their neighbourhoods, urgency phrases and words that carry no
// meaning for a search. Everything is written folded (lower case, no
// accents) except display names.

// trade is a common trade: its display name, the word prefixes that name
// it (every inflection: plomero, plomera, plomeros, plomería…) and clue
// words that point to it without naming it ("fuga" → plomería).
type trade struct {
	Name     string
	Prefixes []string
	Clues    []string
}

var commonTrades = []trade{
	{"plomería", []string{"plomer", "fontaner"}, []string{"fuga", "fugas", "tuberia", "tuberias", "tubo", "tubos", "grifo", "grifos", "lavamanos", "lavaplatos", "sanitario", "inodoro", "desague", "alcantarillado", "calentador", "goteo", "gotera", "destapar", "taponado", "tapado", "tapo", "gotea", "gotean", "ducha", "tanque", "caneria", "canerias", "desagues"}},
	{"electricidad", []string{"electricist", "electric", "electrotecn"}, []string{"cortocircuito", "enchufe", "enchufes", "tomacorriente", "tomacorrientes", "breaker", "breakers", "cableado", "bombillo", "bombillos", "bombilla", "bombillas", "lampara", "lamparas", "apagon", "chispa", "chispas", "chispea", "interruptor", "interruptores", "cable", "cables"}},
	{"aseo", []string{"aseo", "asead", "asear", "limpi"}, []string{"trapear", "barrer", "desinfeccion", "lavado"}},
	{"cerrajería", []string{"cerrajer"}, []string{"cerradura", "cerraduras", "chapa", "chapas", "candado", "cerrojo", "llaves"}},
	{"pintura", []string{"pintor", "pintur", "pintar", "pinte", "pinta"}, []string{"brocha", "estuco", "resane"}},
	{"carpintería", []string{"carpinter", "ebanist"}, []string{"mueble", "muebles", "closet", "closets", "madera", "puerta", "puertas", "gabinete", "gabinetes", "bisagra", "bisagras"}},
	{"jardinería", []string{"jardiner", "jardin"}, []string{"poda", "podar", "cesped", "prado", "pasto", "matas", "plantas"}},
	{"mecánica", []string{"mecanic"}, []string{"carro", "carros", "moto", "motos", "motor", "frenos", "embrague", "aceite", "llanta", "llantas", "vehiculo"}},
	{"albañilería", []string{"albanil", "mamposter", "construccion", "obra"}, []string{"ladrillo", "ladrillos", "cemento", "baldosa", "baldosas", "enchape", "piso", "pisos", "muro", "muros", "remodelacion", "remodelar", "grieta", "grietas"}},
	{"soldadura", []string{"soldad", "soldar"}, []string{"reja", "rejas", "ornamentacion"}},
	{"refrigeración", []string{"refrigeracion", "refrigerador"}, []string{"nevera", "neveras", "congelador", "aire acondicionado", "aires acondicionados"}},
	{"electrodomésticos", []string{"electrodomestic"}, []string{"lavadora", "lavadoras", "secadora", "estufa", "horno", "microondas"}},
	{"mudanzas", []string{"mudanz", "trastet", "trasteo", "trastea", "trastee"}, []string{"acarreo", "acarreos", "camion", "mudo", "mudamos", "mudar", "mudarme", "mudarnos"}},
	{"tecnología", []string{"informatic"}, []string{"computador", "computadores", "portatil", "impresora", "wifi", "router"}},
	{"fumigación", []string{"fumiga"}, []string{"cucarachas", "ratas", "raton", "ratones", "plagas", "termitas", "comejen", "zancudos", "pulgas", "chinches", "hormigas"}},
	{"vidriería", []string{"vidrier"}, []string{"vidrio", "vidrios", "ventana", "ventanas", "espejo"}},
	{"costura", []string{"costur", "modist", "sastre"}, []string{"ropa", "dobladillo", "cremallera"}},
	{"peluquería", []string{"peluquer", "estilist", "barber", "manicur"}, []string{"corte de pelo", "unas", "cabello"}},
	{"cuidado de personas", []string{"niner", "cuidador", "enfermer"}, []string{"abuelo", "abuela", "adulto mayor", "bebe"}},
	{"techos", []string{"techer", "impermeabiliz"}, []string{"techo", "tejado", "teja", "tejas", "canal", "canales"}},
}

// city is a known city: display name, folded aliases and neighbourhoods.
type city struct {
	Name          string
	Aliases       []string
	Neighborhoods []string
}

var knownCities = []city{
	{"Bogotá", []string{"bogota", "bogota dc", "bogota d c", "santa fe de bogota"}, []string{
		"Chapinero", "Chapinero Alto", "Usaquén", "Suba", "Kennedy", "Engativá", "Fontibón", "Teusaquillo", "Cedritos",
		"Chicó", "Salitre", "Bosa", "Ciudad Bolívar", "La Candelaria", "Modelia", "Galerías", "Rosales", "Niza",
		"Colina Campestre", "Hayuelos", "Santa Bárbara", "Puente Aranda", "Barrios Unidos", "Tunjuelito", "Usme",
		"San Cristóbal", "Rafael Uribe", "Los Mártires", "Antonio Nariño", "Normandía", "El Lago", "Quinta Camacho",
	}},
	{"Medellín", []string{"medellin"}, []string{
		"El Poblado", "Laureles", "Belén", "Robledo", "Buenos Aires", "La América", "Estadio", "Manrique", "Aranjuez",
		"Guayabal", "Castilla", "Envigado", "Sabaneta", "Itagüí", "Provenza", "Los Colores", "Calasanz",
		"La Candelaria", "Villa Hermosa", "San Javier", "Doce de Octubre",
	}},
	{"Cali", []string{"cali", "santiago de cali"}, []string{
		"San Fernando", "Granada", "El Peñón", "Ciudad Jardín", "Valle del Lili", "San Antonio", "El Ingenio", "Pance",
		"Versalles", "Santa Mónica", "Tequendama", "Chipichape", "La Flora", "El Limonar", "Alameda", "Siloé",
	}},
	{"Barranquilla", []string{"barranquilla", "quilla"}, []string{
		"El Prado", "Riomar", "Alto Prado", "Villa Country", "Boston", "El Golf", "Ciudad Jardín", "Las Delicias",
		"Villa Carolina", "Villa Santos", "El Recreo", "Bellavista", "Miramar", "La Concepción", "Los Nogales",
	}},
	{"Bucaramanga", []string{"bucaramanga"}, []string{
		"Cabecera", "Cabecera del Llano", "Sotomayor", "San Alonso", "Provenza", "La Aurora", "Álvarez",
		"Lagos del Cacique", "García Rovira", "Mejoras Públicas", "Terrazas", "El Prado", "Girón", "Floridablanca",
	}},
	{"Cartagena", []string{"cartagena"}, []string{"Bocagrande", "Castillogrande", "El Laguito", "Crespo", "Pie de la Popa", "Getsemaní"}},
	{"Pereira", []string{"pereira"}, []string{"Pinares", "Álamos", "Cuba", "Dosquebradas"}},
	{"Manizales", []string{"manizales"}, []string{"Chipre", "Palermo", "La Francia"}},
	{"Santa Marta", []string{"santa marta"}, []string{"El Rodadero", "Bello Horizonte", "Taganga"}},
	{"Cúcuta", []string{"cucuta"}, []string{"Caobos", "La Riviera"}},
	{"Ibagué", []string{"ibague"}, nil},
	{"Villavicencio", []string{"villavicencio", "villavo"}, nil},
	{"Pasto", []string{"pasto"}, nil},
	{"Armenia", []string{"armenia"}, nil},
	{"Neiva", []string{"neiva"}, nil},
	{"Soacha", []string{"soacha"}, nil},
	{"Tunja", []string{"tunja"}, nil},
	{"Montería", []string{"monteria"}, nil},
	{"Popayán", []string{"popayan"}, nil},
	{"Sincelejo", []string{"sincelejo"}, nil},
	{"Valledupar", []string{"valledupar"}, nil},
}

// urgentPhrases mark an urgent request ("hoy mismo" also means today).
var urgentPhrases = [][]string{
	{"urgente"}, {"urgentemente"}, {"urgencia"}, {"emergencia"}, {"ya", "mismo"}, {"ya"}, {"ahora", "mismo"}, {"ahorita"},
	{"ahora"}, {"lo", "antes", "posible"}, {"lo", "mas", "pronto", "posible"}, {"lo", "mas", "rapido", "posible"},
	{"cuanto", "antes"}, {"de", "inmediato"}, {"inmediato"}, {"inmediatamente"}, {"sin", "demora"}, {"mismo", "dia"},
}

// stopWords carry no meaning for a search: they are never keywords.
var stopWords = setOf(
	"a", "al", "alguien", "algun", "alguna", "alguno", "ante", "aqui", "ayuda", "ayudar", "ayudame", "buen", "buena",
	"buenas", "bueno", "buenos", "busco", "buscando", "buscar", "cerca", "como", "con", "contratar", "cual",
	"de", "del", "desde", "donde", "dias", "e", "el", "ella", "en", "entre", "es", "esta", "estan", "este", "esto",
	"favor", "gracias", "hacer", "haga", "hasta", "hay", "hola", "la", "las", "le", "lo", "los", "me", "mi", "mis",
	"muy", "necesita", "necesitamos", "necesito", "ni", "o", "para", "pero", "persona", "personas", "por", "porfa",
	"porfavor", "profesional", "que", "quien", "quiero", "requiero", "se", "si", "sin", "solicito", "su", "sus",
	"tengo", "tiene", "un", "una", "unas", "uno", "unos", "urge", "y", "arreglar", "arreglen", "arregle", "reparar",
	"reparen", "repare", "casa", "apartamento", "apto", "sector", "zona", "barrio", "ciudad", "servicio",
	"servicios", "trabajo", "mas", "bien", "barato", "barata", "economico", "economica", "bueno", "confiable",
	"dia", "hora", "horas", "tarde", "noche", "temprano", "mediodia", "semana", "fin", "proximo", "proxima",
	"siguiente", "viene", "otra", "otro", "mismo", "misma", "pronto", "posible", "antes", "rapido", "fue", "domicilio",
	"senora", "senor", "tecnico", "tecnica", "maestro",
)

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// TradeForms returns the folded word beginnings that name the same trade
// as t ("plomero" → plomer, fontaner), for filters over folded text; a
// trade the lexicon does not know is just itself, folded.
func TradeForms(t string) []string {
	ws := words(text.Fold(t))
	if len(ws) == 0 {
		return nil
	}
	for _, tr := range commonTrades {
		for _, p := range tr.Prefixes {
			if matchPhrase(ws, 0, phrase(strings.Fields(p)), true) == len(ws) {
				return append([]string(nil), tr.Prefixes...)
			}
		}
	}
	return []string{strings.Join(ws, " ")}
}
