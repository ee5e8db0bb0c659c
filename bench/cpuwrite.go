package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on Linux whatever the kernel's own tick).
const clockTick = 10 * time.Millisecond

// writeCPUTarget is issue 27's goal for the service's CPU per API write.
const writeCPUTarget = 800 * time.Microsecond

// cpuTime is the service's CPU time so far (user + system, every thread),
// or -1 when /proc cannot tell.
func (s *service) cpuTime() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return -1
	}
	// The fields after the command name (which may hold spaces) start at
	// field 3; utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(u+st) * clockTick
}

// writeCPU is the service's CPU time per answered write of one class (or
// "all": the write-only load with every class in turn).
type writeCPU struct {
	Class  string
	Writes int // answered with a success status
	Errors int
	CPU    time.Duration // the service's CPU over the load
	Took   time.Duration
}

// Per is the CPU per write.
func (c writeCPU) Per() time.Duration {
	if c.Writes == 0 {
		return 0
	}
	return c.CPU / time.Duration(c.Writes)
}

// measureCPU runs load and returns the service's CPU over it per write.
func measureCPU(svc *service, class string, load func() map[string]*result) writeCPU {
	t0, c0 := time.Now(), svc.cpuTime()
	res := load()
	out := writeCPU{Class: class, CPU: svc.cpuTime() - c0, Took: time.Since(t0)}
	if c0 < 0 {
		out.CPU = -1
	}
	for _, v := range res {
		out.Errors += v.Errors
		for st, n := range v.Statuses {
			if st < 400 {
				out.Writes += n
			}
		}
	}
	return out
}

// runWriteCPU measures the CPU per write of each class alone, one load of
// d each after the other on wr's lanes (the write-only and mixed loads'
// writer, so slots and open jobs are not reused): bookings, jobs,
// messages, quotes kept unaccepted, then the accepts of those quotes.
// With profileDir, a CPU profile of the service per class (write-CLASS).
func runWriteCPU(client *http.Client, svc *service, wr *writer, conns int, d time.Duration, profileDir string) []writeCPU {
	var out []writeCPU
	has := map[string]bool{}
	for _, k := range wr.kinds {
		has[k] = true
	}
	type held struct {
		id   string
		lane int
	}
	var mu sync.Mutex
	var quotes []held
	for _, class := range []string{"booking", "job", "message", "quote", "accept"} {
		if !has[class] {
			continue
		}
		next := func(w int) op { return wr.kindOp(w, class) }
		switch class {
		case "quote": // keep each quote for the accept load
			next = func(w int) op {
				o := wr.kindOp(w, "quote")
				if o.done != nil {
					done := o.done
					o.done = func(st int, body []byte) {
						done(st, body)
						if id := wr.pending[w]; id != "" {
							wr.pending[w] = ""
							mu.Lock()
							quotes = append(quotes, held{id, w % len(wr.ds.Lanes)})
							mu.Unlock()
						}
					}
				}
				return o
			}
		case "accept":
			next = func(int) op {
				mu.Lock()
				defer mu.Unlock()
				if len(quotes) == 0 {
					return op{}
				}
				q := quotes[0]
				quotes = quotes[1:]
				return op{class: "accept", req: cookieJSON(http.MethodPost, wr.base, "/api/quotes/"+q.id+"/accept", wr.ds.Lanes[q.lane].ClientCookie, map[string]any{})}
			}
		}
		var prof chan []byte
		if profileDir != "" {
			prof = profileAsync(svc.pprof, d-time.Second)
		}
		c := measureCPU(svc, class, func() map[string]*result { return loadOps(client, conns, d, next) })
		if prof != nil {
			saveProfile(profileDir, "write-"+class, <-prof)
		}
		out = append(out, c)
		fmt.Printf("%-20s %-8s %6d writes, CPU %s (%s a write)\n", "write CPU", class, c.Writes, c.CPU, c.Per().Round(time.Microsecond))
	}
	return out
}

// writeCPUGoals are the goal rows of the CPU per write: all classes in
// turn (the write-only load), then each class alone.
func (r *report) writeCPUGoals() []goal {
	w := r.Writes
	if w == nil || len(w.CPU) == 0 {
		return []goal{{what: "CPU time per API write", target: "≤ 0.8 ms", missing: true}}
	}
	var out []goal
	for _, c := range w.CPU {
		what := "CPU time per API write: " + c.Class + " alone"
		if c.Class == "all" {
			what = "CPU time per API write, write-only load (every class in turn)"
		}
		g := goal{what: what, target: "≤ 0.8 ms"}
		if c.CPU < 0 || c.Writes == 0 {
			g.missing = true
			g.note = "no CPU reading or no write answered"
		} else {
			g.value = fmt.Sprintf("%.3f ms (%d writes, %s of CPU)", float64(c.Per().Nanoseconds())/1e6, c.Writes, c.CPU.Round(10*time.Millisecond))
			g.ok = c.Per() <= writeCPUTarget
		}
		out = append(out, g)
	}
	return out
}

// writeCPUTable is the report's section on the CPU per write.
func (r *report) writeCPUTable() string {
	w := r.Writes
	if w == nil || len(w.CPU) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### CPU time per API write\n\nThe service's own CPU (user + system time of its process, `/proc/PID/stat`) over a load, "+
		"divided by the writes it answered with success: the write-only load above (every class in turn), then each class alone for %s on the same lanes "+
		"(quotes left unaccepted, then their accepts). The bench's client (the parent process) is not counted.\n\n", r.Cfg.Duration/2)
	fmt.Fprintf(&b, "| load | writes | errors | CPU | CPU per write | target |\n|---|---:|---:|---:|---:|---:|\n")
	for _, c := range w.CPU {
		per := "—"
		if c.CPU >= 0 && c.Writes > 0 {
			per = fmt.Sprintf("%.3f ms", float64(c.Per().Nanoseconds())/1e6)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | ≤ 0.8 ms |\n", c.Class, c.Writes, c.Errors, c.CPU.Round(10*time.Millisecond), per)
	}
	return b.String()
}
