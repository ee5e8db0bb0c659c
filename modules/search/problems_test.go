package search_test

import (
	"strings"
	"testing"

	"camellos/modules/search"
)

// problemQueries are searches that describe a problem in people's words,
// without naming the trade, each with the trade it needs (issue 24: leaks,
// sparks, moves, broken locks, weekends, "urgente", "ahorita", "en la
// tarde"...). TestProblemQueries reads them with Interpret;
// TestSearchProblemQueries asks GET /api/search with them.
var problemQueries = []struct {
	query, trade string
	urgent, when bool
}{
	{"necesito alguien que me arregle una fuga en el baño en Bogotá el sábado", "plomería", false, true},
	{"se me está saliendo el agua por debajo del lavamanos", "plomería", false, false},
	{"hay una fuga en la cocina, urgente", "plomería", true, false},
	{"el inodoro no descarga y huele feo", "plomería", false, false},
	{"gotea la ducha toda la noche", "plomería", false, true},
	{"se tapó el desagüe del patio ahorita", "plomería", true, false},
	{"el calentador de agua no prende en la tarde", "plomería", false, true},
	{"se salió el agua del tanque del baño", "plomería", false, false},
	{"salen chispas del enchufe de la sala", "electricidad", false, false},
	{"se fue la luz en media casa y el breaker salta", "electricidad", false, false},
	{"huele a quemado el tomacorriente, urgente", "electricidad", true, false},
	{"los bombillos parpadean en la tarde", "electricidad", false, true},
	{"hay que cambiar un interruptor que da corriente", "electricidad", false, false},
	{"se dañó la cerradura y no puedo entrar", "cerrajería", false, false},
	{"perdí las llaves del apartamento, ahorita", "cerrajería", true, false},
	{"se trabó la chapa, no abre", "cerrajería", false, false},
	{"necesito cambiar el candado de la bodega el fin de semana", "cerrajería", false, true},
	{"me voy a trastear el fin de semana", "mudanzas", false, true},
	{"quién me ayuda a subir el trasteo al quinto piso el domingo", "mudanzas", false, true},
	{"me mudo el sábado y necesito quien cargue las cajas", "mudanzas", false, true},
	{"necesito un camión para llevar mis cosas a otra casa", "mudanzas", false, false},
	{"hay cucarachas en la cocina", "fumigación", false, false},
	{"se metieron ratones a la bodega, urgente", "fumigación", true, false},
	{"la pared tiene humedad y se está descascarando la pintura", "pintura", false, false},
	{"hay que resanar y pintar las paredes del cuarto", "pintura", false, false},
	{"se cayó una teja y entra agua cuando llueve", "techos", false, false},
	{"hay que impermeabilizar la terraza antes de que llueva", "techos", false, false},
	{"la lavadora no centrifuga", "electrodomésticos", false, false},
	{"me dejó de funcionar el horno, ahorita", "electrodomésticos", true, false},
	{"la nevera no enfría, urgente", "refrigeración", true, false},
	{"el aire acondicionado bota agua", "refrigeración", false, false},
	{"el carro no arranca en la mañana", "mecánica", false, true},
	{"se le pincharon las llantas a la moto", "mecánica", false, false},
	{"el computador está muy lento y no prende el wifi", "tecnología", false, false},
	{"la impresora no imprime", "tecnología", false, false},
	{"hay que podar el árbol del antejardín el sábado en la tarde", "jardinería", false, true},
	{"se rompió el vidrio de la ventana", "vidriería", false, false},
	{"quiero una reja para el garaje", "soldadura", false, false},
	{"se despegaron las baldosas del baño", "albañilería", false, false},
	{"hay una grieta en el muro de la casa", "albañilería", false, false},
	{"necesito que me limpien el apartamento a fondo el viernes en la tarde", "aseo", false, true},
	{"se descosió el pantalón y hay que subirle el dobladillo", "costura", false, false},
	{"alguien que cuide a mi abuela ahorita", "cuidado de personas", true, false},
	{"se descolgó la bisagra del gabinete de la cocina", "carpintería", false, false},
}

func TestProblemQueries(t *testing.T) {
	if len(problemQueries) < 40 {
		t.Fatalf("%d problem queries, issue 24 asks for 40", len(problemQueries))
	}
	v := testVocabulary()
	for _, c := range problemQueries {
		t.Run(c.query, func(t *testing.T) {
			got := search.Interpret(c.query, v, wednesday10, bogota)
			if strings.Join(got.Trades, ",") != c.trade {
				t.Errorf("trades = %q, want %q", got.Trades, c.trade)
			}
			if got.Urgent != c.urgent {
				t.Errorf("urgent = %v, want %v", got.Urgent, c.urgent)
			}
			if (got.When != nil) != c.when {
				t.Errorf("when = %+v, want set %v", got.When, c.when)
			}
			// The problem's words stay keywords: they rank, they do not filter.
			if len(got.Keywords) == 0 {
				t.Errorf("no keywords left to rank: %+v", got)
			}
		})
	}
}
