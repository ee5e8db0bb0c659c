package e2e_test

import (
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"
)

// spentOn sums, with E2E_TIMING=1, the time the suite's helpers take
// (printed after the run): where the suite's time goes.
var spentOn = struct {
	sync.Mutex
	d    map[string]time.Duration
	n    map[string]int
	slow []string
}{d: map[string]time.Duration{}, n: map[string]int{}}

var timing = os.Getenv("E2E_TIMING") != ""

func spent(what string, since time.Time) {
	if !timing {
		return
	}
	spentOn.Lock()
	spentOn.d[what] += time.Since(since)
	spentOn.n[what]++
	spentOn.Unlock()
}

// slowWait notes, with E2E_TIMING=1, a wait of more than a second.
func slowWait(t *testing.T, what string, start time.Time) {
	if d := time.Since(start); timing && d > time.Second {
		spentOn.Lock()
		spentOn.slow = append(spentOn.slow, fmt.Sprintf("%5.1fs %s: %s", d.Seconds(), t.Name(), what))
		spentOn.Unlock()
	}
}

func printTiming() {
	if !timing {
		return
	}
	keys := make([]string, 0, len(spentOn.d))
	for k := range spentOn.d {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return spentOn.d[keys[i]] > spentOn.d[keys[j]] })
	for _, k := range keys {
		fmt.Printf("e2e timing: %-16s %8.1fs %5d calls\n", k, spentOn.d[k].Seconds(), spentOn.n[k])
	}
	sort.Sort(sort.Reverse(sort.StringSlice(spentOn.slow)))
	for _, w := range spentOn.slow {
		fmt.Println("e2e slow wait:", w)
	}
}
