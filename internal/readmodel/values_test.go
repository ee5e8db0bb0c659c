package readmodel

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// The least recently read values go first when the cost passes MaxCost;
// a value heavier than MaxCost alone is built but not kept.
func TestValuesEvictsLeastRecentlyRead(t *testing.T) {
	c := &Values[string, int]{MaxCost: 10, Cost: func(v int) int64 { return int64(v) }}
	builds := map[string]int{}
	get := func(k string, v int) {
		t.Helper()
		got, _, err := c.Get(k, func() (int, bool, error) { builds[k]++; return v, true, nil })
		if err != nil || got != v {
			t.Fatalf("%s: %d %v", k, got, err)
		}
	}
	get("a", 4)
	get("b", 4)
	get("a", 4) // a is now the most recently read
	get("c", 4) // 12 > 10: b goes
	if n, cost := c.Len(); n != 2 || cost != 8 {
		t.Fatalf("len %d cost %d", n, cost)
	}
	get("a", 4)
	get("b", 4)
	if builds["a"] != 1 || builds["b"] != 2 {
		t.Fatalf("builds %v", builds)
	}
	get("big", 11)
	get("big", 11)
	if builds["big"] != 2 {
		t.Fatalf("a value over the bound was kept: %v", builds)
	}
	if _, cost := c.Len(); cost > 10 {
		t.Fatalf("cost %d over the bound", cost)
	}
}

// A build that raced a drop of its key is answered but not kept; one that
// failed is not kept either.
func TestValuesDropDuringBuild(t *testing.T) {
	c := &Values[string, string]{MaxCost: 100}
	v, _, _ := c.Get("k", func() (string, bool, error) {
		c.Drop("k") // a write commits while the build reads
		return "old", true, nil
	})
	if v != "old" {
		t.Fatalf("the builder gets its value: %q", v)
	}
	v, _, _ = c.Get("k", func() (string, bool, error) { return "new", true, nil })
	if v != "new" {
		t.Fatalf("a value built across a drop was kept: %q", v)
	}
	c.Get("j", func() (string, bool, error) {
		c.DropAll()
		return "old", true, nil
	})
	if v, _, _ := c.Get("j", func() (string, bool, error) { return "new", true, nil }); v != "new" {
		t.Fatalf("a value built across DropAll was kept: %q", v)
	}
	if _, _, err := c.Get("e", func() (string, bool, error) { return "", false, errors.New("boom") }); err == nil {
		t.Fatal("error lost")
	}
	if v, _, _ := c.Get("e", func() (string, bool, error) { return "ok", true, nil }); v != "ok" {
		t.Fatalf("after an error: %q", v)
	}
}

// Concurrent readers of one key share one build.
func TestValuesOneBuildPerKey(t *testing.T) {
	c := &Values[string, int]{MaxCost: 100}
	var mu sync.Mutex
	builds := 0
	started, release := make(chan struct{}), make(chan struct{})
	build := func() (int, bool, error) {
		mu.Lock()
		builds++
		mu.Unlock()
		close(started)
		<-release
		return 7, true, nil
	}
	var wg sync.WaitGroup
	read := func() {
		defer wg.Done()
		if v, _, err := c.Get("k", build); err != nil || v != 7 {
			t.Errorf("%d %v", v, err)
		}
	}
	wg.Add(8)
	go read()
	<-started
	for i := 0; i < 7; i++ {
		go read() // a second build would close started again and panic
	}
	close(release)
	wg.Wait()
	if builds != 1 {
		t.Fatalf("builds %d", builds)
	}
}

// Patch replaces a stored value (or drops it), makes a build in flight
// unusable and does nothing without a stored value.
func TestValuesPatch(t *testing.T) {
	c := &Values[string, int]{MaxCost: 100}
	c.Patch("k", func(v int) (int, bool) { t.Fatal("patched nothing"); return 0, true })
	c.Get("k", func() (int, bool, error) { return 1, true, nil })
	c.Patch("k", func(v int) (int, bool) { return v + 1, true })
	if v, _, _ := c.Get("k", func() (int, bool, error) { return 0, true, nil }); v != 2 {
		t.Fatalf("patched %d", v)
	}
	c.Patch("k", func(v int) (int, bool) { return 0, false })
	if v, _, _ := c.Get("k", func() (int, bool, error) { return 5, true, nil }); v != 5 {
		t.Fatalf("dropped by patch: %d", v)
	}
	c.Get("j", func() (int, bool, error) {
		c.Patch("j", func(v int) (int, bool) { return v, true })
		return 1, true, nil
	})
	if v, _, _ := c.Get("j", func() (int, bool, error) { return 9, true, nil }); v != 9 {
		t.Fatalf("a build across a patch was kept: %d", v)
	}
}

// DropWhere forgets exactly the values it picks, and a build in flight
// (its value unknown yet) is answered but not kept; MaxAge serves a value
// while it is younger than it, and builds an older one again.
func TestValuesDropWhereAndMaxAge(t *testing.T) {
	c := &Values[string, string]{MaxCost: 100}
	builds := map[string]int{}
	get := func(k, v string) string {
		got, _, _ := c.Get(k, func() (string, bool, error) { builds[k]++; return v, true, nil })
		return got
	}
	for _, k := range []string{"u1:a", "u1:b", "u2:a"} {
		get(k, "user "+k[:2])
	}
	c.DropWhere(func(_ string, v string) bool { return v == "user u1" })
	for _, k := range []string{"u1:a", "u1:b", "u2:a"} {
		get(k, "user "+k[:2])
	}
	if builds["u1:a"] != 2 || builds["u1:b"] != 2 || builds["u2:a"] != 1 {
		t.Fatalf("builds after DropWhere: %v", builds)
	}
	c.Get("f", func() (string, bool, error) {
		c.DropWhere(func(string, string) bool { return false }) // picks no stored value
		return "old", true, nil
	})
	if v := get("f", "new"); v != "new" {
		t.Fatalf("a value built across DropWhere was kept: %q", v)
	}

	for _, tc := range []struct {
		maxAge  time.Duration
		rebuilt bool
	}{{0, false}, {time.Hour, false}, {time.Nanosecond, true}} {
		c := &Values[string, int]{MaxCost: 10, MaxAge: tc.maxAge}
		n := 0
		build := func() (int, bool, error) { n++; return n, true, nil }
		c.Get("k", build)
		start := time.Now()
		for time.Since(start) <= tc.maxAge && tc.maxAge < time.Second { // a nanosecond passes
		}
		v, _, _ := c.Get("k", build)
		if rebuilt := v == 2; rebuilt != tc.rebuilt {
			t.Fatalf("MaxAge %v: got value %d (rebuilt %v, want %v)", tc.maxAge, v, rebuilt, tc.rebuilt)
		}
	}
}
