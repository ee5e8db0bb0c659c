package cities_test

import (
	"testing"

	"camellos/internal/cities"
)

func TestCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{"bogota", "Bogotá"},
		{"Bogotá D.C.", "Bogotá"},
		{"BOGOTA", "Bogotá"},
		{"  bogotá,  d.c. ", "Bogotá"},
		{"Bogotá, D.C.", "Bogotá"},
		{"Santa Fe de Bogotá", "Bogotá"},
		{"medellin", "Medellín"},
		{"MEDELLÍN", "Medellín"},
		{"santiago de cali", "Cali"},
		{"cucuta", "Cúcuta"},
		{"itagui", "Itagüí"},
		{"Chía", "Chía"},
		// Unknown cities: trimmed, spaces collapsed, words capitalised.
		{"  la  dorada ", "La Dorada"},
		{"SAN ANDRÉS DE SOTAVENTO", "San Andrés de Sotavento"},
		{"ñ", "Ñ"},
		{"", ""},
		{"   ", ""},
	}
	for _, c := range cases {
		if got := cities.Canonical(c.in); got != c.want {
			t.Errorf("Canonical(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := cities.Canonical(cities.Canonical(c.in)); got != c.want {
			t.Errorf("Canonical is not stable on %q: %q", c.in, got)
		}
	}
	if !cities.Known("bogota dc") || cities.Known("La Dorada") {
		t.Errorf("Known")
	}
}
