package notifications_test

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/pushtest"
	"camellos/internal/testkit"
	"camellos/modules/notifications"

	"github.com/pocketbase/pocketbase/tests"
)

// pushed is one request the test push service received.
type pushed struct {
	Path   string
	Header http.Header
	Body   []byte
	At     time.Time
}

// receiver is a real HTTPS push service on 127.0.0.1: it records every
// request and answers the scripted statuses in order (201 afterwards).
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	got      []pushed
	script   []int
	retryAft string        // Retry-After sent with 429/5xx answers
	gate     chan struct{} // when set, every answer waits until it is closed
}

func newReceiver(t *testing.T, script ...int) *receiver {
	r := &receiver{script: script}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, pushed{Path: req.URL.Path, Header: req.Header.Clone(), Body: body, At: time.Now()})
		status := http.StatusCreated
		if len(r.script) > 0 {
			status, r.script = r.script[0], r.script[1:]
		}
		ra, gate := r.retryAft, r.gate
		r.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-req.Context().Done():
			}
		}
		if ra != "" && (status == http.StatusTooManyRequests || status >= 500) {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) requests() []pushed {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]pushed(nil), r.got...)
}

// endpoint is a push endpoint URL on the receiver.
func (r *receiver) endpoint(name string) string { return r.srv.URL + "/push/" + name }

// fastRetries are the retry delays tests use (the service defaults to seconds).
var fastRetries = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}

// newKit boots the service with a push client that trusts the receiver's
// test certificate (WEBPUSH_ALLOW_PRIVATE=1: it listens on loopback);
// extra options adjust the app further.
func newKit(t *testing.T, r *receiver, extra ...testkit.Option) *testkit.Kit {
	t.Helper()
	t.Setenv("WEBPUSH_ALLOW_PRIVATE", "1") // the receiver is on loopback
	t.Setenv("AUTH_IP_LIMIT", "0")         // not about the limits (internal/ratelimit's table test is)
	opts := []testkit.Option{func(app *tests.TestApp) {
		o := notifications.Options{RetryDelays: fastRetries}
		if r != nil {
			o.HTTPClient = r.srv.Client()
		}
		notifications.SetOptions(app, o)
	}}
	return testkit.New(t, append(opts, extra...)...)
}

// withSMTP switches e-mail delivery on (the test app captures the mails).
func withSMTP(app *tests.TestApp) {
	app.Settings().SMTP.Enabled = true
	app.Settings().SMTP.Host = "127.0.0.1"
	app.Settings().SMTP.Port = 2525
}

// drain waits for the delivery queue of the kit's app to be empty.
func drain(t *testing.T, k *testkit.Kit) {
	t.Helper()
	if !notifications.WaitIdle(k.App, time.Minute) {
		t.Fatal("delivery queue did not drain")
	}
}

// browser is a user agent's push identity: its P-256 key pair and the
// 16-byte authentication secret, as PushManager.subscribe() makes them.
type browser struct {
	priv *ecdh.PrivateKey
	auth []byte
}

func newBrowser(t *testing.T) *browser {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	return &browser{priv: priv, auth: auth}
}

func (b *browser) p256dh() string {
	return base64.RawURLEncoding.EncodeToString(b.priv.PublicKey().Bytes())
}
func (b *browser) authB64() string { return base64.RawURLEncoding.EncodeToString(b.auth) }

// subscription is the JSON body of endpoint 9 for this browser.
func (b *browser) subscription(endpoint string) map[string]any {
	return map[string]any{"endpoint": endpoint, "keys": map[string]any{"p256dh": b.p256dh(), "auth": b.authB64()}}
}

// decrypt opens a Web Push message with this subscriber's keys, as a
// browser does (pushtest.Decrypt).
func (b *browser) decrypt(body []byte) ([]byte, error) { return pushtest.Decrypt(b.priv, b.auth, body) }

// vapid is the parsed Authorization header of a push request.
type vapid struct {
	Claims map[string]any
	Key    string // k=
}

// parseVAPID reads "vapid t=<jwt>, k=<key>" and verifies the ES256
// signature of the JWT with k.
func parseVAPID(t *testing.T, header string) vapid {
	t.Helper()
	if !strings.HasPrefix(header, "vapid ") {
		t.Fatalf("Authorization %q is not a vapid header", header)
	}
	var token, key string
	for _, part := range strings.Split(strings.TrimPrefix(header, "vapid "), ",") {
		part = strings.TrimSpace(part)
		switch {
		case strings.HasPrefix(part, "t="):
			token = strings.TrimPrefix(part, "t=")
		case strings.HasPrefix(part, "k="):
			key = strings.TrimPrefix(part, "k=")
		}
	}
	segs := strings.Split(token, ".")
	if len(segs) != 3 {
		t.Fatalf("JWT %q has %d segments", token, len(segs))
	}
	var head map[string]any
	rawHead, _ := base64.RawURLEncoding.DecodeString(segs[0])
	_ = json.Unmarshal(rawHead, &head)
	if head["alg"] != "ES256" {
		t.Fatalf("JWT alg = %v, want ES256", head["alg"])
	}
	rawClaims, err := base64.RawURLEncoding.DecodeString(segs[1])
	if err != nil {
		t.Fatalf("JWT claims: %v", err)
	}
	claims := map[string]any{}
	if err := json.Unmarshal(rawClaims, &claims); err != nil {
		t.Fatalf("JWT claims: %v", err)
	}
	pubRaw, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		t.Fatalf("k=: %v", err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pubRaw)
	if err != nil {
		t.Fatalf("k=: %v", err)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(segs[2])
	if len(sig) != 64 {
		t.Fatalf("signature length %d", len(sig))
	}
	digest := sha256.Sum256([]byte(segs[0] + "." + segs[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("VAPID JWT signature does not verify with k=")
	}
	return vapid{Claims: claims, Key: key}
}

// fieldIssues returns issues.fieldErrors[field], also for dotted field
// names such as "keys.p256dh" (which Response.FieldErrors would split).
func fieldIssues(res *testkit.Response, field string) []any {
	fe, _ := res.Get("issues.fieldErrors").(map[string]any)
	v, _ := fe[field].([]any)
	return v
}
