package apitest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/events"
	"camellos/modules/notifications"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// sseEvent is one frame read from a stream.
type sseEvent struct {
	ID, Name, Data string
	Comment        string
	At             time.Time
}

// client is an open event stream read in the background.
type client struct {
	res    *http.Response
	frames chan sseEvent
	done   chan struct{}
	cancel context.CancelFunc
}

func open(t *testing.T, k *testkit.Kit, cookie string, headers map[string]string, query string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, k.URL+"/api/events"+query, nil)
	req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: cookie})
	for h, v := range headers {
		req.Header.Set(h, v)
	}
	res, err := k.Client.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != 200 {
		cancel()
		t.Fatalf("stream: %d", res.StatusCode)
	}
	c := &client{res: res, frames: make(chan sseEvent, 100), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(c.done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Name != "" || ev.Comment != "" || ev.Data != "" {
					ev.At = time.Now()
					c.frames <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				ev.Comment = strings.TrimSpace(line[1:])
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[6:]
			}
		}
	}()
	t.Cleanup(c.close)
	return c
}

func (c *client) close() {
	c.cancel()
	<-c.done
}

// next returns the next event named name within d (heartbeats skipped).
func (c *client) next(t *testing.T, name string, d time.Duration) (sseEvent, bool) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-c.frames:
			if ev.Name == name {
				return ev, true
			}
		case <-deadline:
			return sseEvent{}, false
		case <-c.done:
			select {
			case ev := <-c.frames:
				if ev.Name == name {
					return ev, true
				}
				continue
			default:
			}
			return sseEvent{}, false
		}
	}
}

// ended reports whether the stream ended within d.
func (c *client) ended(d time.Duration) bool {
	select {
	case <-c.done:
		return true
	case <-time.After(d):
		return false
	}
}

func fast(app *tests.TestApp) {
	events.SetOptions(app, events.Options{Heartbeat: 100 * time.Millisecond, SessionCheck: 100 * time.Millisecond})
}

// world: an open job of a client with a quote of a camello.
type world struct {
	k               *testkit.Kit
	client, camUser *core.Record
	clientCk, camCk string
	stranger        *core.Record
	strangerCk      string
	otherCamCk      string
	job, camelloID  string
	quoteID         string
}

func newWorld(t *testing.T) *world {
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t, fast)
	w := &world{k: k}
	svc := k.CreateService()
	w.client, w.clientCk = k.UserWithSession(users.RoleClient)
	w.stranger, w.strangerCk = k.UserWithSession(users.RoleClient)
	var cam *core.Record
	w.camUser, cam, w.camCk = k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	_, _, w.otherCamCk = k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	w.camelloID = cam.Id
	w.job = k.Post("/api/jobs", w.clientCk, map[string]any{"title": "Arreglar fuga", "serviceId": svc.Id, "city": "Bogotá"}).Str("job.id")
	w.quoteID = k.Post("/api/jobs/"+w.job+"/quotes", w.camCk, map[string]any{"amount": 40000}).Str("quote.id")
	if w.job == "" || w.quoteID == "" {
		t.Fatal("fixture")
	}
	return w
}

// TestMessageReachesTheOtherPartyLive: the camello's message shows on the
// client's open stream in under a second; the stranger's and the other
// camello's streams get nothing.
func TestMessageReachesTheOtherPartyLive(t *testing.T) {
	w := newWorld(t)
	k := w.k
	clientStream := open(t, k, w.clientCk, nil, "")
	strangerStream := open(t, k, w.strangerCk, nil, "")
	otherCamStream := open(t, k, w.otherCamCk, nil, "")
	if ct := clientStream.res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	if clientStream.res.Header.Get("X-Content-Type-Options") != "nosniff" || clientStream.res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("headers %v", clientStream.res.Header)
	}
	time.Sleep(50 * time.Millisecond)
	sent := time.Now()
	r := k.Post("/api/jobs/"+w.job+"/messages", w.camCk, map[string]any{"body": "Llego a las 3"})
	if r.Status != 201 {
		t.Fatalf("post: %s", r.Raw)
	}
	got := map[string]sseEvent{}
	for deadline := time.After(eventually); len(got) < 2; {
		select {
		case f := <-clientStream.frames:
			if f.Name != "" {
				got[f.Name] = f
			}
		case <-deadline:
			t.Fatalf("the client got only %v", got)
		}
	}
	ev := got[events.Message]
	// How fast is the bench's question (go run ./bench, live events), not
	// this test's: a busy machine delays the frame, it does not lose it.
	t.Logf("message on the recipient's stream %s after the POST began", ev.At.Sub(sent))
	var msg map[string]any
	if err := json.Unmarshal([]byte(ev.Data), &msg); err != nil || msg["body"] != "Llego a las 3" || msg["jobId"] != w.job {
		t.Fatalf("message event %q", ev.Data)
	}
	if n := got[events.Notification]; n.ID == "" || !strings.Contains(n.Data, `"kind":"MESSAGE"`) {
		t.Fatalf("notification event %+v", n)
	}
	// Nothing of it reaches the others (their heartbeats still flow).
	deadline := time.After(700 * time.Millisecond)
	pings := 0
	for done := false; !done; {
		select {
		case f := <-strangerStream.frames:
			if f.Name != "" {
				t.Fatalf("stranger got %+v", f)
			}
			pings++
		case f := <-otherCamStream.frames:
			if f.Name != "" {
				t.Fatalf("other camello got %+v", f)
			}
		case <-deadline:
			done = true
		}
	}
	if pings == 0 {
		t.Fatal("no heartbeat on an idle stream")
	}
}

// TestJobEvents: accepting a quote tells both parties' streams that the job changed.
func TestJobEvents(t *testing.T) {
	w := newWorld(t)
	k := w.k
	cs := open(t, k, w.clientCk, nil, "")
	ms := open(t, k, w.camCk, nil, "")
	if r := k.Post("/api/quotes/"+w.quoteID+"/accept", w.clientCk, nil); r.Status != 200 {
		t.Fatalf("accept: %s", r.Raw)
	}
	for name, s := range map[string]*client{"client": cs, "camello": ms} {
		ev, ok := s.next(t, events.Job, eventually)
		if !ok || !strings.Contains(ev.Data, w.job) || !strings.Contains(ev.Data, "ASIGNADO") {
			t.Errorf("%s: job event %+v", name, ev)
		}
	}
	if r := k.Post("/api/jobs/"+w.job+"/start", w.camCk, nil); r.Status != 200 {
		t.Fatalf("start: %s", r.Raw)
	}
	if ev, ok := cs.next(t, events.Job, eventually); !ok || !strings.Contains(ev.Data, "EN_PROGRESO") {
		t.Errorf("start event %+v", ev)
	}
}

// TestRevokedSessionEndsTheStream: signing out (and disabling the user)
// ends the open stream; a new one is refused.
func TestRevokedSessionEndsTheStream(t *testing.T) {
	w := newWorld(t)
	k := w.k
	s := open(t, k, w.clientCk, nil, "")
	if r := k.Post("/api/auth/logout", w.clientCk, nil); r.Status != 200 {
		t.Fatalf("logout: %s", r.Raw)
	}
	if !s.ended(eventually) {
		t.Fatal("stream still open after logout")
	}
	if r := k.Get("/api/events", w.clientCk); r.Status != 401 || r.Error() != "No autorizado" {
		t.Fatalf("revoked cookie: %d %s", r.Status, r.Raw)
	}
	if r := k.Get("/api/events", ""); r.Status != 401 {
		t.Fatalf("anonymous: %d", r.Status)
	}

	s2 := open(t, k, w.camCk, nil, "")
	w.camUser.Set("disabled", true)
	if err := k.App.Save(w.camUser); err != nil {
		t.Fatal(err)
	}
	if !s2.ended(eventually) {
		t.Fatal("stream of a disabled user still open")
	}
}

// TestResumeFromInbox: Last-Event-ID replays the inbox items after it;
// once=true ends after the replay; a foreign id replays nothing.
func TestResumeFromInbox(t *testing.T) {
	w := newWorld(t)
	k := w.k
	var ids []string
	for i := 0; i < 4; i++ {
		if err := notifications.Notify(k.App, w.client.Id, notifications.Message{Kind: notifications.KindAdminMessage,
			Title: "Aviso " + string(rune('A'+i))}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Millisecond)
	}
	all := k.Get("/api/notifications?perPage=100", w.clientCk)
	for _, it := range all.Get("notifications").([]any) {
		ids = append([]string{it.(map[string]any)["id"].(string)}, ids...) // oldest first
	}
	if len(ids) < 4 {
		t.Fatalf("inbox: %s", all.Raw)
	}
	first := ids[len(ids)-4]
	s := open(t, k, w.clientCk, map[string]string{"Last-Event-ID": first}, "?once=true")
	if !s.ended(eventually) {
		t.Fatal("once=true kept the stream open")
	}
	got := []string{}
	for len(s.frames) > 0 {
		if f := <-s.frames; f.Name == events.Notification {
			got = append(got, f.ID)
		}
	}
	if strings.Join(got, ",") != strings.Join(ids[len(ids)-3:], ",") {
		t.Fatalf("replayed %v, want %v", got, ids[len(ids)-3:])
	}
	// The query parameter works too, and another user's id replays nothing.
	s = open(t, k, w.clientCk, nil, "?once=1&lastEventId="+first)
	s.ended(eventually)
	if n := countNamed(s, events.Notification); n != 3 {
		t.Fatalf("lastEventId replayed %d", n)
	}
	s = open(t, k, w.strangerCk, map[string]string{"Last-Event-ID": first}, "?once=true")
	s.ended(eventually)
	if n := countNamed(s, events.Notification); n != 0 {
		t.Fatalf("stranger replayed %d of the client's items", n)
	}
	for _, q := range []string{"?once=maybe", "?lastEventId=a.b"} {
		if r := k.Get("/api/events"+q, w.clientCk); r.Status != 400 {
			t.Errorf("%s: %d %s", q, r.Status, r.Raw)
		}
	}
}

func countNamed(s *client, name string) int {
	n := 0
	for len(s.frames) > 0 {
		if f := <-s.frames; f.Name == name {
			n++
		}
	}
	return n
}

// TestDisconnectFreesTheStream: a client going away unsubscribes at once.
func TestDisconnectFreesTheStream(t *testing.T) {
	w := newWorld(t)
	k := w.k
	streams := []*client{}
	for i := 0; i < 5; i++ {
		streams = append(streams, open(t, k, w.clientCk, nil, ""))
	}
	waitFor(t, func() bool { return events.OpenStreams(k.App) == 5 })
	for _, s := range streams {
		s.close()
	}
	waitFor(t, func() bool { return events.OpenStreams(k.App) == 0 })
	// Publishing to nobody is harmless.
	if r := k.Post("/api/jobs/"+w.job+"/messages", w.camCk, map[string]any{"body": "¿Hola?"}); r.Status != 201 {
		t.Fatal(r.Status)
	}
}

// eventually bounds a wait for something that must happen: it only stops
// a hung test, so a busy machine never reaches it. (Windows in which
// something must NOT happen stay short: waiting longer proves no more.)
const eventually = time.Minute

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventually)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBulkInboxItemsStream: inbox items written in bulk (reminders, admin
// broadcasts) reach the open stream too, with their ids; a cancelled job
// tells both parties.
func TestBulkInboxItemsStream(t *testing.T) {
	w := newWorld(t)
	k := w.k
	s := open(t, k, w.clientCk, nil, "")
	other := open(t, k, w.strangerCk, nil, "")
	err := notifications.NotifyMany(k.App, []notifications.Addressed{{UserID: w.client.Id, Message: notifications.Message{
		Kind: notifications.KindAdminMessage, Title: "Mantenimiento", Body: "Esta noche", Data: map[string]any{}}}})
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := s.next(t, events.Notification, eventually)
	if !ok || ev.ID == "" || !strings.Contains(ev.Data, "Mantenimiento") || !strings.Contains(ev.Data, `"createdAt":"`) {
		t.Fatalf("bulk item: %+v", ev)
	}
	if k.Count("notifications", "id = {:id} AND user = {:u}", map[string]any{"id": ev.ID, "u": w.client.Id}) != 1 {
		t.Fatalf("event id %q is not the inbox item", ev.ID)
	}
	if r := k.Post("/api/jobs/"+w.job+"/cancel", w.clientCk, nil); r.Status != 200 {
		t.Fatalf("cancel: %s", r.Raw)
	}
	if ev, ok := s.next(t, events.Job, eventually); !ok || !strings.Contains(ev.Data, "CANCELADO") {
		t.Fatalf("cancel event %+v", ev)
	}
	if ev, ok := other.next(t, events.Notification, 300*time.Millisecond); ok {
		t.Fatalf("stranger got %+v", ev)
	}
}

// TestSessionCheckIsPerStream: revoking one session ends only its streams;
// the user's other session and other users' streams keep receiving.
func TestSessionCheckIsPerStream(t *testing.T) {
	w := newWorld(t)
	k := w.k
	// A second session of the client, and streams on both plus the camello's.
	second := k.Session(w.client)
	keep := open(t, k, w.clientCk, nil, "")
	gone := open(t, k, second, nil, "")
	cam := open(t, k, w.camCk, nil, "")
	if err := session.RevokeSession(k.App, second); err != nil {
		t.Fatal(err)
	}
	if !gone.ended(eventually) {
		t.Fatal("stream of the revoked session still open")
	}
	if keep.ended(300*time.Millisecond) || cam.ended(0) {
		t.Fatal("a stream of a valid session ended")
	}
	if r := k.Post("/api/jobs/"+w.job+"/messages", w.camCk, map[string]any{"body": "Sigo aquí"}); r.Status != 201 {
		t.Fatalf("message: %d %s", r.Status, r.Raw)
	}
	if _, ok := keep.next(t, "message", eventually); !ok {
		t.Fatal("the client's other stream missed the message")
	}
}
