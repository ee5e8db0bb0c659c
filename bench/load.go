package main

import (
	"context"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"
)

// result is one load scenario's (or one class of requests') measurement.
type result struct {
	Name      string
	Available bool
	Note      string
	Requests  int
	Errors    int
	Statuses  map[int]int
	RPS       float64
	P50, P99  time.Duration
	Max       time.Duration
}

// op is one request of a load: its class (reads and writes of a mixed
// load are counted apart), the statuses that count as success (default:
// below 400) and what to do with the answer.
type op struct {
	req   *http.Request
	class string
	ok    func(status int) bool
	done  func(status int, body []byte)
}

// gen makes worker w's next request.
type gen func(w int) op

type tally struct {
	lat      []time.Duration
	statuses map[int]int
	errs     int
}

// loadOps runs conns workers for d, each sending gen(w) in a loop (closed
// loop), and returns a result per class.
func loadOps(client *http.Client, conns int, d time.Duration, next gen) map[string]*result {
	var mu sync.Mutex
	all := map[string]*tally{}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			local := map[string]*tally{}
			for ctx.Err() == nil {
				o := next(w)
				if o.req == nil {
					time.Sleep(time.Millisecond)
					continue
				}
				t := local[o.class]
				if t == nil {
					t = &tally{statuses: map[int]int{}}
					local[o.class] = t
				}
				t0 := time.Now()
				resp, err := client.Do(o.req)
				if err != nil {
					t.errs++
					continue
				}
				var body []byte
				if o.done != nil {
					body, _ = io.ReadAll(resp.Body)
				} else {
					_, _ = io.Copy(io.Discard, resp.Body)
				}
				resp.Body.Close()
				t.lat = append(t.lat, time.Since(t0))
				t.statuses[resp.StatusCode]++
				good := resp.StatusCode < 400
				if o.ok != nil {
					good = o.ok(resp.StatusCode)
				}
				if !good {
					t.errs++
				}
				if o.done != nil {
					o.done(resp.StatusCode, body)
				}
			}
			mu.Lock()
			for k, t := range local {
				a := all[k]
				if a == nil {
					a = &tally{statuses: map[int]int{}}
					all[k] = a
				}
				a.lat = append(a.lat, t.lat...)
				for s, n := range t.statuses {
					a.statuses[s] += n
				}
				a.errs += t.errs
			}
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	out := map[string]*result{}
	for k, t := range all {
		out[k] = summarize(k, t.lat, elapsed, t.statuses, t.errs)
	}
	return out
}

func summarize(name string, lat []time.Duration, elapsed time.Duration, statuses map[int]int, errs int) *result {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	res := &result{Name: name, Available: true, Requests: len(lat), Statuses: statuses, Errors: errs}
	if elapsed > 0 {
		res.RPS = float64(len(lat)) / elapsed.Seconds()
	}
	if len(lat) > 0 {
		res.P50 = lat[len(lat)/2]
		res.P99 = lat[len(lat)*99/100]
		res.Max = lat[len(lat)-1]
	}
	return res
}

// load is loadOps with one class of requests.
func load(client *http.Client, conns int, d time.Duration, next func() *http.Request) *result {
	res := loadOps(client, conns, d, func(int) op { return op{req: next(), class: "all"} })["all"]
	if res == nil {
		res = &result{Available: true, Statuses: map[int]int{}}
	}
	return res
}

// percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)) * p)
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}
