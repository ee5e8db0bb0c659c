// Package cities folds the spellings of a city to one (issue 24: "bogota",
// "Bogotá D.C." and "BOGOTA" are stored, answered, mailed and put in the
// calendar as "Bogotá"). Known cities come from the catalog below (their
// official spelling and the aliases people type); any other city is
// written with its words capitalised ("zipaquirá" → "Zipaquirá"), so two
// spellings of it that differ only in case or spaces fold to one too.
package cities

import (
	"strings"
	"unicode"

	"camellos/internal/text"
)

// catalog is the official spelling of the known cities and the folded
// aliases that name them (accents, case, dots and commas are ignored).
var catalog = []struct {
	name    string
	aliases []string
}{
	{"Bogotá", []string{"bogota", "bogota dc", "bogota d c", "santa fe de bogota", "santafe de bogota", "bogota distrito capital"}},
	{"Medellín", []string{"medellin"}},
	{"Cali", []string{"cali", "santiago de cali"}},
	{"Barranquilla", []string{"barranquilla", "quilla"}},
	{"Bucaramanga", []string{"bucaramanga"}},
	{"Cartagena", []string{"cartagena", "cartagena de indias"}},
	{"Pereira", []string{"pereira"}},
	{"Manizales", []string{"manizales"}},
	{"Santa Marta", []string{"santa marta"}},
	{"Cúcuta", []string{"cucuta", "san jose de cucuta"}},
	{"Ibagué", []string{"ibague"}},
	{"Villavicencio", []string{"villavicencio", "villavo"}},
	{"Pasto", []string{"pasto", "san juan de pasto"}},
	{"Armenia", []string{"armenia"}},
	{"Neiva", []string{"neiva"}},
	{"Soacha", []string{"soacha"}},
	{"Tunja", []string{"tunja"}},
	{"Montería", []string{"monteria"}},
	{"Popayán", []string{"popayan"}},
	{"Sincelejo", []string{"sincelejo"}},
	{"Valledupar", []string{"valledupar"}},
	{"Chía", []string{"chia"}},
	{"Zipaquirá", []string{"zipaquira"}},
	{"Envigado", []string{"envigado"}},
	{"Itagüí", []string{"itagui"}},
	{"Bello", []string{"bello"}},
	{"Floridablanca", []string{"floridablanca"}},
	{"Soledad", []string{"soledad"}},
}

var byAlias = func() map[string]string {
	m := map[string]string{}
	for _, c := range catalog {
		for _, a := range c.aliases {
			m[a] = c.name
		}
	}
	return m
}()

// key is the folded city without punctuation: "Bogotá, D.C." → "bogota d c".
func key(s string) string {
	f := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return ' '
	}, text.Fold(s))
	return strings.Join(strings.Fields(f), " ")
}

// small words stay lower case inside a name ("Santa Fe de Antioquia").
var small = map[string]bool{"de": true, "del": true, "la": true, "las": true, "los": true, "el": true, "y": true}

// Canonical is the one spelling of city s: the catalog's name of a known
// city (any alias, accent, case or punctuation), else s trimmed with its
// spaces collapsed and each word capitalised. "" stays "".
func Canonical(s string) string {
	if name, ok := byAlias[key(s)]; ok {
		return name
	}
	words := strings.Fields(s)
	for i, w := range words {
		lw := strings.ToLower(w)
		if i > 0 && small[lw] {
			words[i] = lw
			continue
		}
		r := []rune(lw)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// Known reports whether s names a city of the catalog.
func Known(s string) bool {
	_, ok := byAlias[key(s)]
	return ok
}
