package camellos

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"camellos/internal/timefmt"
)

// The listing renders each camello's values once, at a build or a patch:
// these appenders write the bytes encoding/json writes for the same values
// (json.Marshal: HTML characters escaped), without its reflection and its
// allocations, which made the cold build at 100,000 camellos 3.8 s
// (TestRenderersWriteWhatEncodingJSONWrites holds them to it).

// jsonHex is the digits of a \u00XX escape, as encoding/json writes them.
const jsonHex = "0123456789abcdef"

// appendJSONString appends s as json.Marshal(s) writes it: quoted, with
// `"`, `\` and control characters escaped (\b \f \n \r \t by name), `<`,
// `>` and `&` as \u003c \u003e \u0026, invalid UTF-8 as \ufffd, and U+2028
// and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHex[b>>4], jsonHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

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

// appendISOOfStored appends timefmt.ISOOfStored(s) quoted: a stored date
// of PocketBase's form ("2006-01-02 15:04:05.000Z", a real date) is the
// same characters with a T, anything else is parsed.
func appendISOOfStored(dst []byte, s string, quoted bool) []byte {
	if quoted {
		dst = append(dst, '"')
	}
	if storedDateOK(s) {
		dst = append(dst, s[:10]...)
		dst = append(dst, 'T')
		dst = append(dst, s[11:]...)
	} else {
		dst = append(dst, timefmt.ISOOfStored(s)...)
	}
	if quoted {
		dst = append(dst, '"')
	}
	return dst
}

// storedDateOK reports whether s is "YYYY-MM-DD HH:MM:SS.mmmZ" with a
// real date and time (what time.Parse accepts for that layout).
func storedDateOK(s string) bool {
	const layout = "dddd-dd-dd dd:dd:dd.dddZ"
	if len(s) != len(layout) {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != layout[i] {
			return false
		}
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	if month < 1 || month > 12 || day < 1 || num(11, 2) > 23 || num(14, 2) > 59 || num(17, 2) > 59 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}
