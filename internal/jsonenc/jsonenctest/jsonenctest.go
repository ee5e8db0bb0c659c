// Package jsonenctest makes texts for the tests that hold an appender to
// encoding/json's bytes.
package jsonenctest

import (
	"math/rand"
	"strings"
)

// Text is a string of the characters JSON escapes and those it does not:
// controls, quotes, HTML, accents, U+2028/9, emoji, invalid UTF-8.
func Text(rng *rand.Rand) string {
	parts := []string{"a", "Z", "ñ", "é", " ", "\"", "\\", "<", ">", "&", "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
		"\u2028", "\u2029", "😀", "\xff", "\xe2\x80", "/", "'", "plomería", "\u00a0"}
	var b strings.Builder
	for n := rng.Intn(12); n > 0; n-- {
		b.WriteString(parts[rng.Intn(len(parts))])
	}
	return b.String()
}
