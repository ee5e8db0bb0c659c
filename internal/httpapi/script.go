package httpapi

import (
	"strings"
	"unicode"
)

// MixedScript reports whether a part of an e-mail address (the local part
// or one label of the domain) mixes letters of different scripts, as
// look-alike addresses do ("аdmin" with a Cyrillic а). Letters of one
// script per part, accents and digits pass.
func MixedScript(email string) bool {
	for _, part := range strings.FieldsFunc(email, func(r rune) bool { return r == '@' || r == '.' }) {
		var script *unicode.RangeTable
		for _, r := range part {
			if !unicode.IsLetter(r) {
				continue
			}
			s := scriptOf(r)
			if s == nil {
				continue
			}
			if script != nil && s != script {
				return true
			}
			script = s
		}
	}
	return false
}

// scripts are the scripts MixedScript tells apart.
var scripts = []*unicode.RangeTable{
	unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Hebrew, unicode.Arabic,
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Devanagari,
	unicode.Georgian, unicode.Cherokee,
}

func scriptOf(r rune) *unicode.RangeTable {
	for _, s := range scripts {
		if unicode.Is(s, r) {
			return s
		}
	}
	return nil
}

// MsgInvisibleChars is the field message of text holding control or
// format characters.
const MsgInvisibleChars = "No puede contener caracteres de control ni caracteres invisibles de formato"

// InvisibleChars reports whether s holds a Unicode control (Cc) or format
// (Cf) character other than tab, newline and carriage return: NUL, bidi
// overrides (U+202E), zero-width spaces and joiners (U+200B, U+200D), BOM.
func InvisibleChars(s string) bool {
	for _, r := range s {
		if r == '\n' || r == '\t' || r == '\r' {
			continue
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) {
			return true
		}
	}
	return false
}

// invisibleIn reports whether any string in a decoded JSON value (object
// keys included) holds invisible characters.
func invisibleIn(v any) bool {
	switch x := v.(type) {
	case string:
		return InvisibleChars(x)
	case []any:
		for _, e := range x {
			if invisibleIn(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if InvisibleChars(k) || invisibleIn(e) {
				return true
			}
		}
	}
	return false
}

// secretField reports whether a JSON field holds a secret (a password),
// whose characters are the user's own business and never shown.
func secretField(name string) bool {
	return strings.Contains(strings.ToLower(name), "password")
}
