package hardening_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"camellos/hardening"
	"camellos/internal/config"
	"camellos/internal/mptest"
	"camellos/internal/testkit"
	"camellos/internal/watest"
	"camellos/modules/auth"
	"camellos/modules/mail"
	"camellos/modules/notifications"
	"camellos/modules/payments"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// Malformed bodies sent as application/json.
var rawBodies = []string{
	"{", "}", "[]", `"texto"`, "null", "123", "true", `{"a":`, `{"a" 1}`, "{}", `{"__proto__":{"admin":true}}`,
	"\xff\xfe\xfd", `{"name":"\xff\xfe"}`, "{\"name\":\"a\x00b\"}", `{"name":"\ud800"}`,
	strings.Repeat("[", 50000) + strings.Repeat("]", 50000),
	`{"a":` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5001),
	"[" + strings.Repeat(`1,`, 100000) + "1]",
	`{"name":"x","name":"y","name":{"z":1}}`,
}

// Values of the wrong type, out of range or at unicode edges, put in place
// of every field of a route's valid body.
var badValues = []any{
	123, -1, 0, 1.5, 1e300, -1e300, true, false, nil, []any{}, map[string]any{}, "", " ", "5", "true",
	strings.Repeat("a", 100_001), strings.Repeat("ñ", 121), strings.Repeat("😀", 300), strings.Repeat("a\u0301", 400),
	"\u0000", "\u202eevil\u202c", "\ufeff", "\u200b\u200d", "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd",
	"2026-02-30T25:61:00Z", "0000-00-00", "-0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
	[]any{1, "a", nil, []any{}}, []any{strings.Repeat("b", 10_000)}, map[string]any{"$gt": ""},
	make([]any, 10_000),
}

// Path ids that cannot be ids, or are unknown.
var badIDs = []string{
	"%00", "..%2F..%2Fetc%2Fpasswd", strings.Repeat("a", 51), "%C3%B1", "%27%20OR%201%3D1", "%F0%9F%98%80",
	strings.Repeat("x", 5000), "%20", "null", "undefined", "-1", "0", "a.b", "%2e%2e", "desconocido00000",
}

// Query strings with broken paging, ranges and text.
var badQueries = []string{
	"page=-1", "page=abc", "page=99999999999999999999999", "perPage=0", "perPage=1000000", "perPage=-5", "page=1.5",
	"from=ayer&to=mañana", "from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z", "from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z",
	"from=" + strings.Repeat("9", 400), "q=" + strings.Repeat("%C3%B1", 10000), "city=%00", "status=NOPE", "category=%27%20OR%201%3D1",
	"q=%FF%FE", "page=1&page=2&perPage=3&perPage=x", "a[]=1&a[b]=2", "service=" + strings.Repeat("s", 3000), "trade=%E2%80%AE",
	"role=ADMIN&status=PROGRAMADA",
}

var contentTypes = []string{"text/plain", "application/xml", "multipart/form-data; boundary=nada", "application/x-www-form-urlencoded", "application/json; charset=latin1"}

// bcryptBound routes check a password on (nearly) every call.
var bcryptBound = map[string]bool{"POST /api/auth/login": true}

type probe struct {
	desc    string
	role    hardening.Role
	call    hardening.Call
	path    string // overrides the expanded path
	raw     string // raw body (with contentType)
	ctype   string
	rawBody bool
}

// TestBadInputSweep throws thousands of malformed, oversized, wrongly typed
// and unicode-edge bodies, paths and query strings at every registered
// route: never a 5xx, always our envelope, and a refused request never
// changes a record.
func TestBadInputSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("long sweep")
	}
	t.Setenv("CRON_SECRET", "secreto-del-cron")
	// Bad input, not rate: the per-IP limit would answer most probes of the
	// password routes 429 (TestPasswordRoutesAreLimitedPerIP covers it).
	t.Setenv("AUTH_IP_LIMIT", "0")
	// Payments and WhatsApp on, toward their local servers: off, their
	// routes answer 503 by design (README) before reading any input, so
	// the sweep would probe nothing of them.
	mp, wa := mptest.New(t), watest.New(t)
	t.Setenv("MERCADOPAGO_ACCESS_TOKEN", mp.Token)
	t.Setenv("MERCADOPAGO_WEBHOOK_SECRET", mp.Secret)
	t.Setenv("MERCADOPAGO_API_URL", mp.URL)
	for k, v := range wa.Env() {
		t.Setenv(k, v)
	}
	routes := hardening.OwnedRoutes(t)
	w := hardening.NewWorld(t, func(app *tests.TestApp) {
		payments.SetHTTPClient(app, mp.Client())
		whatsapp.SetOptions(app, whatsapp.Options{HTTPClient: wa.Client()})
	})
	watch := hardening.NewWatch(t, w.K.App)
	before, err := watch.Fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	// Every route gets its sample of probes, whatever the machine's load
	// (a time budget used to leave the last routes unprobed on a busy
	// machine): an even spread over the route's probes from a seeded
	// offset, so each kind of bad input (raw bodies, content types, every
	// field, path ids, queries) is in it, and runs differ. CAMELLOS_LONG=1
	// sends every probe; CAMELLOS_SEED=N repeats a run's sample.
	perRoute, seed := sweepSample, sweepSeed(t)
	if config.Long() {
		perRoute = 0
	}
	total := 0
	for i, rt := range routes {
		exp, ok := hardening.Table[rt.Key()]
		if !ok {
			continue // the matrix reports it
		}
		probes := probesFor(w, rt, exp)
		if bcryptBound[rt.Key()] && len(probes) > 80 {
			// Every probe costs a bcrypt comparison: an even sample of 80.
			probes = spread(probes, 80, 0)
		}
		if perRoute > 0 {
			probes = spread(probes, perRoute, seed+int64(i))
		}
		// Building the valid call may create what the route acts on.
		if before, err = watch.Fingerprint(); err != nil {
			t.Fatal(err)
		}
		t.Run(rt.Key(), func(t *testing.T) {
			for _, p := range probes {
				cookie := w.Cookies[p.role]
				if p.call.FreshSession {
					cookie = w.Fresh(p.role)
					if before, err = watch.Fingerprint(); err != nil {
						t.Fatal(err)
					}
				}
				res := sendProbe(t, w, rt, p, cookie)
				total++
				if res.Status >= 500 && !(res.Status == http.StatusServiceUnavailable && strings.HasPrefix(rt.Path, "/api/cron/")) {
					t.Errorf("%s as %s: %d %s", p.desc, p.role, res.Status, clip(res.Raw))
				}
				if bad := hardening.CheckEnvelope(res); bad != "" && strings.HasPrefix(rt.Path, "/api/") {
					t.Errorf("%s as %s: %s", p.desc, p.role, bad)
				}
				after, err := watch.Fingerprint()
				if err != nil {
					t.Fatal(err)
				}
				if res.Status >= 400 {
					if changed := hardening.Changed(before, after); len(changed) > 0 {
						t.Errorf("%s as %s was refused %d but changed %v", p.desc, p.role, res.Status, changed)
					}
				} else if res.Status == http.StatusAccepted {
					after = settle(t, w, watch)
				}
				before = after
			}
		})
	}
	t.Logf("%d malformed requests sent (%d a route at most, 0: all; seed %d); tables read %d times for %d fingerprints",
		total, perRoute, seed, watch.Reads, watch.Calls)
}

// sweepSample is how many probes each route gets by default.
const sweepSample = 24

// sweepSeed is CAMELLOS_SEED, else the clock's (logged, so a failing
// sample can be sent again).
func sweepSeed(t *testing.T) int64 {
	if s := config.Switch(config.SwitchSeed); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("CAMELLOS_SEED=%q: %v", s, err)
		}
		return n
	}
	return time.Now().UnixNano() % 1_000_000
}

// spread keeps n of probes evenly spaced from an offset drawn from seed
// (all of them when there are at most n).
func spread(probes []probe, n int, seed int64) []probe {
	if len(probes) <= n {
		return probes
	}
	off := rand.New(rand.NewPCG(uint64(seed), 0)).IntN(len(probes))
	out := make([]probe, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, probes[(off+i*len(probes)/n)%len(probes)])
	}
	return out
}

// settle waits for asynchronous writes accepted by a 202 to land, so they
// are not blamed on the next request: the account work off the request
// (forgot password, verification), the deliveries and broadcasts, the
// WhatsApp and mail outboxes, each waited for by its own condition (a
// clock would measure the machine's load); then until the tables hold
// still between two readings, for work no condition names.
func settle(t *testing.T, w *hardening.World, watch *hardening.Watch) map[string]string {
	t.Helper()
	app := w.K.App
	auth.WaitBackground(app)
	for name, idle := range map[string]func(core.App, time.Duration) bool{
		"notifications": notifications.WaitIdle, "whatsapp": whatsapp.WaitIdle, "mail": mail.WaitIdle,
	} {
		if !idle(app, 2*time.Minute) { // only stops a hung test
			t.Fatalf("the %s queue never drained", name)
		}
	}
	prev, _ := watch.Fingerprint()
	for i := 0; i < 50; i++ {
		time.Sleep(20 * time.Millisecond)
		cur, _ := watch.Fingerprint()
		if len(hardening.Changed(prev, cur)) == 0 {
			return cur
		}
		prev = cur
	}
	return prev
}

func allowedRole(exp hardening.Expectation) hardening.Role {
	for i := len(hardening.Roles) - 1; i >= 0; i-- {
		if r := hardening.Roles[i]; exp.Outcome(r) == hardening.Allowed {
			if r == hardening.Admin && exp.Outcome(hardening.Client) == hardening.Allowed {
				return hardening.Client
			}
			return r
		}
	}
	return hardening.Anonymous
}

func probesFor(w *hardening.World, rt hardening.Route, exp hardening.Expectation) []probe {
	role := allowedRole(exp)
	var out []probe
	valid := exp.Build(w, role)
	hasBody := rt.Method != http.MethodGet
	if hasBody {
		for i, raw := range rawBodies {
			for _, r := range []hardening.Role{hardening.Anonymous, role} {
				out = append(out, probe{desc: fmt.Sprintf("raw body #%d", i), role: r, call: valid, raw: raw, ctype: "application/json", rawBody: true})
			}
		}
		oversized := `{"name":"` + strings.Repeat("x", 7<<20) + `"}`
		out = append(out, probe{desc: "7 MiB body", role: role, call: valid, raw: oversized, ctype: "application/json", rawBody: true})
		validJSON, _ := json.Marshal(valid.Body)
		if valid.Body == nil {
			validJSON = []byte("{}")
		}
		for _, ct := range contentTypes {
			out = append(out, probe{desc: "content type " + ct, role: role, call: valid, raw: string(validJSON), ctype: ct, rawBody: true})
		}
		fields, _ := valid.Body.(map[string]any)
		names := make([]string, 0, len(fields))
		for name := range fields {
			names = append(names, name)
		}
		sort.Strings(names)
		for f, name := range names {
			// A rotating third of the bad values per field keeps the sweep fast.
			for j := 0; j < len(badValues)/3; j++ {
				i := (f*len(badValues)/3 + j) % len(badValues)
				bad := badValues[i]
				b := clone(fields)
				b[name] = bad
				c := valid
				c.Body = b
				out = append(out, probe{desc: fmt.Sprintf("field %s = bad value #%d", name, i), role: role, call: c})
			}
		}
		for _, name := range []string{"name", "email", "title", "status", "role", "id", "query", "start", "camelloId", "serviceId"} {
			if _, ok := fields[name]; ok {
				continue
			}
			for i, bad := range badValues[:12] {
				b := clone(fields)
				b[name] = bad
				c := valid
				c.Body = b
				out = append(out, probe{desc: fmt.Sprintf("extra field %s = bad value #%d", name, i), role: role, call: c})
			}
		}
	}
	if strings.Contains(rt.Path, "{") {
		for _, id := range badIDs {
			p := strings.NewReplacer("{id}", id, "{slug}", id, "{path...}", id, "{token}", id, "{userId}", id).Replace(rt.Path)
			for _, r := range []hardening.Role{hardening.Anonymous, role} {
				out = append(out, probe{desc: "path " + clipS(id), role: r, call: valid, path: p})
			}
		}
	}
	for _, q := range badQueries {
		c := valid
		c.Query = q
		out = append(out, probe{desc: "query " + clipS(q), role: role, call: c})
	}
	return out
}

func sendProbe(t *testing.T, w *hardening.World, rt hardening.Route, p probe, cookie string) *testkit.Response {
	t.Helper()
	path := p.path
	if path == "" {
		path = w.ExpandID(rt.Path, p.call.ID)
	}
	if p.call.Query != "" {
		path += "?" + p.call.Query
	}
	path = hardening.WithStreamQuery(rt, path)
	req := testkit.Req{Method: rt.Method, Path: path, Cookie: cookie}
	if p.rawBody {
		req.Body = p.raw
		req.Headers = map[string]string{"Content-Type": p.ctype}
	} else if p.call.Body != nil {
		req.Body = p.call.Body
	}
	if len(p.raw) > 1<<20 {
		// An oversized body is refused before it is read: announce it with
		// Expect: 100-continue so the refusal arrives before the bytes, on a
		// connection of its own.
		k := *w.K
		k.Client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, ExpectContinueTimeout: 5 * time.Second}}
		req.Headers["Expect"] = "100-continue"
		return k.Do(req)
	}
	return w.K.Do(req)
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func clipS(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
