package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

const (
	floodConns   = 200
	observeConns = 8
)

// floodResult is the password flood scenario.
type floodResult struct {
	Health, Listing     *result // during the flood
	HealthQ, ListingQ   *result // the same observers without the flood
	Logins              int64
	LoginRPS            float64
	LoginStatuses       map[int]int
	FloodConns, Observe int
}

// runFlood measures health and listing (observeConns connections each, one
// after the other) while floodConns connections send wrong-password
// logins as fast as they are answered, rotating over the clients' e-mails;
// then the same observers without the flood.
func runFlood(r *report, svc *service, ds *dataset, listing func() *http.Request) *floodResult {
	out := &floodResult{LoginStatuses: map[int]int{}, FloodConns: floodConns, Observe: observeConns}
	d := r.Cfg.Duration
	health := func() *http.Request { return cookieGet(svc.base, "/api/health", "") }

	out.HealthQ = load(newClient(observeConns), observeConns, d/2, health)
	out.ListingQ = load(newClient(observeConns), observeConns, d/2, listing)

	floodClient := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxConnsPerHost: floodConns, MaxIdleConnsPerHost: floodConns}}
	ctx, cancel := context.WithCancel(context.Background())
	var seq, logins atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	clients := ds.Size.Clients
	for i := 0; i < floodConns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[int]int{}
			for ctx.Err() == nil {
				n := int(seq.Add(1))
				req := cookieJSON(http.MethodPost, svc.base, "/api/auth/login", "", map[string]any{
					"email": fmt.Sprintf("cliente%d@example.com", 1000+n%(clients-1000)), "password": "contraseña-equivocada"})
				req = req.WithContext(ctx)
				res, err := floodClient.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				local[res.StatusCode]++
				logins.Add(1)
			}
			mu.Lock()
			for k, v := range local {
				out.LoginStatuses[k] += v
			}
			mu.Unlock()
		}()
	}
	time.Sleep(time.Second) // the flood is on
	out.Health = load(newClient(observeConns), observeConns, d, health)
	out.Listing = load(newClient(observeConns), observeConns, d, listing)
	cancel()
	wg.Wait()
	out.Logins = logins.Load()
	out.LoginRPS = float64(out.Logins) / time.Since(start).Seconds()
	fmt.Printf("%-20s %d logins (%.0f/s) %v; health p99 %s (quiet %s), listing p99 %s (quiet %s)\n", "flood", out.Logins, out.LoginRPS, out.LoginStatuses,
		out.Health.P99, out.HealthQ.P99, out.Listing.P99, out.ListingQ.P99)
	return out
}
