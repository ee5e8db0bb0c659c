package httpapi

import "camellos/internal/text"

// CheckLength adds a field error when s is outside [min, max] characters;
// min 0 means optional. It reports whether s passed.
func CheckLength(v *Validation, field, s string, min, max int) bool {
	n := text.Chars(s)
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

// MsgNoVisibleLetter is the field message of a name without a visible
// letter or digit.
const MsgNoVisibleLetter = "Debe contener al menos una letra visible"

// CheckName is the one rule of a person's or camello's name: its length in
// [min, max] characters and at least one visible letter or digit (not only
// fillers such as U+3164 or U+2800, spaces or punctuation). It reports
// whether s passed.
func CheckName(v *Validation, field, s string, min, max int) bool {
	if !CheckLength(v, field, s, min, max) {
		return false
	}
	if s != "" && !text.Visible(s) {
		v.Add(field, MsgNoVisibleLetter)
		return false
	}
	return true
}
