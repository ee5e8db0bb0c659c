package ratelimit

import (
	"sync"
	"testing"
	"time"
)

// Reserve counts atomically: of many parallel reservations exactly Max
// pass; a cancelled one frees its place; old events leave the window.
func TestWindowReserve(t *testing.T) {
	w := NewWindow(10, time.Minute)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w.now = func() time.Time { return now }
	var (
		mu   sync.Mutex
		ok   int
		last Reservation
		wg   sync.WaitGroup
	)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _, passed := w.Reserve("k")
			if passed {
				mu.Lock()
				ok++
				last = r
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 10 {
		t.Fatalf("%d of 100 parallel reservations passed, want 10", ok)
	}
	if blocked, wait := w.Blocked("k"); !blocked || wait != time.Minute {
		t.Fatalf("blocked %v wait %v", blocked, wait)
	}
	last.Cancel()
	if _, _, passed := w.Reserve("k"); !passed {
		t.Fatal("a cancelled reservation did not free its place")
	}
	if _, _, passed := w.Reserve("other"); !passed {
		t.Fatal("another key is limited")
	}
	now = now.Add(time.Minute)
	if _, _, passed := w.Reserve("k"); !passed {
		t.Fatal("events older than the window still count")
	}
	w.Reset("k")
	if blocked, _ := w.Blocked("k"); blocked {
		t.Fatal("reset key still blocked")
	}
}
