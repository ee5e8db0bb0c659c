package jsonenc

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"

	"camellos/internal/jsonenc/jsonenctest"
)

// TestAppendStringWritesWhatEncodingJSONWrites: 20,000 random strings of
// every kind of character, appended after a byte already there.
func TestAppendStringWritesWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	for i := 0; i < 20000; i++ {
		s := jsonenctest.Text(rng)
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("string %q: %s, encoding/json %s", s, got, want)
		}
	}
}
