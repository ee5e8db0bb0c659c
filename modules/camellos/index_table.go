package camellos

import (
	"hash/maphash"
	"unsafe"
)

// span is a run of bytes of a listing's text slab.
type span struct{ off, n uint32 }

// idTable finds an entry of the listing by a key of its text (its id, its
// user): open addressing with linear probing over entry indexes + 1 (0 is
// an empty slot), a power-of-two length at most half full. It holds no
// pointers but its pages', so the collector never scans it. Its slots are
// pages of up to 1,024: a patch copies the list of pages (2 KB at 100,000
// camellos) and then only the pages it writes (copy on write: own marks
// the pages this table may write in place), not the whole table (1 MB).
type idTable struct {
	pages [][]int32
	own   []bool
	size  uint64 // slots in all, a power of two (0: no table)
}

// pageBits is the log2 of a full page's slots.
const pageBits = 10

// keyOf is the key an idTable indexes an entry by.
type keyOf func(*entry) span

func entryID(e *entry) span   { return e.id }
func entryUser(e *entry) span { return e.user }

// newTable is an empty table for n entries, every page its own.
func newTable(n int) idTable {
	size := 16
	for size < 2*n+2 {
		size *= 2
	}
	page := min(size, 1<<pageBits)
	t := idTable{pages: make([][]int32, size/page), own: make([]bool, size/page), size: uint64(size)}
	for k := range t.pages {
		t.pages[k], t.own[k] = make([]int32, page), true
	}
	return t
}

// shared is a copy of t that shares its pages until it writes them.
func (t idTable) shared() idTable {
	return idTable{pages: append([][]int32(nil), t.pages...), own: make([]bool, len(t.pages)), size: t.size}
}

// at is slot j.
func (t *idTable) at(j uint64) int32 {
	if t.size <= 1<<pageBits {
		return t.pages[0][j]
	}
	return t.pages[j>>pageBits][j&(1<<pageBits-1)]
}

// put writes slot j, its page copied first when t does not own it.
func (t *idTable) put(j uint64, v int32) {
	p, o := uint64(0), j
	if t.size > 1<<pageBits {
		p, o = j>>pageBits, j&(1<<pageBits-1)
	}
	if !t.own[p] {
		t.pages[p], t.own[p] = append([]int32(nil), t.pages[p]...), true
	}
	t.pages[p][o] = v
}

// hash is the hash of a key, with the listing's seed.
func (l *listing) hash(key string) uint64 {
	return maphash.String(l.seed, key)
}

// lookup returns the entry whose key is key.
func (l *listing) lookup(t idTable, key string, k keyOf) (int32, bool) {
	if t.size == 0 {
		return 0, false
	}
	mask := t.size - 1
	for j := l.hash(key) & mask; ; j = (j + 1) & mask {
		v := t.at(j)
		if v == 0 {
			return 0, false
		}
		if l.str(k(&l.recs[v-1])) == key {
			return v - 1, true
		}
	}
}

// lookupAll returns every entry whose key is key (a table of several
// entries a key).
func (l *listing) lookupAll(t idTable, key string, k keyOf) []int32 {
	var out []int32
	if t.size == 0 {
		return out
	}
	mask := t.size - 1
	for j := l.hash(key) & mask; t.at(j) != 0; j = (j + 1) & mask {
		if v := t.at(j); l.str(k(&l.recs[v-1])) == key {
			out = append(out, v-1)
		}
	}
	return out
}

// tableSet puts entry i in t under its key (replacing an entry of the same
// key unless multi), growing t when it would be more than half full with
// live entries; t's own pages are changed in place, the others copied.
func (l *listing) tableSet(t idTable, i int32, k keyOf, live int, multi bool) idTable {
	if 2*uint64(live+1) > t.size {
		grown := newTable(2 * live)
		for j := uint64(0); j < t.size; j++ {
			if v := t.at(j); v != 0 {
				grown = l.tableSet(grown, v-1, k, 0, true)
			}
		}
		t = grown
	}
	key := l.str(k(&l.recs[i]))
	mask := t.size - 1
	for j := l.hash(key) & mask; ; j = (j + 1) & mask {
		v := t.at(j)
		if v == 0 || v == i+1 || (!multi && l.str(k(&l.recs[v-1])) == key) {
			t.put(j, i+1)
			return t
		}
	}
}

// tableDelete removes entry i from t when it is there under its key,
// shifting back the entries that probed past its slot (t's own pages are
// changed in place, the others copied).
func (l *listing) tableDelete(t idTable, i int32, k keyOf) {
	if t.size == 0 {
		return
	}
	key := l.str(k(&l.recs[i]))
	mask := t.size - 1
	j := l.hash(key) & mask
	for ; t.at(j) != i+1; j = (j + 1) & mask {
		if t.at(j) == 0 {
			return
		}
	}
	for {
		t.put(j, 0)
		n := j
		for {
			n = (n + 1) & mask
			if t.at(n) == 0 {
				return
			}
			home := l.hash(l.str(k(&l.recs[t.at(n)-1]))) & mask
			// t[n] stays when its home lies cyclically in (j, n]
			if j <= n {
				if j < home && home <= n {
					continue
				}
			} else if j < home || home <= n {
				continue
			}
			t.put(j, t.at(n))
			j = n
			break
		}
	}
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

// putText appends b to the slab and returns its span.
func (l *listing) putText(parts ...[]byte) span {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	l.text = grow(l.text, n, l.slack)
	s := span{off: uint32(len(l.text)), n: uint32(n)}
	for _, p := range parts {
		l.text = append(l.text, p...)
	}
	return s
}

// putString appends s to the slab and returns its span.
func (l *listing) putString(s string) span {
	l.text = grow(l.text, len(s), l.slack)
	sp := span{off: uint32(len(l.text)), n: uint32(len(s))}
	l.text = append(l.text, s...)
	return sp
}

// grow makes room for n more items past len(s), a 1/frac of its length
// spare: an append-only array is shared by the listings patched from one
// build (each writes only past the end the others know), and after a
// build grows by a sixteenth, not by doubling, so its spare capacity stays
// small in a heap this size.
func grow[T any](s []T, n, frac int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	out := make([]T, len(s), len(s)+n+max(64, len(s)/frac))
	copy(out, s)
	return out
}

// tight is s without more than a sixteenth of spare capacity.
func tight[T any](s []T) []T {
	if cap(s)-len(s) <= max(64, len(s)/16) {
		return s
	}
	return append(make([]T, 0, len(s)+len(s)/32), s...)
}

// tighten ends a build: the arrays lose the build's spare capacity, and
// grow by a sixteenth from now on.
func (l *listing) tighten() {
	l.recs, l.text, l.svcs = tight(l.recs), tight(l.text), tight(l.svcs)
	l.slack = 16
}
