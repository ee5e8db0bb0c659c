// Package text folds strings for accent- and case-insensitive keys and
// counts characters (code points), the unit of every length bound.
package text

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
