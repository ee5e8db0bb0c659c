package apitest_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/internal/watest"
	"camellos/modules/notifications"
	"camellos/modules/users"
	"camellos/modules/whatsapp"

	"github.com/pocketbase/dbx"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// waWorld is the service with WhatsApp pointed at a local model of the Cloud
// API (internal/watest), every template approved there, and optionally a
// real SMTP server for the mail fallback.
type waWorld struct {
	K   *testkit.Kit
	wa  *watest.Server
	box *testkit.Mailbox
}

// fastBackoff keeps retries quick: three retries, then FALLIDO.
var fastBackoff = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}

func newWAWorld(t *testing.T, withMail bool, extra ...testkit.Option) *waWorld {
	t.Helper()
	wa := watest.New(t)
	for _, tp := range whatsapp.Templates {
		wa.Approve(tp.Name, whatsapp.Language, tp.Params(), tp.Category == whatsapp.CategoryAuthentication)
	}
	t.Setenv("AUTH_IP_LIMIT", "0") // not about the limits (internal/ratelimit's table test is)
	t.Setenv("APP_URL", "https://camellos.example.co")
	for k, v := range wa.Env() {
		t.Setenv(k, v)
	}
	w := &waWorld{wa: wa}
	if withMail {
		w.box = testkit.NewMailbox(t)
		w.box.Env(t, "off")
	}
	opts := append([]testkit.Option{func(app *tests.TestApp) {
		whatsapp.SetOptions(app, whatsapp.Options{HTTPClient: wa.Client(), Backoff: fastBackoff, Poll: 50 * time.Millisecond})
	}}, extra...)
	w.K = testkit.New(t, opts...)
	wa.Webhook = w.K.URL + "/api/whatsapp/webhook"
	return w
}

// idle waits for the notifications' queue, the WhatsApp outbox and the mails.
func (w *waWorld) idle(t *testing.T) {
	t.Helper()
	for i := 0; i < 2; i++ { // a fallback mail is queued after the WhatsApp outbox settles
		if !notifications.WaitIdle(w.K.App, 20*time.Second) || !whatsapp.WaitIdle(w.K.App, 20*time.Second) {
			t.Fatal("deliveries did not settle")
		}
	}
}

// lastCode is the code of the last confirmation message the API got for phone.
func (w *waWorld) lastCode(t *testing.T, phone string) string {
	t.Helper()
	w.idle(t)
	sent := w.wa.Sent()
	for i := len(sent) - 1; i >= 0; i-- {
		if sent[i].To == phone && sent[i].Template == whatsapp.TemplateCode.Name {
			return sent[i].Params[0]
		}
	}
	t.Fatalf("no code sent to %s (sent: %+v)", phone, sent)
	return ""
}

// optIn registers and confirms phone for the session.
func (w *waWorld) optIn(t *testing.T, cookie, phone string) {
	t.Helper()
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": phone}), http.StatusAccepted, "")
	norm, _ := whatsapp.NormalizePhone(phone)
	r := w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": w.lastCode(t, norm)})
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("whatsapp.status") != whatsapp.ContactConfirmed {
		t.Fatalf("confirm: %s", r.Raw)
	}
}

// outbox reads the outbox rows of a user, oldest first.
func outbox(t *testing.T, app core.App, userID string) []map[string]any {
	t.Helper()
	var rows []dbx.NullStringMap
	err := app.DB().Select("kind", "template", "status", "attempts", "wamid", "fellBack", "errorCode", "sentAt", "deliveredAt", "readAt").
		From(whatsapp.Collection).Where(dbx.HashExp{"user": userID}).OrderBy("created", "rowid").All(&rows)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		m := map[string]any{}
		for k, v := range r {
			m[k] = v.String
		}
		out[i] = m
	}
	return out
}

func TestNormalizePhone(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"3001234567", "573001234567", true},
		{"300 123 4567", "573001234567", true},
		{"(300) 123-4567", "573001234567", true},
		{"+57 300 123 4567", "573001234567", true},
		{"573001234567", "573001234567", true},
		{"+1 415 555 0100", "14155550100", true},
		{"+34 612 34 56 78", "34612345678", true},
		{"+1234567", "", false},         // 7 digits: just outside
		{"+12345678", "12345678", true}, // 8 digits: just inside
		{"+123456789012345", "123456789012345", true},
		{"+1234567890123456", "", false}, // 16 digits
		{"300123456", "", false},         // 9 digits
		{"30012345678", "", false},       // 11 digits
		{"6011234567", "", false},        // a landline of Bogotá
		{"+57 601 123 4567", "", false},  // a landline with the country code
		{"57300123456", "", false},
		{"300-123-4567 ext 2", "", false},
		{"+0 300 123 4567", "", false},
		{"", "", false},
	} {
		got, ok := whatsapp.NormalizePhone(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: %q %v, want %q %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// The opt-in: a number gets a code over WhatsApp (the authentication
// template, its copy-code button too), a wrong code spends one of five
// attempts, the right one confirms; a new code voids the old one; an
// expired or exhausted code is refused; the channel is off until then.
func TestOptInByCode(t *testing.T) {
	w := newWAWorld(t, false)
	_, cookie := w.K.UserWithSession(users.RoleClient)

	r := w.K.Get("/api/notifications/whatsapp", cookie)
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("whatsapp.status") != "SIN_NUMERO" || r.Get("whatsapp.available") != true {
		t.Fatalf("before: %s", r.Raw)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"no phone", map[string]any{}, 400, "phone"},
		{"empty phone", map[string]any{"phone": "  "}, 400, "phone"},
		{"landline", map[string]any{"phone": "601 123 4567"}, 400, "phone"},
		{"letters", map[string]any{"phone": "300 ABC 4567"}, 400, "phone"},
		{"not a string", map[string]any{"phone": 3001234567}, 400, "phone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.K.Put("/api/notifications/whatsapp", cookie, tc.body)
			testkit.Expect(t, r, tc.status, "")
			if len(r.FieldErrors(tc.field)) == 0 {
				t.Fatalf("no issue on %s: %s", tc.field, r.Raw)
			}
		})
	}
	if n := len(w.wa.Sent()); n != 0 {
		t.Fatalf("refused numbers got %d messages", n)
	}

	r = w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "300 123 4567"})
	testkit.Expect(t, r, http.StatusAccepted, "")
	if r.Str("whatsapp.status") != whatsapp.ContactPending || r.Str("whatsapp.phone") != "+573001234567" ||
		r.Get("whatsapp.attemptsLeft") != float64(whatsapp.CodeAttempts) || r.Str("whatsapp.codeExpiresAt") == "" {
		t.Fatalf("pending: %s", r.Raw)
	}
	first := w.lastCode(t, "573001234567")
	msg := w.wa.Sent()[0]
	if msg.Language != "es" || len(msg.Button) != 1 || msg.Button[0] != first || len(first) != whatsapp.CodeDigits {
		t.Fatalf("code message: %+v", msg)
	}
	// A second request: a new code, the first one void.
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "+57 300 123 4567"}), http.StatusAccepted, "")
	second := w.lastCode(t, "573001234567")
	if first != second {
		r := w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": first})
		testkit.ExpectField(t, r, "code", whatsapp.MsgCodeWrong)
	}
	for _, tc := range []struct {
		name string
		code any
		msg  string
	}{
		{"five digits", "12345", whatsapp.MsgCodeFormat},
		{"seven digits", "1234567", whatsapp.MsgCodeFormat},
		{"letters", "12a456", whatsapp.MsgCodeFormat},
		{"number type", 123456, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": tc.code})
			testkit.Expect(t, r, http.StatusBadRequest, "")
			if tc.msg != "" {
				testkit.ExpectField(t, r, "code", tc.msg)
			}
		})
	}
	wrong := fmt.Sprintf("%06d", (atoi(second)+1)%1_000_000)
	r = w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": wrong})
	testkit.ExpectField(t, r, "code", "te quedan")
	r = w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": second})
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Str("whatsapp.status") != whatsapp.ContactConfirmed || r.Str("whatsapp.confirmedAt") == "" {
		t.Fatalf("confirmed: %s", r.Raw)
	}
	// A confirmed number has no code left to guess.
	r = w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": second})
	testkit.Expect(t, r, http.StatusConflict, whatsapp.MsgNoCode)
	// The code left the outbox with its sending.
	var params string
	_ = w.K.App.DB().NewQuery("SELECT params FROM " + whatsapp.Collection + " WHERE kind = 'CODIGO' AND status != 'PENDIENTE' LIMIT 1").Row(&params)
	if strings.Contains(params, second) {
		t.Fatalf("the code stayed in the outbox: %s", params)
	}
	// Switched off: the number is forgotten.
	testkit.Expect(t, w.K.Delete("/api/notifications/whatsapp", cookie, nil), http.StatusNoContent, "")
	testkit.Expect(t, w.K.Delete("/api/notifications/whatsapp", cookie, nil), http.StatusNotFound, whatsapp.MsgNotRegistered)
	if r := w.K.Get("/api/notifications/whatsapp", cookie); r.Str("whatsapp.status") != "SIN_NUMERO" {
		t.Fatalf("after delete: %s", r.Raw)
	}
	// Without a session.
	testkit.Expect(t, w.K.Get("/api/notifications/whatsapp", ""), http.StatusUnauthorized, "")
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", "", map[string]any{"phone": "3001234567"}), http.StatusUnauthorized, "")
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// Attempts are bounded: the fifth wrong guess is the last one counted
// (just inside), the sixth is refused (just outside) and the right code
// no longer works; an expired code is refused.
func TestCodeBounds(t *testing.T) {
	w := newWAWorld(t, false)
	user, cookie := w.K.UserWithSession(users.RoleClient)
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3109998877"}), http.StatusAccepted, "")
	code := w.lastCode(t, "573109998877")
	wrong := fmt.Sprintf("%06d", (atoi(code)+7)%1_000_000)
	for i := 1; i <= whatsapp.CodeAttempts; i++ {
		r := w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": wrong})
		want := "te quedan"
		switch whatsapp.CodeAttempts - i {
		case 1:
			want = "te queda 1 intento"
		case 0:
			want = whatsapp.MsgCodeExhausted
		}
		testkit.ExpectField(t, r, "code", want)
	}
	r := w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": code})
	testkit.ExpectField(t, r, "code", whatsapp.MsgCodeExhausted)

	// A new code; then it expires.
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3109998877"}), http.StatusAccepted, "")
	code = w.lastCode(t, "573109998877")
	if _, err := w.K.App.DB().Update(whatsapp.ContactsCollection, dbx.Params{"codeExpiresAt": "2020-01-01 00:00:00.000Z"},
		dbx.HashExp{"user": user.Id}).Execute(); err != nil {
		t.Fatal(err)
	}
	r = w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": code})
	testkit.ExpectField(t, r, "code", whatsapp.MsgCodeExpired)

	// No path (the dashboard included) stores a number the Cloud API would refuse.
	rec, err := w.K.App.FindFirstRecordByData(whatsapp.ContactsCollection, "user", user.Id)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"576011234567", "+573109998877", "57310999887", "31a9998877"} {
		rec.Set("phone", bad)
		if err := w.K.App.Save(rec); err == nil {
			t.Errorf("phone %q stored", bad)
		}
	}
}

// Racing guesses: of 20 wrong guesses sent at once, exactly CodeAttempts
// are counted; the right code after them is refused.
func TestRacingGuesses(t *testing.T) {
	w := newWAWorld(t, false)
	user, cookie := w.K.UserWithSession(users.RoleClient)
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3201112233"}), http.StatusAccepted, "")
	code := w.lastCode(t, "573201112233")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			guess := fmt.Sprintf("%06d", (atoi(code)+1+i)%1_000_000)
			w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": guess})
		}(i)
	}
	wg.Wait()
	var attempts int
	if err := w.K.App.DB().NewQuery("SELECT codeAttempts FROM " + whatsapp.ContactsCollection + " WHERE user = {:u}").
		Bind(dbx.Params{"u": user.Id}).Row(&attempts); err != nil {
		t.Fatal(err)
	}
	if attempts != whatsapp.CodeAttempts {
		t.Fatalf("attempts counted = %d, want %d", attempts, whatsapp.CodeAttempts)
	}
	r := w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": code})
	testkit.ExpectField(t, r, "code", whatsapp.MsgCodeExhausted)
}

// Without WHATSAPP_TOKEN the opt-in answers 503 in Spanish and nothing is sent.
func TestOptInUnavailable(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	t.Setenv("WHATSAPP_TOKEN", "")
	k := testkit.New(t)
	_, cookie := k.UserWithSession(users.RoleClient)
	testkit.Expect(t, k.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3001234567"}),
		http.StatusServiceUnavailable, whatsapp.MsgUnavailable)
	r := k.Get("/api/notifications/whatsapp", cookie)
	if r.Get("whatsapp.available") != false {
		t.Fatalf("available: %s", r.Raw)
	}
	// The preferences still offer the switch (it waits for a number).
	r = k.Get("/api/notifications/preferences", cookie)
	if r.Get("preferences.APPOINTMENT_REMINDER.whatsapp") != true || r.Get("preferences.JOB_STATUS.whatsapp") != nil {
		t.Fatalf("preferences: %s", r.Raw)
	}
}

// Each kind with a template goes out as that template, in Spanish, with
// the notification's title, text and absolute link; a kind without one
// does not; the whatsapp switch of a kind turns it off (and the mail goes
// instead); a number not confirmed gets nothing.
func TestNoticeTemplates(t *testing.T) {
	w := newWAWorld(t, true)
	user, cookie := w.K.UserWithSession(users.RoleClient)
	email, _ := w.K.App.FindRecordById(users.Collection, user.Id)
	addr := email.GetString("email")

	// Pending number: nothing on WhatsApp yet.
	testkit.Expect(t, w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3005550001"}), http.StatusAccepted, "")
	w.idle(t)
	if err := notifications.Notify(w.K.App, user.Id, notifications.Message{Kind: notifications.KindQuoteReceived,
		Title: "Nueva cotización", Body: "antes de confirmar", URL: "/trabajo.html?id=x"}); err != nil {
		t.Fatal(err)
	}
	w.idle(t)
	if n := len(w.wa.Sent()); n != 1 { // only the code
		t.Fatalf("messages before confirming: %d", n)
	}
	w.box.Wait(addr, 1, 10*time.Second)
	code := w.lastCode(t, "573005550001")
	testkit.Expect(t, w.K.Post("/api/notifications/whatsapp/confirm", cookie, map[string]any{"code": code}), http.StatusOK, "")

	cases := []struct {
		kind     string
		template string
	}{
		{notifications.KindAppointmentReminder, whatsapp.TemplateReminder.Name},
		{notifications.KindQuoteReceived, whatsapp.TemplateQuoteReceived.Name},
		{notifications.KindQuoteAccepted, whatsapp.TemplateQuoteAccepted.Name},
		{notifications.KindAppointmentBooked, whatsapp.TemplateBookingChange.Name},
		{notifications.KindAppointmentRescheduled, whatsapp.TemplateBookingChange.Name},
		{notifications.KindPayment, whatsapp.TemplatePayment.Name},
		{notifications.KindMessage, whatsapp.TemplateDigest.Name},
		{notifications.KindJobStatus, ""},
		{notifications.KindAdminMessage, ""},
	}
	for i, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			before := len(w.wa.Sent())
			mailsBefore := len(w.box.To(addr))
			title := "Aviso " + tc.kind
			body := fmt.Sprintf("Texto del aviso %d\tcon  espacios\ny saltos", i)
			if err := notifications.NotifyMany(w.K.App, []notifications.Addressed{{UserID: user.Id, Message: notifications.Message{
				Kind: tc.kind, Title: title, Body: body, URL: "/trabajo.html?id=job" + fmt.Sprint(i),
				Data: map[string]any{"jobId": fmt.Sprint("job", i)}}}}); err != nil {
				t.Fatal(err)
			}
			w.idle(t)
			sent := w.wa.Sent()[before:]
			if tc.template == "" {
				if len(sent) != 0 {
					t.Fatalf("kind without a template sent %+v", sent)
				}
				w.box.Wait(addr, mailsBefore+1, 10*time.Second) // mail as before
				return
			}
			if len(sent) != 1 {
				t.Fatalf("sent %d messages, want 1", len(sent))
			}
			m := sent[0]
			wantParams := []string{title, fmt.Sprintf("Texto del aviso %d con espacios y saltos", i),
				"https://camellos.example.co/trabajo.html?id=job" + fmt.Sprint(i)}
			if tc.kind == notifications.KindMessage {
				wantParams = append([]string{"1 mensaje"}, wantParams...)
			}
			if m.Template != tc.template || m.To != "573005550001" || m.Language != "es" || fmt.Sprint(m.Params) != fmt.Sprint(wantParams) {
				t.Fatalf("message %+v, want %s %v", m, tc.template, wantParams)
			}
			if got := len(w.box.To(addr)); got != mailsBefore {
				t.Fatalf("WhatsApp and a mail both went out (%d mails)", got-mailsBefore)
			}
		})
	}

	// The whatsapp switch off for quotes: the mail goes instead.
	r := w.K.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"QUOTE_RECEIVED": map[string]any{"whatsapp": false}}})
	testkit.Expect(t, r, http.StatusOK, "")
	if r.Get("preferences.QUOTE_RECEIVED.whatsapp") != false || r.Get("preferences.JOB_STATUS.whatsapp") != nil {
		t.Fatalf("preferences: %s", r.Raw)
	}
	before, mails := len(w.wa.Sent()), len(w.box.To(addr))
	if err := notifications.Notify(w.K.App, user.Id, notifications.Message{Kind: notifications.KindQuoteReceived,
		Title: "Nueva cotización", Body: "con WhatsApp apagado", URL: "/trabajo.html?id=y"}); err != nil {
		t.Fatal(err)
	}
	w.idle(t)
	if len(w.wa.Sent()) != before {
		t.Fatal("sent on WhatsApp with the switch off")
	}
	w.box.Wait(addr, mails+1, 10*time.Second)
	// A kind without a template refuses the switch.
	r = w.K.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"JOB_STATUS": map[string]any{"whatsapp": true}}})
	testkit.ExpectField(t, r, "preferences.JOB_STATUS.whatsapp", "no se envía por WhatsApp")
}

// Failures: an outage or a rate limit is retried with backoff until it
// passes (one message, no mail); a refusal for good or retries run out
// make the message FALLIDO and mail it once, when e-mail is on for the
// kind; with e-mail off nothing is mailed.
func TestRetriesAndMailFallback(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fails     []watest.Failure
		emailOff  bool
		status    string
		attempts  string
		wantMails int
	}{
		{"outage then accepted", []watest.Failure{watest.Outage, watest.Outage}, false, whatsapp.StatusAccepted, "3", 0},
		{"rate limited then accepted", []watest.Failure{watest.RateLimited}, false, whatsapp.StatusAccepted, "2", 0},
		{"last retry accepted", []watest.Failure{watest.Outage, watest.Outage, watest.Outage}, false, whatsapp.StatusAccepted, "4", 0},
		{"retries run out", []watest.Failure{watest.Outage, watest.Outage, watest.Outage, watest.Outage}, false, whatsapp.StatusFailed, "4", 1},
		{"undeliverable", []watest.Failure{watest.Undeliverable}, false, whatsapp.StatusFailed, "1", 1},
		{"undeliverable, e-mail off", []watest.Failure{watest.Undeliverable}, true, whatsapp.StatusFailed, "1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWAWorld(t, true)
			user, cookie := w.K.UserWithSession(users.RoleCamello)
			addr := user.GetString("email")
			w.optIn(t, cookie, "3011234567")
			if tc.emailOff {
				testkit.Expect(t, w.K.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
					"QUOTE_ACCEPTED": map[string]any{"email": false}}}), http.StatusOK, "")
			}
			w.wa.FailNext(tc.fails...)
			if err := notifications.Notify(w.K.App, user.Id, notifications.Message{Kind: notifications.KindQuoteAccepted,
				Title: "Cotización aceptada", Body: "Ana aceptó tu cotización", URL: "/trabajo.html?id=q1"}); err != nil {
				t.Fatal(err)
			}
			w.idle(t)
			rows := outbox(t, w.K.App, user.Id)
			last := rows[len(rows)-1]
			if last["status"] != tc.status || last["attempts"] != tc.attempts {
				t.Fatalf("outbox %v, want %s after %s attempts", last, tc.status, tc.attempts)
			}
			if tc.wantMails > 0 {
				got := w.box.Wait(addr, tc.wantMails, 10*time.Second)
				if !strings.Contains(got[0].Subject, "Cotización aceptada") || !strings.Contains(got[0].Text, "Ana aceptó tu cotización") {
					t.Fatalf("fallback mail: %q %q", got[0].Subject, got[0].Text)
				}
			}
			w.idle(t)
			if got := len(w.box.To(addr)); got != tc.wantMails {
				t.Fatalf("mails = %d, want %d", got, tc.wantMails)
			}
		})
	}
}

// Statuses from the webhook: signed deliveries move a message forward
// only (duplicates and late, reordered statuses change nothing); a
// failure reported before delivery mails the notice once, even when the
// webhook repeats it; forged, tampered or unsigned deliveries are refused
// and change nothing; an unknown young message id is answered 503 (Meta
// sends it again), an old one is acknowledged.
func TestWebhookStatuses(t *testing.T) {
	w := newWAWorld(t, true)
	user, cookie := w.K.UserWithSession(users.RoleClient)
	addr := user.GetString("email")
	w.optIn(t, cookie, "3015556677")
	notify := func(title string) string {
		t.Helper()
		before := len(w.wa.Sent())
		if err := notifications.Notify(w.K.App, user.Id, notifications.Message{Kind: notifications.KindPayment,
			Title: title, Body: "Recibimos $180.000", URL: "/trabajo.html?id=p1"}); err != nil {
			t.Fatal(err)
		}
		w.idle(t)
		sent := w.wa.Sent()
		if len(sent) != before+1 {
			t.Fatalf("not sent: %+v", sent)
		}
		return sent[len(sent)-1].ID
	}
	statusOf := func(wamid string) map[string]any {
		t.Helper()
		for _, r := range outbox(t, w.K.App, user.Id) {
			if r["wamid"] == wamid {
				return r
			}
		}
		t.Fatalf("no row for %s", wamid)
		return nil
	}
	st := func(id, status string, at time.Time) watest.Status {
		return watest.Status{WAMID: id, Status: status, Recipient: "573015556677", At: at, ErrorCode: 131026}
	}
	t0 := time.Now().Add(-time.Minute).Truncate(time.Second)

	t.Run("in order, with duplicates", func(t *testing.T) {
		id := notify("Pago recibido")
		for _, s := range []string{"sent", "sent", "delivered", "delivered", "read", "read"} {
			if code := w.wa.Deliver(w.K.Client, w.wa.Statuses(st(id, s, t0))); code != 200 {
				t.Fatalf("%s: %d", s, code)
			}
		}
		if r := statusOf(id); r["status"] != whatsapp.StatusRead || r["sentAt"] == "" || r["deliveredAt"] == "" || r["readAt"] == "" {
			t.Fatalf("row %v", r)
		}
	})
	t.Run("reordered", func(t *testing.T) {
		id := notify("Pago liberado")
		// One delivery carrying read before delivered before sent.
		d := w.wa.Statuses(st(id, "read", t0.Add(3*time.Second)), st(id, "delivered", t0.Add(2*time.Second)), st(id, "sent", t0.Add(time.Second)))
		if code := w.wa.Deliver(w.K.Client, d); code != 200 {
			t.Fatalf("%d", code)
		}
		if code := w.wa.Deliver(w.K.Client, w.wa.Statuses(st(id, "failed", t0.Add(4*time.Second)))); code != 200 {
			t.Fatalf("late failed: %d", code)
		}
		r := statusOf(id)
		if r["status"] != whatsapp.StatusRead || r["fellBack"] != "0" && r["fellBack"] != "false" {
			t.Fatalf("row %v", r)
		}
		if !strings.HasPrefix(r["readAt"].(string), t0.Add(3*time.Second).UTC().Format("2006-01-02 15:04:05")) {
			t.Fatalf("readAt %v, want the webhook's time", r["readAt"])
		}
	})
	t.Run("failed, reported twice", func(t *testing.T) {
		mails := len(w.box.To(addr))
		id := notify("Reembolso")
		w.wa.Deliver(w.K.Client, w.wa.Statuses(st(id, "sent", t0)))
		for i := 0; i < 2; i++ {
			if code := w.wa.Deliver(w.K.Client, w.wa.Statuses(st(id, "failed", t0.Add(time.Second)))); code != 200 {
				t.Fatalf("failed: %d", code)
			}
		}
		if code := w.wa.Deliver(w.K.Client, w.wa.Statuses(st(id, "delivered", t0.Add(2*time.Second)))); code != 200 {
			t.Fatalf("late delivered: %d", code)
		}
		w.idle(t)
		if r := statusOf(id); r["status"] != whatsapp.StatusFailed || r["errorCode"] != "131026" {
			t.Fatalf("row %v", r)
		}
		got := w.box.Wait(addr, mails+1, 10*time.Second)
		if !strings.Contains(got[len(got)-1].Subject, "Reembolso") {
			t.Fatalf("fallback mail %q", got[len(got)-1].Subject)
		}
		w.idle(t)
		if n := len(w.box.To(addr)); n != mails+1 {
			t.Fatalf("fallback mails = %d, want 1", n-mails)
		}
	})
	t.Run("refused deliveries", func(t *testing.T) {
		id := notify("Pago en efectivo")
		good := w.wa.Statuses(st(id, "delivered", t0))
		other := w.wa.Statuses(st(id, "read", t0))
		for name, d := range map[string]*watest.Delivery{
			"forged":   good.Forged(),
			"tampered": good.Tampered(other.Body),
			"unsigned": {Body: good.Body},
			"bad hex":  {Body: good.Body, Signature: "sha256=zz"},
			"sha1":     {Body: good.Body, Signature: strings.Replace(good.Signature, "sha256=", "sha1=", 1)},
		} {
			if code := w.wa.Deliver(w.K.Client, d); code != http.StatusUnauthorized {
				t.Errorf("%s: %d, want 401", name, code)
			}
		}
		if r := statusOf(id); r["status"] != whatsapp.StatusAccepted {
			t.Fatalf("a refused delivery changed the row: %v", r)
		}
	})
	t.Run("unknown ids", func(t *testing.T) {
		if code := w.wa.Deliver(w.K.Client, w.wa.Statuses(st("wamid.DESCONOCIDO00000000", "delivered", time.Now()))); code != http.StatusServiceUnavailable {
			t.Fatalf("young unknown: %d, want 503", code)
		}
		old := time.Now().Add(-whatsapp.UnknownGrace - time.Minute)
		if code := w.wa.Deliver(w.K.Client, w.wa.Statuses(st("wamid.DESCONOCIDO00000000", "delivered", old))); code != 200 {
			t.Fatalf("old unknown: %d, want 200", code)
		}
	})
}

// Meta's subscription check.
func TestWebhookVerification(t *testing.T) {
	w := newWAWorld(t, false)
	for _, tc := range []struct {
		name, query string
		status      int
		body        string
	}{
		{"right token", "hub.mode=subscribe&hub.verify_token=verificar-camellos&hub.challenge=1158201444", 200, "1158201444"},
		{"wrong token", "hub.mode=subscribe&hub.verify_token=otro&hub.challenge=1", 403, whatsapp.MsgVerifyRefused},
		{"wrong mode", "hub.mode=unsubscribe&hub.verify_token=verificar-camellos&hub.challenge=1", 403, whatsapp.MsgVerifyRefused},
		{"no token", "hub.mode=subscribe&hub.challenge=1", 403, whatsapp.MsgVerifyRefused},
		{"no challenge", "hub.mode=subscribe&hub.verify_token=verificar-camellos", 400, "hub.challenge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.K.Get("/api/whatsapp/webhook?"+tc.query, "")
			if r.Status != tc.status || !strings.Contains(string(r.Raw), tc.body) {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Raw, tc.status, tc.body)
			}
		})
	}
}

// A message left PENDIENTE by a process that stopped (here: queued before
// the service started) is sent once the sender runs: exactly one message.
func TestPendingSentAfterRestart(t *testing.T) {
	var userID string
	w := newWAWorld(t, false, func(app *tests.TestApp) {
		col, _ := app.FindCollectionByNameOrId(users.Collection)
		u := core.NewRecord(col)
		u.SetEmail("antes@example.com")
		u.SetPassword("secreto-123")
		u.Set("name", "Antes del reinicio")
		u.Set("role", users.RoleClient)
		if err := app.Save(u); err != nil {
			panic(err)
		}
		userID = u.Id
		if _, err := whatsapp.QueueNotice(app, whatsapp.Notice{UserID: u.Id, Phone: "573001112233",
			Kind: notifications.KindAppointmentReminder, Title: "Recordatorio de cita", Body: "Mañana a las 9",
			Link: "https://camellos.example.co/agenda.html"}); err != nil {
			panic(err)
		}
	})
	w.idle(t)
	sent := w.wa.Sent()
	if len(sent) != 1 || sent[0].Template != whatsapp.TemplateReminder.Name {
		t.Fatalf("sent %+v", sent)
	}
	if rows := outbox(t, w.K.App, userID); len(rows) != 1 || rows[0]["status"] != whatsapp.StatusAccepted {
		t.Fatalf("outbox %v", rows)
	}
}

// TestNoNumberKeptForAUserErasedMeanwhile: a request to register a number
// whose session was read before its user was erased (the window between
// the session middleware and the handler's transaction) keeps no number and
// sends no code: 401. The same request of an enabled user keeps it.
func TestNoNumberKeptForAUserErasedMeanwhile(t *testing.T) {
	midRequest, eraseFirst, pending := testkit.EraseMidRequest()
	w := newWAWorld(t, false, midRequest)
	for _, erase := range []bool{false, true} {
		u, cookie := w.K.UserWithSession(users.RoleClient)
		if erase {
			eraseFirst(u.Id)
		}
		r := w.K.Put("/api/notifications/whatsapp", cookie, map[string]any{"phone": "3001234567"})
		want, rows := http.StatusAccepted, 1
		if erase {
			want, rows = http.StatusUnauthorized, 0
			if pending(u.Id) {
				t.Fatal("the erasure did not run")
			}
		}
		if r.Status != want {
			t.Errorf("erased %v: %d %s", erase, r.Status, r.Raw)
		}
		for _, col := range []string{whatsapp.ContactsCollection, whatsapp.Collection} {
			if n := w.K.Count(col, "user = {:u}", map[string]any{"u": u.Id}); n != rows {
				t.Errorf("erased %v: %s: %d rows, want %d", erase, col, n, rows)
			}
		}
	}
}
