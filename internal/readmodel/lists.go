package readmodel

import (
	"maps"
	"slices"
	"sort"
)

// The packed projections (the listing, the open board) keep their entries
// in append-only arrays shared by successive snapshots and list them as
// int32 positions, each list ordered by its own comparison: these are the
// helpers both use.

// Reorder is a copy of list (ordered by cmp) without the entries gone and
// with the entries back in their places, made in one pass (one copy
// however many change). An entry of gone not in list is ignored.
func Reorder(list, gone, back []int32, cmp func(a, b int32) int) []int32 {
	type cut struct {
		at   int
		drop bool
		i    int32
	}
	cuts := make([]cut, 0, len(gone)+len(back))
	for _, i := range gone {
		k := sort.Search(len(list), func(k int) bool { return cmp(list[k], i) >= 0 })
		if k < len(list) && list[k] == i {
			cuts = append(cuts, cut{k, true, i})
		}
	}
	for _, i := range back {
		cuts = append(cuts, cut{sort.Search(len(list), func(k int) bool { return cmp(list[k], i) >= 0 }), false, i})
	}
	// by place; at one place, the entries back (in order) before the
	// entry there leaves
	slices.SortFunc(cuts, func(a, b cut) int {
		switch {
		case a.at != b.at:
			return a.at - b.at
		case a.drop != b.drop:
			if a.drop {
				return 1
			}
			return -1
		}
		return cmp(a.i, b.i)
	})
	out := make([]int32, 0, len(list)+len(back))
	from := 0
	for _, c := range cuts {
		out = append(out, list[from:c.at]...)
		from = c.at
		if c.drop {
			from++
		} else {
			out = append(out, c.i)
		}
	}
	return append(out, list[from:]...)
}

// Grow makes room for n more items past len(s), a 1/frac of its length
// spare. An append-only array is shared by the snapshots patched from one
// build: each patch derives from the newest (Snapshot.Update is serial)
// and writes only past the end the older ones know. After a build an
// array grows by a small fraction, not by doubling, so its spare capacity
// stays small in a heap this size.
func Grow[T any](s []T, n, frac int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	out := make([]T, len(s), len(s)+n+max(64, len(s)/frac))
	copy(out, s)
	return out
}

// Tight is s without more than a sixteenth of spare capacity (the end of
// a build).
func Tight[T any](s []T) []T {
	if cap(s)-len(s) <= max(64, len(s)/16) {
		return s
	}
	return append(make([]T, 0, len(s)+len(s)/32), s...)
}

// Intern returns the index of key in an append-only list and its map,
// adding val (the map copied first when copyMap is set: a patch, whose
// snapshot shares the map with the one before).
func Intern[T any](list *[]T, idx *map[string]uint32, key string, val T, copyMap bool) uint32 {
	if i, ok := (*idx)[key]; ok {
		return i
	}
	if copyMap {
		*idx = maps.Clone(*idx)
	}
	*list = append(Grow(*list, 1, 16), val)
	i := uint32(len(*list) - 1)
	(*idx)[key] = i
	return i
}
