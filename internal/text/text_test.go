package text_test

import (
	"testing"

	"camellos/internal/text"
)

func TestFold(t *testing.T) {
	cases := map[string]string{
		"  Bogotá   D.C. ":      "bogota d.c.",
		"PLOMERÍA":              "plomeria",
		"Ñandú":                 "nandu",
		"":                      "",
		"Medellín\tAntioquia\n": "medellin antioquia",
	}
	for in, want := range cases {
		if got := text.Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
