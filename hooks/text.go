package hooks

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold lower-cases s and strips accents and extra spaces ("  Bogotá D.C." →
// "bogota d.c."), for accent- and case-insensitive matching and keys.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Chars counts characters (Unicode code points), the unit of every length
// bound of the interface.
func Chars(s string) int { return utf8.RuneCountInString(s) }

// CheckLength adds a field error when s is outside [min, max] characters;
// min 0 means optional. It reports whether s passed.
func CheckLength(v *Validation, field, s string, min, max int) bool {
	n := Chars(s)
	switch {
	case min > 0 && n == 0:
		v.Add(field, "Es obligatorio")
	case n < min:
		v.Add(field, "Debe tener al menos "+itoa(min)+" caracteres")
	case n > max:
		v.Add(field, "Debe tener como máximo "+itoa(max)+" caracteres")
	default:
		return true
	}
	return false
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
