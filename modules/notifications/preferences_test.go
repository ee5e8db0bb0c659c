package notifications_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"camellos/internal/pushtest"
	"camellos/modules/notifications"
	"camellos/modules/users"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/pocketbase/core"
)

func TestPreferencesDefaultsAndMerge(t *testing.T) {
	k := newKit(t, nil)
	_, cookie := k.UserWithSession(users.RoleClient)

	res := k.Get("/api/notifications/preferences", cookie)
	if res.Status != http.StatusOK {
		t.Fatalf("%d %s", res.Status, res.Raw)
	}
	prefs, _ := res.Get("preferences").(map[string]any)
	if len(prefs) != len(notifications.Kinds) {
		t.Fatalf("kinds = %d: %s", len(prefs), res.Raw)
	}
	for _, kind := range notifications.Kinds {
		for _, c := range notifications.Channels {
			// WhatsApp carries only the kinds with a template: the others
			// have no switch for it.
			var want any = true
			if c == notifications.ChannelWhatsApp && !whatsapp.Handles(kind) {
				want = nil
			}
			if res.Get("preferences."+kind+"."+c) != want {
				t.Errorf("default %s.%s = %v, want %v", kind, c, res.Get("preferences."+kind+"."+c), want)
			}
		}
	}

	put := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"JOB_STATUS": map[string]any{"push": false},
	}})
	if put.Status != http.StatusOK || put.Get("preferences.JOB_STATUS.push") != false || put.Get("preferences.JOB_STATUS.email") != true || put.Get("preferences.JOB_STATUS.inApp") != true {
		t.Fatalf("put: %d %s", put.Status, put.Raw)
	}
	// A second partial PUT merges: JOB_STATUS.push stays off.
	put = k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"JOB_STATUS":    map[string]any{"email": false},
		"ADMIN_MESSAGE": map[string]any{"inApp": false, "push": true},
	}})
	if put.Status != http.StatusOK {
		t.Fatalf("put 2: %d %s", put.Status, put.Raw)
	}
	get := k.Get("/api/notifications/preferences", cookie)
	for path, want := range map[string]bool{
		"JOB_STATUS.push": false, "JOB_STATUS.email": false, "JOB_STATUS.inApp": true,
		"ADMIN_MESSAGE.inApp": false, "ADMIN_MESSAGE.push": true, "JOB_ASSIGNED.push": true,
	} {
		if get.Get("preferences."+path) != want {
			t.Errorf("%s = %v, want %v", path, get.Get("preferences."+path), want)
		}
	}
	// Switching back on.
	k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{"JOB_STATUS": map[string]any{"push": true}}})
	if g := k.Get("/api/notifications/preferences", cookie); g.Get("preferences.JOB_STATUS.push") != true {
		t.Error("could not switch push back on")
	}
	// Another user keeps the defaults.
	_, otherCookie := k.UserWithSession(users.RoleCamello)
	if g := k.Get("/api/notifications/preferences", otherCookie); g.Get("preferences.JOB_STATUS.email") != true {
		t.Error("preferences leaked to another user")
	}
	if n := k.Count("notification_preferences", ""); n != 1 {
		t.Errorf("preference records = %d", n)
	}
}

func TestPreferencesValidation(t *testing.T) {
	k := newKit(t, nil)
	_, cookie := k.UserWithSession(users.RoleCamello)
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"missing preferences", map[string]any{}, "preferences"},
		{"preferences not an object", map[string]any{"preferences": []any{}}, "preferences"},
		{"unknown kind", map[string]any{"preferences": map[string]any{"PARTY": map[string]any{"push": true}}}, "preferences.PARTY"},
		{"kind not an object", map[string]any{"preferences": map[string]any{"JOB_STATUS": true}}, "preferences.JOB_STATUS"},
		{"unknown channel", map[string]any{"preferences": map[string]any{"JOB_STATUS": map[string]any{"sms": true}}}, "preferences.JOB_STATUS.sms"},
		{"string value", map[string]any{"preferences": map[string]any{"JOB_STATUS": map[string]any{"push": "false"}}}, "preferences.JOB_STATUS.push"},
		{"number value", map[string]any{"preferences": map[string]any{"JOB_STATUS": map[string]any{"email": 0}}}, "preferences.JOB_STATUS.email"},
		{"null value", map[string]any{"preferences": map[string]any{"JOB_STATUS": map[string]any{"email": nil}}}, "preferences.JOB_STATUS.email"},
		{"reminders in-app off", map[string]any{"preferences": map[string]any{"APPOINTMENT_REMINDER": map[string]any{"inApp": false}}}, "preferences.APPOINTMENT_REMINDER.inApp"},
	}
	for _, tc := range cases {
		res := k.Put("/api/notifications/preferences", cookie, tc.body)
		if res.Status != http.StatusBadRequest || res.Error() != "Datos inválidos" || len(fieldIssues(res, tc.field)) == 0 {
			t.Errorf("%s: %d %s", tc.name, res.Status, res.Raw)
		}
	}
	// Nothing was stored by the rejected requests, not even a valid part.
	mixed := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"JOB_STATUS": map[string]any{"push": false}, "NOPE": map[string]any{},
	}})
	if mixed.Status != http.StatusBadRequest {
		t.Errorf("mixed: %d", mixed.Status)
	}
	if n := k.Count("notification_preferences", ""); n != 0 {
		t.Errorf("rejected preferences stored")
	}
	if res := k.Put("/api/notifications/preferences", cookie, "not json"); res.Status != http.StatusBadRequest || res.Error() != "Cuerpo JSON inválido" {
		t.Errorf("malformed: %d %s", res.Status, res.Raw)
	}
	// Reminders' other channels may be switched off.
	ok := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"APPOINTMENT_REMINDER": map[string]any{"inApp": true, "push": false, "email": false},
	}})
	if ok.Status != http.StatusOK || ok.Get("preferences.APPOINTMENT_REMINDER.push") != false {
		t.Errorf("reminder push off: %d %s", ok.Status, ok.Raw)
	}
}

// TestPreferencesConcurrentMerge: parallel partial PUTs of different kinds
// all land (no lost update).
func TestPreferencesConcurrentMerge(t *testing.T) {
	k := newKit(t, nil)
	_, cookie := k.UserWithSession(users.RoleClient)
	var wg sync.WaitGroup
	for _, kind := range notifications.Kinds {
		wg.Add(1)
		go func(kind string) {
			defer wg.Done()
			res := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{kind: map[string]any{"email": false}}})
			if res.Status != http.StatusOK {
				t.Errorf("%s: %d %s", kind, res.Status, res.Raw)
			}
		}(kind)
	}
	wg.Wait()
	get := k.Get("/api/notifications/preferences", cookie)
	for _, kind := range notifications.Kinds {
		if get.Get("preferences."+kind+".email") != false {
			t.Errorf("%s.email lost", kind)
		}
	}
}

// TestPreferencesHonoured: each channel is delivered only when its
// preference is on; reminders always reach the inbox.
func TestPreferencesHonoured(t *testing.T) {
	recv := newReceiver(t)
	k := newKit(t, recv, withSMTP)
	user, cookie := k.UserWithSession(users.RoleClient)
	device := newBrowser(t)
	subscribeOK(t, k, cookie, device, recv.endpoint("prefs"))
	set := func(kind string, chans map[string]any) {
		t.Helper()
		if res := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{kind: chans}}); res.Status != 200 {
			t.Fatalf("prefs: %d %s", res.Status, res.Raw)
		}
	}
	set(notifications.KindJobAssigned, map[string]any{"push": false})                               // inbox + mail
	set(notifications.KindJobCancelled, map[string]any{"inApp": false, "email": false})             // push only
	set(notifications.KindJobStatus, map[string]any{"inApp": false, "push": false, "email": false}) // nothing
	set(notifications.KindAppointmentReminder, map[string]any{"push": false, "email": false})       // inbox only (critical)
	// KindAppointmentBooked: defaults, everything.

	send := func(kind, title string) {
		t.Helper()
		if err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: kind, Title: title, Body: "b", URL: "/x"}); err != nil {
			t.Fatal(err)
		}
	}
	send(notifications.KindJobAssigned, "asignado")
	send(notifications.KindJobCancelled, "cancelado")
	send(notifications.KindJobStatus, "estado")
	send(notifications.KindAppointmentReminder, "recordatorio")
	send(notifications.KindAppointmentBooked, "agendada")
	drain(t, k)

	inbox := map[string]bool{}
	list := k.Get("/api/notifications", cookie)
	items, _ := list.Get("notifications").([]any)
	for _, it := range items {
		inbox[it.(map[string]any)["title"].(string)] = true
	}
	pushed := map[string]bool{}
	for _, r := range recv.requests() {
		plain, err := device.decrypt(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		_ = pushtest.Into(plain, &p)
		pushed[p["title"].(string)] = true
	}
	mails := map[string]bool{}
	for _, m := range k.App.TestMailer.Messages() {
		mails[m.Subject] = true
		if m.To[0].Address != user.Email() {
			t.Errorf("mail to %v", m.To)
		}
		if m.Subject == "agendada" && !strings.Contains(m.Text, "/x") {
			t.Errorf("mail lacks the link: %q", m.Text)
		}
	}
	want := map[string][3]bool{ // inbox, push, mail
		"asignado":     {true, false, true},
		"cancelado":    {false, true, false},
		"estado":       {false, false, false},
		"recordatorio": {true, false, false},
		"agendada":     {true, true, true},
	}
	if n := len(recv.requests()); n != 2 {
		t.Errorf("pushes = %d, want 2", n)
	}
	for title, w := range want {
		if inbox[title] != w[0] {
			t.Errorf("%s in inbox = %v, want %v", title, inbox[title], w[0])
		}
		if pushed[title] != w[1] {
			t.Errorf("%s pushed = %v, want %v", title, pushed[title], w[1])
		}
		if mails[title] != w[2] {
			t.Errorf("%s mailed = %v, want %v", title, mails[title], w[2])
		}
	}
}

// TestPreferencesRecordHook: preferences saved outside the route (the
// dashboard) obey the same rules.
func TestPreferencesRecordHook(t *testing.T) {
	k := newKit(t, nil)
	user := k.CreateUser(users.RoleClient)
	col, _ := k.App.FindCollectionByNameOrId("notification_preferences")
	for _, prefs := range []map[string]any{
		{"NOPE": map[string]any{"push": false}},
		{"JOB_STATUS": map[string]any{"sms": false}},
		{"APPOINTMENT_REMINDER": map[string]any{"inApp": false}},
	} {
		rec := core.NewRecord(col)
		rec.Set("user", user.Id)
		rec.Set("prefs", prefs)
		if err := k.App.Save(rec); err == nil {
			t.Errorf("saved invalid preferences %v", prefs)
		}
	}
	rec := core.NewRecord(col)
	rec.Set("user", user.Id)
	rec.Set("prefs", map[string]any{"JOB_STATUS": map[string]any{"push": false}})
	if err := k.App.Save(rec); err != nil {
		t.Errorf("valid preferences rejected: %v", err)
	}
}
