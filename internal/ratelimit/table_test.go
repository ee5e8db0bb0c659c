package ratelimit_test

import (
	"bufio"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"camellos/internal/ratelimit"
	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// quotaWorld is a running service with the quota table on: a client, an
// ACTIVO camello offering a service, another camello and a stranger.
type quotaWorld struct {
	*testkit.Parties
	service  *core.Record
	otherCam *core.Record
}

// quotaCase builds, for one row of the table, the requests a caller
// repeats on its route: call(i) is the i-th one (0-based). Requests under
// the limit must pass it (never 429; 2xx when the row counts successes
// only, 4xx when it counts failures only).
type quotaCase func(t *testing.T, w *quotaWorld) (call func(i int) testkit.Req)

var quotaCases = map[string]quotaCase{
	"password": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/auth/login",
				Body: map[string]any{"email": fmt.Sprintf("nadie%d@example.com", i), "password": "no-es-la-clave"}}
		}
	},
	"cron": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// The right bearer is never counted: it passes as often as it comes.
		for i := 0; i < 3; i++ {
			if r := w.K.Do(cronReq("Bearer secreto-del-cron")); r.Status != 200 {
				t.Fatalf("right bearer: %d %s", r.Status, r.Raw)
			}
		}
		return func(i int) testkit.Req { return cronReq(fmt.Sprintf("Bearer mal-%d", i)) }
	},
	"job": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs", Cookie: w.ClientCookie, Body: map[string]any{
				"title": fmt.Sprintf("Arreglo número %d", i), "serviceId": w.service.Id, "city": "Bogotá"}}
		}
	},
	"job.camello": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs", Cookie: w.ClientCookie, Body: map[string]any{
				"title": fmt.Sprintf("Solicitud número %d", i), "serviceId": w.service.Id, "city": "Bogotá", "camelloId": w.Camello.Id}}
		}
	},
	"quote": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		max := ratelimit.MaxOf(w.K.App, "quote")
		jobs := make([]string, max+1)
		for i := range jobs {
			jobs[i] = w.K.CreateJob(testkit.JobOpts{Client: w.Client, Service: w.service}).Id
		}
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + jobs[i] + "/quotes", Cookie: w.CamCookie,
				Body: map[string]any{"amount": 50000 + i}}
		}
	},
	"quote.job": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		job := w.K.CreateJob(testkit.JobOpts{Client: w.Client, Service: w.service}).Id
		return func(i int) testkit.Req {
			if i > 0 { // withdraw the last one, so the next one is a new quote
				r := w.K.Get("/api/jobs/"+job+"/quotes", w.CamCookie)
				id := r.Str("quotes.0.id")
				if r := w.K.Post("/api/quotes/"+id+"/withdraw", w.CamCookie, nil); r.Status != 200 {
					t.Fatalf("withdraw: %d %s", r.Status, r.Raw)
				}
			}
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + "/quotes", Cookie: w.CamCookie,
				Body: map[string]any{"amount": 50000 + i}}
		}
	},
	"message": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		job := w.Job("ASIGNADO").Id
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + "/messages", Cookie: w.ClientCookie,
				Body: map[string]any{"body": fmt.Sprintf("Mensaje %d", i)}}
		}
	},
	"review": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts (the first is the review, the next ones 409).
		job := w.Job("COMPLETADO").Id
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + "/review", Cookie: w.ClientCookie,
				Body: map[string]any{"rating": 5, "comment": "Muy bien"}}
		}
	},
	"booking": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts, booked or not (no availability here: 409).
		job := w.Job("ASIGNADO").Id
		return func(i int) testkit.Req {
			start := time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + "/appointments", Cookie: w.ClientCookie,
				Body: map[string]any{"start": start.Format(time.RFC3339)}}
		}
	},
	"reschedule": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts, moved or not.
		return func(i int) testkit.Req {
			start := time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			return testkit.Req{Method: "POST", Path: "/api/appointments/abcdefghijklmno/reschedule", Cookie: w.ClientCookie,
				Body: map[string]any{"start": start.Format(time.RFC3339)}}
		}
	},
	"push": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		key, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		p256dh := base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes())
		auth := base64.RawURLEncoding.EncodeToString(make([]byte, 16))
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/notifications/push/subscribe", Cookie: w.ClientCookie,
				Body: map[string]any{"endpoint": fmt.Sprintf("https://push.example.com/s/%d", i),
					"keys": map[string]any{"p256dh": p256dh, "auth": auth}}}
		}
	},
	"push.sync": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every re-sync counts, the same subscription each time (an app open).
		key, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		p256dh := base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes())
		auth := base64.RawURLEncoding.EncodeToString(make([]byte, 16))
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/notifications/push/sync", Cookie: w.ClientCookie,
				Body: map[string]any{"endpoint": "https://push.example.com/s/sync", "keys": map[string]any{"p256dh": p256dh, "auth": auth}}}
		}
	},
	"whatsapp.code": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		return func(i int) testkit.Req {
			return testkit.Req{Method: "PUT", Path: "/api/notifications/whatsapp", Cookie: w.ClientCookie,
				Body: map[string]any{"phone": fmt.Sprintf("300 123 %04d", i)}}
		}
	},
	"whatsapp.confirm": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Wrong codes (no code was even asked for): every one counts.
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/notifications/whatsapp/confirm", Cookie: w.ClientCookie,
				Body: map[string]any{"code": fmt.Sprintf("%06d", i)}}
		}
	},
	"block": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts: block and unblock the camello in turn.
		job := w.Job("ASIGNADO").Id
		return func(i int) testkit.Req {
			if i%2 == 1 {
				return testkit.Req{Method: "DELETE", Path: "/api/jobs/" + job + "/blocks/" + w.CamUser.Id, Cookie: w.ClientCookie}
			}
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + "/blocks", Cookie: w.ClientCookie,
				Body: map[string]any{"userId": w.CamUser.Id}}
		}
	},
	"payment": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts (payments are not configured here: 503).
		job := w.Job("ASIGNADO").Id
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + "/payment", Cookie: w.ClientCookie}
		}
	},
	"payment.settle": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts (a job without a payment: 404).
		job := w.Job("COMPLETADO").Id
		paths := []string{"/payment/confirm", "/payment/dispute", "/payment/no-show"}
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/jobs/" + job + paths[i%3], Cookie: w.ClientCookie,
				Body: map[string]any{"reason": "El trabajo quedó mal hecho"}}
		}
	},
	"payment.admin": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Every attempt counts (nothing owed: 409).
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/admin/payouts/batches", Cookie: w.AdminCookie}
		}
	},
	"policy": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		return func(i int) testkit.Req {
			return testkit.Req{Method: "PUT", Path: "/api/me/cancellation-policy", Cookie: w.CamCookie,
				Body: map[string]any{"policy": []string{"FLEXIBLE", "MODERADA", "ESTRICTA"}[i%3]}}
		}
	},
	"webhook": func(t *testing.T, w *quotaWorld) func(int) testkit.Req {
		// Only refusals count (payments are not configured here: 503).
		return func(i int) testkit.Req {
			return testkit.Req{Method: "POST", Path: "/api/payments/webhook?data.id=" + strconv.Itoa(i) + "&type=payment",
				Body: map[string]any{"type": "payment"}}
		}
	},
}

func cronReq(auth string) testkit.Req {
	return testkit.Req{Method: "POST", Path: "/api/cron/appointment-reminders", Headers: map[string]string{"Authorization": auth}}
}

func newQuotaWorld(t *testing.T) *quotaWorld {
	t.Helper()
	t.Setenv("AUTH_IP_LIMIT", "5") // the quota table on (the password row: 5 a minute)
	t.Setenv("CRON_SECRET", "secreto-del-cron")
	t.Setenv("WEBPUSH_ALLOW_PRIVATE", "1") // no DNS look-ups of the test endpoints
	// WhatsApp on (its opt-in rows), toward a closed loopback port: the
	// codes queued are never sent anywhere.
	t.Setenv("WHATSAPP_TOKEN", "token-de-prueba")
	t.Setenv("WHATSAPP_PHONE_NUMBER_ID", "1234567890")
	t.Setenv("WHATSAPP_APP_SECRET", "secreto")
	t.Setenv("WHATSAPP_API_URL", "https://127.0.0.1:9")
	p := testkit.NewParties(t)
	w := &quotaWorld{Parties: p, service: p.K.CreateService()}
	_, w.Camello, w.CamCookie = p.K.CreateCamello(testkit.CamelloOpts{Services: []string{w.service.Id}})
	w.CamUser, _ = p.K.App.FindRecordById(users.Collection, w.Camello.GetString("user"))
	_, w.otherCam, _ = p.K.CreateCamello(testkit.CamelloOpts{Services: []string{w.service.Id}})
	return w
}

// TestQuotaTable walks the quota table: on each row's route, with a fresh
// service, the caller's requests up to the limit pass it, the next one is
// 429 in the envelope with the row's Spanish message and a Retry-After
// within the row's window; another caller is not affected. A row without
// a case here fails the test.
func TestQuotaTable(t *testing.T) {
	for _, q := range ratelimit.Table {
		t.Run(q.Name, func(t *testing.T) {
			if q.Held {
				testHeldQuota(t, q)
				return
			}
			build, ok := quotaCases[q.Name]
			if !ok {
				t.Fatalf("quota %q has no case in the table test", q.Name)
			}
			w := newQuotaWorld(t)
			max := ratelimit.MaxOf(w.K.App, q.Name)
			call := build(t, w)
			for i := 0; i < max; i++ {
				r := w.K.Do(call(i))
				switch {
				case r.Status == http.StatusTooManyRequests:
					t.Fatalf("request %d of %d refused: %s", i+1, max, r.Raw)
				case q.Count == ratelimit.CountSuccess && r.Status >= 400:
					t.Fatalf("request %d of %d: %d %s (only successes count: the case must succeed)", i+1, max, r.Status, r.Raw)
				case q.Count == ratelimit.CountFailure && r.Status < 400:
					t.Fatalf("request %d of %d: %d %s (only failures count: the case must fail)", i+1, max, r.Status, r.Raw)
				}
			}
			r := w.K.Do(call(max))
			expectRefusal(t, r, q)
			// Another caller (or, for the per-IP rows, a request counted
			// elsewhere) is not affected.
			if q.By == ratelimit.ByCaller {
				other := call(max)
				other.Cookie = w.StrangerCookie
				if q.Name == "quote" || q.Name == "quote.job" {
					_, _, other.Cookie = w.K.CreateCamello(testkit.CamelloOpts{Services: []string{w.service.Id}})
				}
				if r := w.K.Do(other); r.Status == http.StatusTooManyRequests {
					t.Fatalf("another caller refused: %s", r.Raw)
				}
			}
			if q.Name == "job.camello" {
				// The client may still ask another camello.
				r := w.K.Post("/api/jobs", w.ClientCookie, map[string]any{"title": "Otra solicitud", "serviceId": w.service.Id,
					"city": "Bogotá", "camelloId": w.otherCam.Id})
				testkit.Expect(t, r, http.StatusCreated, "")
			}
		})
	}
}

// expectRefusal checks the 429 of q: the envelope's message and a
// Retry-After of at least a second and at most the window.
func expectRefusal(t *testing.T, r *testkit.Response, q ratelimit.Quota) {
	t.Helper()
	testkit.Expect(t, r, http.StatusTooManyRequests, q.Msg)
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 || time.Duration(secs)*time.Second > q.Per+time.Second {
		t.Fatalf("Retry-After %q, want 1..%v", r.Header.Get("Retry-After"), q.Per)
	}
}

// testHeldQuota opens the row's limit of live streams at once: the next
// one is 429; once one closes, a new one is accepted.
func testHeldQuota(t *testing.T, q ratelimit.Quota) {
	if q.Routes[0] != "GET /api/events" {
		t.Fatalf("held quota %q has no case in the table test", q.Name)
	}
	w := newQuotaWorld(t)
	max := ratelimit.MaxOf(w.K.App, q.Name)
	open := func() (*http.Response, context.CancelFunc, error) { return openStream(w.K, w.ClientCookie) }
	var cancels []context.CancelFunc
	defer func() {
		for _, c := range cancels {
			c()
		}
	}()
	for i := 0; i < max; i++ {
		res, cancel, err := open()
		if err != nil {
			t.Fatal(err)
		}
		cancels = append(cancels, cancel)
		if res.StatusCode != 200 {
			t.Fatalf("stream %d of %d: %d", i+1, max, res.StatusCode)
		}
		line, _ := bufio.NewReader(res.Body).ReadString('\n')
		if !strings.HasPrefix(line, ": conectado") {
			t.Fatalf("stream %d: first line %q", i+1, line)
		}
	}
	r := w.K.Get("/api/events", w.ClientCookie)
	expectRefusal(t, r, q)
	// Another user's streams are their own.
	res, cancel, err := openStream(w.K, w.StrangerCookie)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("another user's stream: %v %v", err, res)
	}
	cancel()
	// A closed stream frees its place (the server notices the client left).
	cancels[0]()
	cancels = cancels[1:]
	deadline := time.Now().Add(2 * time.Minute) // only stops a hung test
	for {
		res, cancel, err := open()
		if err != nil {
			t.Fatal(err)
		}
		cancels = append(cancels, cancel)
		if res.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream never freed its place: %d", res.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openStream opens a live-event stream of the session cookie.
func openStream(k *testkit.Kit, cookie string) (*http.Response, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", k.URL+"/api/events", nil)
	req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie})
	res, err := k.Client.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return res, cancel, nil
}
