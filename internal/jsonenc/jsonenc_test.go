package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// randomText is a string of the characters JSON escapes and those it
// does not: controls, quotes, HTML, accents, U+2028/9, emoji, invalid
// UTF-8.
func randomText(rng *rand.Rand) string {
	parts := []string{"a", "Z", "ñ", "é", " ", "\"", "\\", "<", ">", "&", "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f",
		"\u2028", "\u2029", "😀", "\xff", "\xe2\x80", "/", "'", "plomería", "\u00a0"}
	var b strings.Builder
	for n := rng.Intn(12); n > 0; n-- {
		b.WriteString(parts[rng.Intn(len(parts))])
	}
	return b.String()
}

// TestAppendStringWritesWhatEncodingJSONWrites: 20,000 random strings of
// every kind of character, appended after a byte already there.
func TestAppendStringWritesWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	for i := 0; i < 20000; i++ {
		s := randomText(rng)
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("string %q: %s, encoding/json %s", s, got, want)
		}
	}
}
