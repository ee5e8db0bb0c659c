package camellos

import (
	"camellos/internal/readmodel"
	"sort"
	"strings"
	"unsafe"
)

// span is a run of bytes of a listing's text slab.
type span struct{ off, n uint32 }

// byID orders entries by id: the order of the listing's lookup (ids),
// binary searched.
func (l *listing) byID(a, b int32) int {
	return strings.Compare(l.str(l.recs[a].id), l.str(l.recs[b].id))
}

// find returns the listed entry of the camello id.
func (l *listing) find(id string) (int32, bool) {
	k := sort.Search(len(l.ids), func(k int) bool { return l.str(l.recs[l.ids[k]].id) >= id })
	if k < len(l.ids) && l.str(l.recs[l.ids[k]].id) == id {
		return l.ids[k], true
	}
	return 0, false
}

// str is the text of s, without a copy: the slab is never changed where a
// reader can see it (patches only append past the end it knows).
func (l *listing) str(s span) string {
	if s.n == 0 {
		return ""
	}
	return unsafe.String(&l.text[s.off], int(s.n))
}

// bytesOf is the text of s as bytes (read only).
func (l *listing) bytesOf(s span) []byte {
	return l.text[s.off : s.off+s.n : s.off+s.n]
}

// putString appends s to the slab and returns its span.
func (l *listing) putString(s string) span {
	l.text = readmodel.Grow(l.text, len(s), l.slack)
	sp := span{off: uint32(len(l.text)), n: uint32(len(s))}
	l.text = append(l.text, s...)
	return sp
}

// tighten ends a build: the arrays lose the build's spare capacity, and
// grow by a sixteenth from now on.
func (l *listing) tighten() {
	l.recs, l.text, l.svcs = readmodel.Tight(l.recs), readmodel.Tight(l.text), readmodel.Tight(l.svcs)
	l.slack = 16
}
