package search

import (
	"testing"
	"time"
)

// describe names the windows the notices speak of; shifted moves them.
func TestDescribeAndShift(t *testing.T) {
	loc, _ := time.LoadLocation("America/Bogota")
	now := time.Date(2026, 11, 18, 10, 30, 0, 0, loc) // a Wednesday
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, loc) }
	cases := []struct {
		name           string
		from, to       time.Time
		want           string
		shift          int
		wantF, wantT   time.Time
		wantShiftValid bool
	}{
		{"today", now, day(19, 0), "hoy", 1, day(19, 0), day(20, 0), true},
		{"tomorrow", day(19, 0), day(20, 0), "mañana", 1, day(20, 0), day(21, 0), true},
		{"saturday", day(21, 0), day(22, 0), "el sábado", 1, day(22, 0), day(23, 0), true},
		{"saturday afternoon", day(21, 12), day(21, 18), "el sábado", 2, day(23, 12), day(23, 18), true},
		{"tuesday, 6 days on", day(24, 0), day(25, 0), "el martes", 1, day(25, 0), day(26, 0), true},
		{"a week on: with the date", day(25, 0), day(26, 0), "el miércoles 25 de noviembre", 1, day(26, 0), day(27, 0), true},
		{"a weekend", day(21, 0), day(23, 0), "entre el sábado y el domingo", 1, day(28, 0), day(30, 0), true},
		{"a weekend moves once", day(21, 0), day(23, 0), "entre el sábado y el domingo", 2, time.Time{}, time.Time{}, false},
		{"this week", now, day(23, 0), "entre hoy y el domingo", 1, now.AddDate(0, 0, 7), day(30, 0), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := describe(c.from, c.to, loc, now); got != c.want {
				t.Errorf("describe = %q, want %q", got, c.want)
			}
			f, to, ok := shifted(c.from, c.to, c.shift, loc)
			if ok != c.wantShiftValid || (ok && (!f.Equal(c.wantF) || !to.Equal(c.wantT))) {
				t.Errorf("shifted %d = %v %v %v, want %v %v", c.shift, f, to, ok, c.wantF, c.wantT)
			}
		})
	}
}

// Stems and word starts: plural and inflection, never the middle of a word.
func TestHasWordStem(t *testing.T) {
	cases := []struct {
		text, word string
		want       bool
	}{
		{"reparo fugas en banos", "fuga", true},
		{"reparo fugas en banos", "baño", true},
		{"instalo tuberias nuevas", "tuberías", true},
		{"arreglos generales", "arreglar", true},
		{"carpinteria fina", "pinte", false},
		{"", "fuga", false},
		{"fuga", "fuga", true},
		{"(fugas)", "fugas", true},
	}
	for _, c := range cases {
		st := stem(foldWord(c.word))
		if got := hasWord(c.text, st); got != c.want {
			t.Errorf("hasWord(%q, stem(%q)=%q) = %v", c.text, c.word, st, got)
		}
	}
}
