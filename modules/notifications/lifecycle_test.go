package notifications_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"camellos/modules/notifications"
	"camellos/modules/users"
)

// waitFor polls cond until it holds; the deadline only stops a hung test
// (a busy machine must never reach it).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDeliveryNeverBlocksTheRequest: while the push service hangs, the
// request that caused the notification is answered at once.
func TestDeliveryNeverBlocksTheRequest(t *testing.T) {
	recv := newReceiver(t)
	recv.gate = make(chan struct{})
	k := newKit(t, recv)
	_, admin := k.UserWithSession(users.RoleAdmin)
	user, cookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("slow"))

	res := k.Post("/api/admin/notifications", admin, map[string]any{"title": "Hola", "userIds": []string{user.Id}})
	if res.Status != http.StatusAccepted {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	// The push is in flight, held by the receiver, and the API still answers.
	waitFor(t, "the push to reach the receiver", func() bool { return len(recv.requests()) == 1 })
	if list := k.Get("/api/notifications", cookie); list.Status != http.StatusOK || list.Get("total") != 1.0 {
		t.Errorf("inbox while push in flight: %d %s", list.Status, list.Raw)
	}
	close(recv.gate)
	drain(t, k)
}

// TestWorkersStopOnTerminate: when the app terminates (test cleanup),
// workers, pending retries and in-flight pushes stop: no goroutine of the
// dispatcher survives.
func TestWorkersStopOnTerminate(t *testing.T) {
	recv := newReceiver(t, http.StatusServiceUnavailable)
	recv.retryAft = "30" // a retry is pending for 30 s when the app stops
	t.Run("app", func(t *testing.T) {
		k := newKit(t, recv)
		user, cookie := k.UserWithSession(users.RoleClient)
		subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("stop"))
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: notifications.KindJobStatus, Title: "x"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the first attempt", func() bool { return len(recv.requests()) == 1 })
		if notifications.WaitIdle(k.App, 50*time.Millisecond) {
			t.Fatal("the retry should still be pending")
		}
	}) // cleanup: app terminates here
	waitFor(t, "dispatcher goroutines to end", func() bool {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		return !strings.Contains(stacks, "notifications.(*dispatcher)")
	})
	if n := len(recv.requests()); n != 1 {
		t.Errorf("requests after stop = %d, want 1", n)
	}
}
