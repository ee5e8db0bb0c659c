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
