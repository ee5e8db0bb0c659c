package modules_test

import (
	"math"
	"runtime/debug"
	"testing"

	"camellos/modules"
)

// The service gives the Go runtime its soft memory limit from
// MEMORY_LIMIT_MB (none by default or with 0), and leaves the one of
// GOMEMLIMIT alone.
func TestMemoryLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	cases := []struct {
		name, limit, gomemlimit string
		want                    int64
	}{
		{"default", "", "", math.MaxInt64},
		{"set", "300", "", 300 << 20},
		{"off", "0", "", math.MaxInt64},
		{"GOMEMLIMIT wins", "300", "1GiB", math.MaxInt64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			debug.SetMemoryLimit(math.MaxInt64)
			t.Setenv("MEMORY_LIMIT_MB", c.limit)
			t.Setenv("GOMEMLIMIT", c.gomemlimit) // read at start by the runtime; here only by our config
			modules.New()
			if got := debug.SetMemoryLimit(-1); got != c.want {
				t.Fatalf("memory limit %d, want %d", got, c.want)
			}
		})
	}
}
