package camellos

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"camellos/internal/jsonenc"
	"camellos/internal/timefmt"
)

// The listing renders each camello's values once, at a build or a patch:
// these appenders write the bytes encoding/json writes for the same values
// (json.Marshal: HTML characters escaped), without its reflection and its
// allocations, which made the cold build at 100,000 camellos 3.8 s
// (TestRenderersWriteWhatEncodingJSONWrites holds them to it).

// appendJSONString appends s as json.Marshal(s) writes it.
func appendJSONString(dst []byte, s string) []byte { return jsonenc.AppendString(dst, s) }

// appendJSONValue appends v as json.Marshal writes it (the rare values the
// appenders leave to it).
func appendJSONValue(dst []byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	return append(dst, raw...), err
}

// appendRating appends {"average":…,"count":…} as json.Marshal writes a
// ratingJSON: the average in 'f' form (encoding/json's form between 1e-6
// and 1e21, and for 0), else written by encoding/json itself.
func appendRating(dst []byte, average float64, count int) ([]byte, error) {
	if a := math.Abs(average); a != 0 && (a < 1e-6 || a >= 1e21) || math.IsNaN(average) {
		return appendJSONValue(dst, ratingJSON{Average: average, Count: count})
	}
	dst = append(dst, `{"average":`...)
	dst = strconv.AppendFloat(dst, average, 'f', -1, 64)
	dst = append(dst, `,"count":`...)
	dst = strconv.AppendInt(dst, int64(count), 10)
	return append(dst, '}'), nil
}

// simpleStrings calls fn with each string of raw when raw is a JSON array
// of strings written without spaces or escapes (as the database stores
// them: `["a","b"]`, `[]`); ok is false for anything else, which the
// caller then reads with encoding/json.
func simpleStrings(raw string, fn func(string)) (ok bool) {
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return false
	}
	body := raw[1 : len(raw)-1]
	// check first, then call: a value read halfway is never used
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < len(body); {
			if body[i] != '"' {
				return false
			}
			j := i + 1
			for j < len(body) && body[j] != '"' {
				if c := body[j]; c == '\\' || c < 0x20 {
					return false
				}
				j++
			}
			if j == len(body) {
				return false
			}
			if pass == 1 {
				fn(body[i+1 : j])
			}
			i = j + 1
			if i < len(body) {
				if body[i] != ',' || i == len(body)-1 {
					return false
				}
				i++
			}
		}
		if !utf8.ValidString(body) {
			return false
		}
	}
	return true
}

// appendTrades appends the stored trades as json.Marshal(tradesOf(raw))
// writes them.
func appendTrades(dst []byte, raw string) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '[')
	n := 0
	ok := simpleStrings(raw, func(s string) {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
		n++
	})
	if ok {
		return append(dst, ']'), nil
	}
	return appendJSONValue(dst[:start], tradesOf(raw))
}

// appendISOOfStored appends timefmt.ISOOfStored(s), quoted or not.
func appendISOOfStored(dst []byte, s string, quoted bool) []byte {
	if !quoted {
		return timefmt.AppendISOOfStored(dst, s)
	}
	return append(timefmt.AppendISOOfStored(append(dst, '"'), s), '"')
}
