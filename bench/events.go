package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// eventsResult is the live-events scenario.
type eventsResult struct {
	Available bool
	Note      string
	Streams   int // streams open when the messages were posted
	Sent      int // messages acknowledged (201)
	Received  int // of which seen on the recipient's stream
	Foreign   int // a stream saw a message meant for another user
	P50, P99  time.Duration
	Max       time.Duration
	Listing   *result // the listing load running meanwhile
	PostP99   time.Duration
}

// runEvents opens one /api/events stream per stream user, then runs the
// listing load while posting messages (as the job's client) to the
// stream users in turn, measuring post start → arrival on the recipient's
// stream.
func runEvents(r *report, svc *service, ds *dataset, listing func() *http.Request) *eventsResult {
	out := &eventsResult{}
	if len(ds.Streams) == 0 {
		out.Note = "no stream users in this data set"
		return out
	}
	probe := newClient(2)
	ctxProbe, cancelProbe := context.WithTimeout(context.Background(), 3*time.Second)
	req := cookieGet(svc.base, "/api/events", ds.Streams[0].Cookie).WithContext(ctxProbe)
	res, err := probe.Do(req)
	if err != nil {
		cancelProbe()
		out.Note = "probe: " + err.Error()
		return out
	}
	status, ctype := res.StatusCode, res.Header.Get("Content-Type")
	res.Body.Close()
	cancelProbe()
	if status != http.StatusOK || !strings.HasPrefix(ctype, "text/event-stream") {
		out.Note = fmt.Sprintf("not available (GET /api/events answered %d %s)", status, ctype)
		fmt.Printf("%-20s %s\n", "events", out.Note)
		return out
	}
	if st, _ := once(probe, cookieJSON(http.MethodPost, svc.base, "/api/jobs/"+ds.Streams[0].Job+"/messages", ds.Streams[0].PosterCookie, map[string]any{})); st == http.StatusNotFound || st == http.StatusMethodNotAllowed {
		out.Note = "not available (no messages route to post to)"
		return out
	}

	// Open the streams.
	streamClient := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 16, DisableCompression: true}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu      sync.Mutex
		arrived = map[string]time.Time{}
		owner   = map[string]int{} // marker → stream index expected
		foreign atomic.Int64
		open    atomic.Int64
		wg      sync.WaitGroup
	)
	for i, su := range ds.Streams {
		wg.Add(1)
		go func(i int, cookie string) {
			defer wg.Done()
			req := cookieGet(svc.base, "/api/events", cookie).WithContext(ctx)
			req.Header.Set("Accept", "text/event-stream")
			res, err := streamClient.Do(req)
			if err != nil {
				return
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				return
			}
			open.Add(1)
			defer open.Add(-1)
			sc := bufio.NewScanner(res.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			event := ""
			for sc.Scan() {
				line := sc.Text()
				switch {
				case strings.HasPrefix(line, "event:"):
					event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
				case strings.HasPrefix(line, "data:") && event == "message":
					data := line
					if k := strings.Index(data, "bench-evt-"); k >= 0 {
						marker := data[k:]
						if e := strings.IndexAny(marker, `" \`); e > 0 {
							marker = marker[:e]
						}
						now := time.Now()
						mu.Lock()
						if want, ok := owner[marker]; ok && want != i {
							foreign.Add(1)
						} else if _, seen := arrived[marker]; !seen {
							arrived[marker] = now
						}
						mu.Unlock()
					}
				case line == "":
					event = ""
				}
			}
		}(i, su.Cookie)
	}
	deadline := time.Now().Add(60 * time.Second)
	for open.Load() < int64(len(ds.Streams)) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	out.Streams = int(open.Load())
	fmt.Printf("%-20s %d streams open\n", "events", out.Streams)

	// Post messages at a steady pace while the listing load runs.
	posted := map[string]time.Time{}
	var postLat []time.Duration
	postClient := newClient(8)
	loadDone := make(chan *result)
	go func() { loadDone <- load(newClient(r.Cfg.Conns), r.Cfg.Conns, r.Cfg.Duration, listing) }()
	stop := time.Now().Add(r.Cfg.Duration - 500*time.Millisecond)
	var pmu sync.Mutex
	var pwg sync.WaitGroup
	tick := time.NewTicker(20 * time.Millisecond) // 50 messages/s
	for n := 0; time.Now().Before(stop); n++ {
		<-tick.C
		i := (n * 7) % len(ds.Streams)
		su := ds.Streams[i]
		marker := fmt.Sprintf("bench-evt-%d", n)
		mu.Lock()
		owner[marker] = i
		mu.Unlock()
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			t0 := time.Now()
			res, err := postClient.Do(cookieJSON(http.MethodPost, svc.base, "/api/jobs/"+su.Job+"/messages", su.PosterCookie, map[string]any{"body": "Llego en 10 minutos " + marker}))
			if err != nil {
				return
			}
			res.Body.Close()
			if res.StatusCode == http.StatusCreated {
				pmu.Lock()
				posted[marker] = t0
				postLat = append(postLat, time.Since(t0))
				pmu.Unlock()
			}
		}()
	}
	tick.Stop()
	pwg.Wait()
	out.Listing = <-loadDone
	out.Listing.Name = "listing (during events)"
	time.Sleep(2 * time.Second) // stragglers
	cancel()
	wg.Wait()

	var lat []time.Duration
	mu.Lock()
	for m, t0 := range posted {
		if t, ok := arrived[m]; ok {
			lat = append(lat, t.Sub(t0))
		}
	}
	mu.Unlock()
	received := len(lat)
	for k := received; k < len(posted); k++ {
		lat = append(lat, time.Hour) // never arrived: counts as the slowest
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	sort.Slice(postLat, func(i, j int) bool { return postLat[i] < postLat[j] })
	out.Available = true
	out.Sent, out.Received, out.Foreign = len(posted), received, int(foreign.Load())
	out.P50, out.P99 = percentile(lat, 0.5), percentile(lat, 0.99)
	if received > 0 {
		out.Max = lat[received-1]
	}
	out.PostP99 = percentile(postLat, 0.99)
	fmt.Printf("%-20s %d sent, %d received (foreign %d), latency p50 %s p99 %s max %s; listing meanwhile %.0f req/s p99 %s\n", "events",
		out.Sent, out.Received, out.Foreign, out.P50, out.P99, out.Max, out.Listing.RPS, out.Listing.P99)
	return out
}
