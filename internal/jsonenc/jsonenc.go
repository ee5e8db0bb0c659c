// Package jsonenc appends JSON values as encoding/json writes them, without
// its reflection and its allocations: the projections render their values
// once, at a build or a patch, and a cold build of 100,000 of them spent a
// third of its time in json.Marshal (issue 27).
package jsonenc

import "unicode/utf8"

// hex is the digits of a \u00XX escape, as encoding/json writes them.
const hex = "0123456789abcdef"

// AppendString appends s as json.Marshal(s) writes it: quoted, with `"`,
// `\` and control characters escaped (\b \f \n \r \t by name), `<`, `>`
// and `&` as \u003c \u003e \u0026, invalid UTF-8 as \ufffd, and U+2028
// and U+2029 escaped.
func AppendString(dst []byte, s string) []byte {
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
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
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
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
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
