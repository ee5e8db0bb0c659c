package search

import (
	"fmt"
	"testing"
)

// BenchmarkRank ranks 10,000 candidates (a city's plomeros at the large
// scale) by three words, with reviews.
func BenchmarkRank(b *testing.B) {
	cands := make([]Candidate, 10000)
	reviews := map[string]string{}
	for i := range cands {
		id := fmt.Sprintf("cam%012d", i)
		cands[i] = Candidate{ID: id, Text: fmt.Sprintf("camello %d plomeria bogota chapinero reparo tuberias, calentadores y griferia de banos y cocinas %d", i, i)}
		if i%3 == 0 {
			reviews[id] = "muy puntual, arreglo la fuga del bano rapido y dejo todo limpio"
		}
	}
	terms := rankTerms(Interpretation{Keywords: []string{"fuga", "baño", "urgente"}})
	b.ReportAllocs()
	for b.Loop() {
		rank(cands, terms, reviews)
	}
}
