package notifications_test

import (
	"testing"

	"camellos/modules/notifications"
	"camellos/modules/users"
)

// TestMessagePushesCoalesced: MESSAGE pushes go out at most once per
// recipient and job within the window, while the inbox keeps every item;
// other kinds are never held back.
func TestMessagePushesCoalesced(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv)
	user, cookie := k.UserWithSession(users.RoleClient)
	other, otherCookie := k.UserWithSession(users.RoleClient)
	subscribeOK(t, k, cookie, newBrowser(t), recv.endpoint("one"))
	subscribeOK(t, k, otherCookie, newBrowser(t), recv.endpoint("two"))
	send := func(to, kind, job string) {
		t.Helper()
		if err := notifications.Notify(k.App, to, notifications.Message{
			Kind: kind, Title: "Mensaje", Body: "Hola", Data: map[string]any{"jobId": job},
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, job := range []string{"job1", "job1", "job1", "job2"} {
		send(user.Id, notifications.KindMessage, job)
		drain(t, k)
	}
	send(other.Id, notifications.KindMessage, "job1")
	send(user.Id, notifications.KindJobStatus, "job1")
	send(user.Id, notifications.KindJobStatus, "job1")
	drain(t, k)
	perPath := map[string]int{}
	for _, r := range recv.requests() {
		perPath[r.Path]++
	}
	// user: job1 once, job2 once, two JOB_STATUS; other: job1 once.
	if perPath["/push/one"] != 4 || perPath["/push/two"] != 1 {
		t.Fatalf("pushes per device = %v, want one:4 two:1", perPath)
	}
	if n := k.Count("notifications", "kind = 'MESSAGE' AND user = {:u}", map[string]any{"u": user.Id}); n != 4 {
		t.Fatalf("inbox kept %d MESSAGE items, want 4", n)
	}
}
