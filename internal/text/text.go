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

// blankLetters are characters Unicode counts as letters (or symbols) that
// draw nothing: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the
// braille blank (U+2800) and the Khmer inherent vowels (U+17B4, U+17B5).
var blankLetters = map[rune]bool{
	0x115F: true, 0x1160: true, 0x3164: true, 0xFFA0: true, 0x2800: true, 0x17B4: true, 0x17B5: true,
}

// Visible reports whether s has at least one visible letter or digit: a
// name made only of spaces, punctuation, fillers that draw nothing (U+3164
// Hangul filler, U+2800 braille blank) or marks is not a name.
func Visible(s string) bool {
	for _, r := range s {
		if blankLetters[r] {
			continue
		}
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}
