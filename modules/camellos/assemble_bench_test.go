package camellos

import (
	"fmt"
	"maps"
	"testing"
)

// BenchmarkAssemble100k is the in-memory part of a build and of a patch
// of the listing index at 100,000 camellos (50 cities, 300 services, 1–3
// services each).
func BenchmarkAssemble100k(b *testing.B) {
	services := map[string]*serviceRef{}
	var refs []*serviceRef
	for i := 0; i < 300; i++ {
		s := &serviceRef{ServiceSummary: ServiceSummary{ID: fmt.Sprintf("svc%012d", i)}, category: fmt.Sprintf("cat%d", i%30)}
		services[s.ID] = s
		refs = append(refs, s)
	}
	entries := make([]*entry, 100_000)
	for i := range entries {
		en := &entry{id: fmt.Sprintf("cam%012d", len(entries)-i), user: fmt.Sprintf("usr%012d", i), cityKey: fmt.Sprintf("ciudad %d", i%50)}
		for k := 0; k <= i%3; k++ {
			en.services = append(en.services, refs[(i*7+k*13)%300])
		}
		entries[i] = en
	}
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			assemble(entries, services, nil)
		}
	})
	// A patch without its SQL: one camello leaves its place and comes back
	// elsewhere (another rating), copy on write.
	l := assemble(entries, services, nil)
	b.Run("patch", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			old := l.entries[(i*7919)%len(l.entries)]
			i++
			moved := *old
			moved.rating += 0.5
			n := &listing{entries: l.entries, byID: maps.Clone(l.byID), byUser: maps.Clone(l.byUser),
				services: l.services, slugs: l.slugs, byCity: maps.Clone(l.byCity), byService: maps.Clone(l.byService),
				byCategory: maps.Clone(l.byCategory), byCityService: maps.Clone(l.byCityService)}
			n.place(old, false)
			n.place(&moved, true)
			if len(n.entries) != len(l.entries) {
				b.Fatal("lost an entry")
			}
		}
	})
}
