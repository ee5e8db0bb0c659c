package apitest_test

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/auth"
	"camellos/modules/jobs"
	"camellos/modules/notifications"
	"camellos/modules/users"
)

// registerCamello signs a camello up over HTTP with a photo; returns the
// e-mail, the camello id and the photo path.
func registerCamello(t *testing.T, k *testkit.Kit) (string, string, string) {
	t.Helper()
	email := "camello" + testkit.Unique() + "@example.com"
	body := testkit.NewMultipart().Field("name", "Luis Pérez").Field("email", email).Field("phone", "3109876543").
		Field("password", "secreto-123").Field("confirmPassword", "secreto-123").Field("acceptTerms", "true").
		Field("city", "Medellín").Field("documentId", "1020304050").Field("description", "Plomero con 10 años").
		Field("trades", `["plomería"]`).File("file", "foto.png", testkit.PNG(t)).Close()
	res := k.Post("/api/register/camello", "", body)
	if res.Status != 201 || res.Str("camello.photo") == "" {
		t.Fatalf("register camello: %d %s", res.Status, res.Raw)
	}
	if res.Get("user.verified") != false {
		t.Fatalf("a new user is not verified: %s", res.Raw)
	}
	return email, res.Str("camello.id"), res.Str("camello.photo")
}

func TestVerificationOnBothSignUps(t *testing.T) {
	k, mb := mailKit(t)
	_, adminCookie := k.UserWithSession(users.RoleAdmin)

	// Client sign-up.
	email := registerClient(t, k)
	m := mb.Wait(email, 1, 10*time.Second)[0]
	if m.Subject != "Confirma tu correo en Camellos" {
		t.Fatalf("subject %q", m.Subject)
	}
	token := followLink(t, m, email, "verificar.html")
	rec, err := k.App.FindFirstRecordByData(auth.Tokens, "tokenHash", sha(token))
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Until(rec.GetDateTime("expiresAt").Time()); left < 23*time.Hour+59*time.Minute || left > 24*time.Hour+time.Minute {
		t.Errorf("verification link valid for %s", left)
	}
	_, cookie := login(k, email, "secreto-123")
	if me := k.Get("/api/me", cookie); me.Get("user.verified") != false {
		t.Fatalf("before: %s", me.Raw)
	}
	for _, bad := range []string{"", token + "x", "otro"} {
		if res := k.Post("/api/auth/verify", "", map[string]any{"token": bad}); res.Status != 400 || res.Error() != auth.MsgBadLink {
			t.Errorf("token %q: %d %s", bad, res.Status, res.Raw)
		}
	}
	// A reset link is not a verification link.
	res := k.Post("/api/auth/verify", "", map[string]any{"token": token})
	if res.Status != 200 || res.Get("user.verified") != true || res.Str("user.email") != email {
		t.Fatalf("verify: %d %s", res.Status, res.Raw)
	}
	if me := k.Get("/api/me", cookie); me.Get("user.verified") != true {
		t.Fatalf("after: %s", me.Raw)
	}
	if res := k.Post("/api/auth/verify", "", map[string]any{"token": token}); res.Status != 400 {
		t.Fatalf("second use: %d", res.Status)
	}
	// Admins see the flag in their list.
	list := k.Get("/api/admin/users?q="+email, adminCookie)
	if list.Status != 200 || list.Get("users.0.verified") != true {
		t.Fatalf("admin list: %s", list.Raw)
	}

	// Resend: signed in only; a fresh link voids the older one.
	if res := k.Post("/api/auth/verify/resend", "", nil); res.Status != 401 {
		t.Fatalf("resend without session: %d", res.Status)
	}
	camEmail, camID, _ := registerCamello(t, k)
	first := followLink(t, mb.Wait(camEmail, 1, 10*time.Second)[0], camEmail, "verificar.html")
	_, camCookie := login(k, camEmail, "secreto-123")
	if res := k.Post("/api/auth/verify/resend", camCookie, nil); res.Status != 202 || res.Get("ok") != true {
		t.Fatalf("resend: %d %s", res.Status, res.Raw)
	}
	second := followLink(t, mb.Wait(camEmail, 2, 10*time.Second)[1], camEmail, "verificar.html")
	if res := k.Post("/api/auth/verify", "", map[string]any{"token": first}); res.Status != 400 {
		t.Fatalf("older link: %d", res.Status)
	}
	// An expired link.
	if res := k.Post("/api/auth/verify/resend", camCookie, nil); res.Status != 202 {
		t.Fatal(res.Status)
	}
	expired := followLink(t, mb.Wait(camEmail, 3, 10*time.Second)[2], camEmail, "verificar.html")
	if _, err := k.App.DB().NewQuery("UPDATE account_tokens SET expiresAt = '2020-01-01 00:00:00.000Z' WHERE tokenHash = {:h}").
		Bind(map[string]any{"h": sha(expired)}).Execute(); err != nil {
		t.Fatal(err)
	}
	if res := k.Post("/api/auth/verify", "", map[string]any{"token": expired}); res.Status != 400 || res.Error() != auth.MsgBadLink {
		t.Fatalf("expired link: %d %s", res.Status, res.Raw)
	}
	if res := k.Post("/api/auth/verify/resend", camCookie, nil); res.Status != 202 {
		t.Fatalf("3rd resend: %d", res.Status)
	}
	if res := k.Post("/api/auth/verify/resend", camCookie, nil); res.Status != 429 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("4th resend within 15 minutes: %d", res.Status)
	}
	// The resend limit is per user: mint a fresh link directly for the rest.
	second = freshVerifyLink(t, k, mb, camEmail)

	// The public badge follows the flag.
	if res := k.Patch("/api/admin/camellos/"+camID, adminCookie, map[string]any{"status": "ACTIVO"}); res.Status != 200 {
		t.Fatalf("activate: %d %s", res.Status, res.Raw)
	}
	if pub := k.Get("/api/camellos/"+camID, ""); pub.Get("camello.verified") != false {
		t.Fatalf("badge before: %s", pub.Raw)
	}
	if res := k.Post("/api/auth/verify", "", map[string]any{"token": second}); res.Status != 200 {
		t.Fatalf("verify camello: %d %s", res.Status, res.Raw)
	}
	if pub := k.Get("/api/camellos/"+camID, ""); pub.Get("camello.verified") != true {
		t.Fatalf("badge after: %s", pub.Raw)
	}
	list = k.Get("/api/camellos", "")
	found := false
	for _, c := range list.Get("camellos").([]any) {
		if c.(map[string]any)["id"] == camID {
			found = c.(map[string]any)["verified"] == true
		}
	}
	if !found {
		t.Fatalf("listing badge: %s", list.Raw)
	}
	// A verified user asking again gets the same answer and no mail.
	_, clientCookie := login(k, email, "secreto-123")
	before := len(mb.To(email))
	if res := k.Post("/api/auth/verify/resend", clientCookie, nil); res.Status != 202 {
		t.Fatalf("resend verified: %d", res.Status)
	}
	settle(t, k)
	if n := len(mb.To(email)); n != before {
		t.Fatalf("a verified user got %d more mails", n-before)
	}
}

func TestNotificationsAreMailedPerPreference(t *testing.T) {
	k, mb := mailKit(t)
	user, cookie := k.UserWithSession(users.RoleClient)
	off := notifications.KindJobStatus
	if res := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		off: map[string]any{"email": false}}}); res.Status != 200 {
		t.Fatalf("prefs: %d %s", res.Status, res.Raw)
	}
	for _, kind := range notifications.Kinds {
		err := notifications.Notify(k.App, user.Id, notifications.Message{Kind: kind, Title: "Aviso " + kind + " ñandú",
			Body: "Cuerpo del aviso", URL: "/trabajos.html?id=abc"})
		if err != nil {
			t.Fatal(err)
		}
	}
	got := mb.Wait(user.Email(), len(notifications.Kinds)-1, 15*time.Second)
	settle(t, k)
	if !notifications.WaitIdle(k.App, time.Minute) {
		t.Fatal("dispatcher")
	}
	got = mb.To(user.Email())
	if len(got) != len(notifications.Kinds)-1 {
		t.Fatalf("mails = %d, want %d", len(got), len(notifications.Kinds)-1)
	}
	for _, m := range got {
		if strings.Contains(m.Subject, off) {
			t.Errorf("%s mailed with its e-mail preference off", off)
		}
		if !strings.HasPrefix(m.Subject, "Aviso ") || !strings.HasSuffix(m.Subject, " ñandú") {
			t.Errorf("subject %q", m.Subject)
		}
		if m.Header.Get("List-Unsubscribe") != "<"+appURL+"/notificaciones.html>" {
			t.Errorf("List-Unsubscribe = %q", m.Header.Get("List-Unsubscribe"))
		}
		if m.From != "no-responder@camellos.co" || m.Header.Get("Message-Id") == "" {
			t.Errorf("from %q, id %q", m.From, m.Header.Get("Message-Id"))
		}
		for _, part := range []string{m.Text, m.HTML} {
			if !strings.Contains(part, "Cuerpo del aviso") || !strings.Contains(part, appURL+"/trabajos.html?id=abc") ||
				!strings.Contains(part, appURL+"/notificaciones.html") {
				t.Errorf("part lacks body or links: %q", part)
			}
		}
	}
}

// pushKeys are a browser's subscription keys.
func pushKeys(t *testing.T) (string, string) {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	return base64.RawURLEncoding.EncodeToString(priv.PublicKey().Bytes()), base64.RawURLEncoding.EncodeToString(auth)
}

func TestExportHoldsEverythingAndNoSecret(t *testing.T) {
	k, mb := mailKit(t)
	email, camID, _ := registerCamello(t, k)
	verifyMail := mb.Wait(email, 1, 10*time.Second)[0]
	verifyToken := followLink(t, verifyMail, email, "verificar.html")
	_, cookie := login(k, email, "secreto-123")
	if res := k.Post("/api/auth/password/forgot", "", map[string]any{"email": email}); res.Status != 202 {
		t.Fatal(res.Status)
	}
	resetToken := followLink(t, mb.Wait(email, 2, 10*time.Second)[1], email, "restablecer.html")
	user, err := k.App.FindAuthRecordByEmail("users", email)
	if err != nil {
		t.Fatal(err)
	}
	camello, _ := k.App.FindRecordById("camellos", camID)
	svc := k.CreateService()
	camello.Set("status", "ACTIVO")
	camello.Set("services", []string{svc.Id})
	if err := k.App.Save(camello); err != nil {
		t.Fatal(err)
	}
	client, clientCookie := k.UserWithSession(users.RoleClient)
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "COMPLETADO", Title: "Arreglar la fuga"})
	if res := k.Post("/api/jobs/"+job.Id+"/review", clientCookie, map[string]any{"rating": 5, "comment": "Excelente trabajo"}); res.Status != 201 {
		t.Fatalf("review: %d %s", res.Status, res.Raw)
	}
	if res := k.Post("/api/jobs/"+job.Id+"/messages", clientCookie, map[string]any{"body": "Gracias por todo"}); res.Status != 201 {
		t.Fatalf("message: %d %s", res.Status, res.Raw)
	}
	open := k.CreateJob(testkit.JobOpts{Client: client, Service: svc, Title: "Pintar la sala"})
	k.CreateRecord("quotes", map[string]any{"job": open.Id, "camello": camID, "amount": 150000, "currency": "COP",
		"message": "Puedo el sábado", "status": "PENDIENTE", "expiresAt": time.Now().Add(72 * time.Hour).UTC()})
	p256, authKey := pushKeys(t)
	k.CreateRecord("push_subscriptions", map[string]any{"user": user.Id, "endpoint": "https://push.example.com/e/" + testkit.Unique(),
		"p256dh": p256, "auth": authKey, "userAgent": "Navegador de prueba"})
	if res := k.Put("/api/notifications/preferences", cookie, map[string]any{"preferences": map[string]any{
		"JOB_STATUS": map[string]any{"push": false}}}); res.Status != 200 {
		t.Fatal(res.Status)
	}

	// Without a session: 401.
	if res := k.Get("/api/me/export", ""); res.Status != 401 {
		t.Fatalf("export without session: %d", res.Status)
	}
	res := k.Get("/api/me/export", cookie)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("export: %d %s", res.Status, res.Raw)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, ".json") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Errorf("Cache-Control %q", cc)
	}
	for _, key := range []string{"user", "camello", "jobs", "quotes", "messages", "appointments", "reviewsWritten", "reviewsReceived",
		"notifications", "preferences", "pushSubscriptions", "consents", "sessions", "availability", "exportedAt"} {
		if _, ok := res.JSON[key]; !ok {
			t.Errorf("export lacks %s", key)
		}
	}
	checks := map[string]any{
		"user.email": email, "user.verified": false, "camello.id": camID, "camello.documentId": "1020304050",
		"jobs.0.title": "Arreglar la fuga", "reviewsReceived.0.comment": "Excelente trabajo",
		"pushSubscriptions.0.userAgent": "Navegador de prueba", "preferences.JOB_STATUS.push": false,
		"messages.0.body": "Gracias por todo", "quotes.0.message": "Puedo el sábado",
	}
	for path, want := range checks {
		if got := res.Get(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if n, _ := res.Get("sessions").([]any); len(n) == 0 {
		t.Error("no session metadata")
	}
	if n, _ := res.Get("notifications").([]any); len(n) == 0 {
		t.Error("no notifications (the job's)")
	}
	// No password hash, token or token hash anywhere.
	raw := string(res.Raw)
	user, _ = k.App.FindRecordById("users", user.Id)
	secrets := map[string]string{"session token": cookie, "reset token": resetToken, "verify token": verifyToken,
		"session hash": sha(cookie), "reset hash": sha(resetToken), "token key": user.TokenKey(),
		"password hash": user.GetString("password"), "p256dh": p256, "auth": authKey}
	for name, s := range secrets {
		if s != "" && strings.Contains(raw, s) {
			t.Errorf("export contains the %s", name)
		}
	}
	for _, word := range []string{"$2a$", "tokenHash", "tokenKey", "passwordHash", `"password"`} {
		if strings.Contains(raw, word) {
			t.Errorf("export contains %q", word)
		}
	}
	// The other party's export has its own data only.
	other := k.Get("/api/me/export", clientCookie)
	if other.Str("user.id") != client.Id || strings.Contains(string(other.Raw), email) {
		t.Errorf("client export: %s", other.Raw)
	}
}

func TestErasure(t *testing.T) {
	k, mb := mailKit(t)
	email, camID, photo := registerCamello(t, k)
	mb.Wait(email, 1, 10*time.Second)
	_, cookie := login(k, email, "secreto-123")
	user, _ := k.App.FindAuthRecordByEmail("users", email)
	camello, _ := k.App.FindRecordById("camellos", camID)
	svc := k.CreateService()
	camello.Set("status", "ACTIVO")
	camello.Set("services", []string{svc.Id})
	if err := k.App.Save(camello); err != nil {
		t.Fatal(err)
	}
	if res := k.Get(photo, ""); res.Status != 200 {
		t.Fatalf("photo before: %d", res.Status)
	}
	client, clientCookie := k.UserWithSession(users.RoleClient)
	done := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "COMPLETADO", Title: "Trabajo terminado"})
	live := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Status: "ASIGNADO", Title: "Trabajo en curso"})
	open := k.CreateJob(testkit.JobOpts{Client: client, Provider: camello, Source: "PERFIL", Title: "Solicitud directa"})
	p256, authKey := pushKeys(t)
	k.CreateRecord("push_subscriptions", map[string]any{"user": user.Id, "endpoint": "https://push.example.com/e/" + testkit.Unique(), "p256dh": p256, "auth": authKey})
	board := k.CreateJob(testkit.JobOpts{Client: client, Service: svc, Title: "Trabajo abierto"})
	quote := k.CreateRecord("quotes", map[string]any{"job": board.Id, "camello": camID, "amount": 90000, "currency": "COP",
		"status": "PENDIENTE", "expiresAt": time.Now().Add(72 * time.Hour).UTC()})
	if res := k.Post("/api/jobs/"+done.Id+"/messages", clientCookie, map[string]any{"body": "¿Quedó bien?"}); res.Status != 201 {
		t.Fatalf("message: %d %s", res.Status, res.Raw)
	}
	if res := k.Post("/api/jobs/"+done.Id+"/messages", cookie, map[string]any{"body": "Sí, todo en orden"}); res.Status != 201 {
		t.Fatalf("camello's message: %d %s", res.Status, res.Raw)
	}

	stranger, strangerCookie := k.UserWithSession(users.RoleClient)
	cases := []struct {
		name   string
		cookie string
		body   any
		status int
		msg    string
	}{
		{"no session", "", map[string]any{"password": "secreto-123"}, 401, ""},
		{"no password", cookie, map[string]any{}, 400, ""},
		{"wrong password", cookie, map[string]any{"password": "otra-clave"}, 401, "Credenciales inválidas"},
		{"stranger with the camello's password", strangerCookie, map[string]any{"password": "otra-clave-x"}, 401, "Credenciales inválidas"},
		{"job in progress", cookie, map[string]any{"password": "secreto-123"}, 409, jobs.MsgLiveJobs},
	}
	for _, tc := range cases {
		res := k.Delete("/api/me", tc.cookie, tc.body)
		if res.Status != tc.status || (tc.msg != "" && res.Error() != tc.msg) {
			t.Errorf("%s: %d %s", tc.name, res.Status, res.Raw)
		}
	}
	// Nothing was half-done by the refused erasure.
	if r, _ := k.App.FindRecordById("camellos", camID); r.GetString("status") != "ACTIVO" || r.GetString("photo") == "" {
		t.Fatal("the refused erasure changed the camello")
	}
	if k.Get("/api/me", cookie).Status != 200 || k.Get("/api/me", strangerCookie).Status != 200 {
		t.Fatal("sessions lost")
	}
	_ = stranger
	if res := k.Post("/api/jobs/"+live.Id+"/cancel", clientCookie, nil); res.Status != 200 {
		t.Fatalf("cancel: %d %s", res.Status, res.Raw)
	}

	res := k.Delete("/api/me", cookie, map[string]any{"password": "secreto-123"})
	if res.Status != 200 {
		t.Fatalf("erase: %d %s", res.Status, res.Raw)
	}
	// The session is gone, the account cannot sign in or ask for a link.
	if k.Get("/api/me", cookie).Status != 401 {
		t.Error("session survived")
	}
	if r, _ := login(k, email, "secreto-123"); r.Status != 401 {
		t.Errorf("sign-in after erasure: %d", r.Status)
	}
	// Not listed, not public, its photo gone from storage.
	if k.Get("/api/camellos/"+camID, "").Status != 404 {
		t.Error("still public")
	}
	for _, c := range k.Get("/api/camellos", "").Get("camellos").([]any) {
		if c.(map[string]any)["id"] == camID {
			t.Error("still listed")
		}
	}
	if res := k.Get(photo, ""); res.Status != 404 {
		t.Errorf("photo after: %d", res.Status)
	}
	u, _ := k.App.FindRecordById("users", user.Id)
	if u.GetString("name") != "Usuario eliminado" || u.Email() != "" || u.GetString("phone") != "" || !u.GetBool("disabled") {
		t.Errorf("user kept data: %v", u.PublicExport())
	}
	c, _ := k.App.FindRecordById("camellos", camID)
	for _, f := range []string{"documentId", "phone", "description", "photo", "neighborhood"} {
		if c.GetString(f) != "" {
			t.Errorf("camello %s kept: %q", f, c.GetString(f))
		}
	}
	if c.GetString("name") != "Usuario eliminado" {
		t.Errorf("camello name %q", c.GetString("name"))
	}
	for _, col := range []string{"sessions", "push_subscriptions", "notifications", "account_tokens", "mail_outbox"} {
		if n := k.Count(col, "user = {:u}", map[string]any{"u": user.Id}); n != 0 {
			t.Errorf("%s: %d left", col, n)
		}
	}
	// The other party still reads its history under "Usuario eliminado".
	view := k.Get("/api/jobs/"+done.Id, clientCookie)
	if view.Status != 200 || view.Str("job.provider.name") != "Usuario eliminado" {
		t.Errorf("client's job: %d %s", view.Status, view.Raw)
	}
	thread := k.Get("/api/jobs/"+done.Id+"/messages", clientCookie)
	if thread.Status != 200 || thread.Str("messages.1.author.name") != "Usuario eliminado" || thread.Str("messages.1.body") != "Sí, todo en orden" {
		t.Errorf("client's conversation: %d %s", thread.Status, thread.Raw)
	}
	if q, _ := k.App.FindRecordById("quotes", quote.Id); q.GetString("status") != "RETIRADA" {
		t.Errorf("live quote: %s", q.GetString("status"))
	}
	if r := k.Get("/api/jobs/"+open.Id, clientCookie); r.Str("job.status") != "CANCELADO" {
		t.Errorf("the pending request was not cancelled: %s", r.Raw)
	}
	// The address is free again.
	if res := k.Post("/api/auth/register", "", clientBody(email)); res.Status != 201 {
		t.Errorf("register again: %d %s", res.Status, res.Raw)
	}
	// A reset request for the erased address mails the new account only.
	_ = http.StatusOK
}

func TestErasureOfTheLastAdmin(t *testing.T) {
	k, _ := mailKit(t)
	_, cookie := k.UserWithSession(users.RoleAdmin)
	res := k.Delete("/api/me", cookie, map[string]any{"password": testkit.DefaultPassword})
	if res.Status != 409 || res.Error() != auth.MsgLastAdmin {
		t.Fatalf("last admin: %d %s", res.Status, res.Raw)
	}
	_, cookie2 := k.UserWithSession(users.RoleAdmin)
	if res := k.Delete("/api/me", cookie2, map[string]any{"password": testkit.DefaultPassword}); res.Status != 200 {
		t.Fatalf("one of two admins: %d %s", res.Status, res.Raw)
	}
	if res := k.Delete("/api/me", cookie, map[string]any{"password": testkit.DefaultPassword}); res.Status != 409 {
		t.Fatalf("now the last again: %d", res.Status)
	}
}

// freshVerifyLink mails a new verification link to a user through the
// auth module's own function (the resend route is throttled per user).
func freshVerifyLink(t *testing.T, k *testkit.Kit, mb *testkit.Mailbox, email string) string {
	t.Helper()
	u, err := k.App.FindAuthRecordByEmail("users", email)
	if err != nil {
		t.Fatal(err)
	}
	settle(t, k)
	n := len(mb.To(email))
	auth.SendVerification(k.App, u)
	return followLink(t, mb.Wait(email, n+1, 10*time.Second)[n], email, "verificar.html")
}
