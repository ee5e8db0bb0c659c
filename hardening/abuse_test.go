package hardening_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"camellos/hardening"
	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// Answers that carry personal data are never stored by caches.
func TestPersonalAnswersAreNotCached(t *testing.T) {
	t.Setenv("AUTH_IP_LIMIT", "0")
	w := hardening.NewWorld(t)
	k := w.K
	for _, c := range []struct {
		role hardening.Role
		path string
	}{
		{hardening.Client, "/api/me"},
		{hardening.Client, "/api/jobs"},
		{hardening.Client, "/api/notifications"},
		{hardening.Client, "/api/notifications/preferences"},
		{hardening.Camello, "/api/agenda/availability"},
		{hardening.Admin, "/api/admin/users"},
		{hardening.Admin, "/api/admin/camellos/" + w.CamelloID},
		{hardening.Client, "/api/jobs/" + w.JobID},
	} {
		res := k.Get(c.path, w.Cookies[c.role])
		if res.Status != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("GET %s as %s: %d Cache-Control %q", c.path, c.role, res.Status, res.Header.Get("Cache-Control"))
		}
	}
	u := k.CreateUser(users.RoleClient)
	res := k.Post("/api/auth/login", "", map[string]any{"email": u.Email(), "password": testkit.DefaultPassword})
	if res.Status != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
		t.Errorf("login: %d Cache-Control %q", res.Status, res.Header.Get("Cache-Control"))
	}
}

// A chunked body (no Content-Length) over 6 MiB is 413, like a declared one.
func TestChunkedBodyOverLimitIs413(t *testing.T) {
	w := hardening.NewWorld(t)
	k := w.K
	for _, path := range []string{"/api/jobs", "/api/auth/register", "/api/me", "/api/register/camello"} {
		method := http.MethodPost
		if path == "/api/me" {
			method = http.MethodPatch
		}
		status, raw := sendChunked(t, k.URL, method, path, w.Cookies[hardening.Client], 7<<20)
		if status != http.StatusRequestEntityTooLarge || !bytes.Contains(raw, []byte("demasiado grande")) {
			t.Errorf("chunked 7 MiB to %s: %d %s", path, status, clip(raw))
		}
	}
	// Just under the limit is read (and then judged on its content).
	if status, raw := sendChunked(t, k.URL, http.MethodPost, "/api/jobs", w.Cookies[hardening.Client], 6<<20-100); status == http.StatusRequestEntityTooLarge {
		t.Errorf("chunked body under 6 MiB: %d %s", status, clip(raw))
	}
}

// sendChunked sends a JSON body of about size bytes with chunked transfer
// encoding over a raw connection, reading the answer while still writing
// (a server that refuses early stops reading the body).
func sendChunked(t *testing.T, base, method, path, cookie string, size int) (int, []byte) {
	t.Helper()
	u, _ := url.Parse(base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nCookie: %s=%s\r\nConnection: close\r\n\r\n",
		method, path, u.Host, session.SessionCookie, cookie)
	go func() {
		chunk := func(b []byte) error {
			_, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(b), b)
			return err
		}
		if chunk([]byte(`{"title":"`)) != nil {
			return
		}
		block := bytes.Repeat([]byte("a"), 64<<10)
		for sent := 0; sent < size; sent += len(block) {
			if sent+len(block) > size {
				block = block[:size-sent]
			}
			if chunk(block) != nil {
				return
			}
		}
		if chunk([]byte(`"}`)) != nil {
			return
		}
		fmt.Fprint(conn, "0\r\n\r\n")
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// page beyond the int range, or so large that the offset would wrap, is 400.
func TestPageOverflowIsRefused(t *testing.T) {
	w := hardening.NewWorld(t)
	for _, c := range []struct {
		role hardening.Role
		path string
	}{
		{hardening.Client, "/api/jobs"},
		{hardening.Admin, "/api/admin/jobs"},
		{hardening.Client, "/api/agenda/appointments"},
	} {
		for _, page := range []string{"99999999999999999999", "9223372036854775807", "461168601842738791", "1000001"} {
			res := w.K.Get(c.path+"?page="+page, w.Cookies[c.role])
			if res.Status != 400 || len(res.FieldErrors("page")) == 0 {
				t.Errorf("%s?page=%s: %d %s", c.path, page, res.Status, clip(res.Raw))
			}
		}
		if res := w.K.Get(c.path+"?page=1000000", w.Cookies[c.role]); res.Status != 200 {
			t.Errorf("%s?page=1000000: %d %s", c.path, res.Status, clip(res.Raw))
		}
	}
}

// The photo of a camello that is not public (PENDIENTE, RECHAZADO,
// SUSPENDIDO) is served only to its owner and admins; while ACTIVO, to anyone.
func TestPhotosOfNonPublicCamellos(t *testing.T) {
	w := hardening.NewWorld(t)
	k := w.K
	owner, cam, ownerCookie := k.CreateCamello(testkit.CamelloOpts{Status: "PENDIENTE", Name: "Foto Pendiente"})
	_ = owner
	f, err := filesystem.NewFileFromBytes(testkit.PNG(t), "photo.png")
	if err != nil {
		t.Fatal(err)
	}
	cam.Set("photo", f)
	if err := k.App.Save(cam); err != nil {
		t.Fatal(err)
	}
	path := "/uploads/camellos/" + cam.GetString("photo")
	check := func(label string, want map[hardening.Role]int, ownerWant int) {
		t.Helper()
		for role, status := range want {
			if got := k.Get(path, w.Cookies[role]).Status; got != status {
				t.Errorf("%s, as %s: %d, want %d", label, role, got, status)
			}
		}
		if got := k.Get(path, ownerCookie); got.Status != ownerWant {
			t.Errorf("%s, as its owner: %d, want %d", label, got.Status, ownerWant)
		}
	}
	hidden := map[hardening.Role]int{hardening.Anonymous: 404, hardening.Client: 404, hardening.Camello: 404, hardening.Admin: 200}
	check("PENDIENTE", hidden, 200)
	for _, st := range []string{"ACTIVO", "SUSPENDIDO"} {
		cam.Set("status", st)
		if err := k.App.Save(cam); err != nil {
			t.Fatal(err)
		}
		if st == "ACTIVO" {
			check(st, map[hardening.Role]int{hardening.Anonymous: 200, hardening.Client: 200, hardening.Admin: 200}, 200)
		} else {
			check(st, hidden, 200)
			if res := k.Get(path, ""); res.Header.Get("Cache-Control") == "" || strings.Contains(res.Header.Get("Cache-Control"), "public") {
				t.Errorf("a hidden photo's refusal must not be cached publicly: %q", res.Header.Get("Cache-Control"))
			}
		}
	}
}

// An approved camello's edits to name, photo, document or description are
// recorded for the admin to review: the admin camello answer shows them.
func TestApprovedCamelloEditsAreRecordedForReview(t *testing.T) {
	w := hardening.NewWorld(t)
	k := w.K
	cookie := w.Cookies[hardening.Camello]
	admin := w.Cookies[hardening.Admin]
	before := k.Get("/api/admin/camellos/"+w.CamelloID, admin)
	if before.Status != 200 || before.Get("camello.review.pending") != false {
		t.Fatalf("fresh camello: %d %s", before.Status, clip(before.Raw))
	}
	// Fields that are not reviewed leave no record.
	if r := k.Patch("/api/me/camello", cookie, map[string]any{"neighborhood": "Chapinero"}); r.Status != 200 {
		t.Fatalf("neighborhood: %d %s", r.Status, clip(r.Raw))
	}
	if r := k.Get("/api/admin/camellos/"+w.CamelloID, admin); r.Get("camello.review.pending") != false {
		t.Fatalf("neighborhood flagged: %s", clip(r.Raw))
	}
	if r := k.Patch("/api/me/camello", cookie, map[string]any{"name": "Nombre Nuevo", "description": "Ahora hago de todo"}); r.Status != 200 {
		t.Fatalf("edit: %d %s", r.Status, clip(r.Raw))
	}
	m := testkit.NewMultipart().File("file", "yo.png", testkit.PNG(t)).Close()
	if r := k.Patch("/api/me/camello", cookie, m); r.Status != 200 {
		t.Fatalf("photo: %d %s", r.Status, clip(r.Raw))
	}
	after := k.Get("/api/admin/camellos/"+w.CamelloID, admin)
	fields := fmt.Sprint(after.Get("camello.review.fields"))
	if after.Get("camello.review.pending") != true || after.Str("camello.review.since") == "" ||
		!strings.Contains(fields, "name") || !strings.Contains(fields, "description") || !strings.Contains(fields, "photo") ||
		strings.Contains(fields, "neighborhood") {
		t.Fatalf("admin answer after edits: %v", after.Get("camello.review"))
	}
	// The public answer shows no review data; an admin decision clears it.
	if pub := k.Get("/api/camellos/"+w.CamelloID, ""); pub.Get("camello.review") != nil {
		t.Fatalf("review leaked publicly: %s", clip(pub.Raw))
	}
	if r := k.Patch("/api/admin/camellos/"+w.CamelloID, admin, map[string]any{"notes": "Revisado"}); r.Status != 200 {
		t.Fatalf("admin review: %d %s", r.Status, clip(r.Raw))
	}
	if r := k.Get("/api/admin/camellos/"+w.CamelloID, admin); r.Get("camello.review.pending") != false {
		t.Fatalf("after the admin's review: %s", clip(r.Raw))
	}
	// A PENDIENTE camello's edits are reviewed at approval anyway: no record.
	pending := k.Get("/api/admin/camellos/"+w.PendingID, admin)
	if pending.Get("camello.review.pending") != false {
		t.Fatalf("pending camello: %s", clip(pending.Raw))
	}
}

// PocketBase's own rate limiter guards its auth routes (the dashboard
// sign-in): 30 wrong superuser passwords, then the right one, is throttled.
func TestDashboardSignInIsRateLimited(t *testing.T) {
	k := testkit.New(t)
	col, err := k.App.FindCollectionByNameOrId(core.CollectionNameSuperusers)
	if err != nil {
		t.Fatal(err)
	}
	su := core.NewRecord(col)
	su.SetEmail("root@example.com")
	su.SetPassword("la-clave-del-panel")
	if err := k.App.Save(su); err != nil {
		t.Fatal(err)
	}
	signIn := func(pass string) int {
		return k.Post("/api/collections/_superusers/auth-with-password", "", map[string]any{"identity": "root@example.com", "password": pass}).Status
	}
	got := map[int]int{}
	for i := 0; i < 30; i++ {
		got[signIn(fmt.Sprintf("mala-%d", i))]++
	}
	if got[429] == 0 {
		t.Fatalf("30 wrong superuser passwords: %v (none throttled)", got)
	}
	if s := signIn("la-clave-del-panel"); s != 429 {
		t.Fatalf("right password after the burst: %d, want 429", s)
	}
	if !k.App.Settings().RateLimits.Enabled {
		t.Fatal("rate limits are off")
	}
}

// A client may direct only so many job requests at one camello.
func TestDirectedJobRequestsAreLimited(t *testing.T) {
	w := hardening.NewWorld(t)
	k := w.K
	_, cookie := k.UserWithSession(users.RoleClient)
	post := func(camello string) *testkit.Response {
		return k.Post("/api/jobs", cookie, map[string]any{"title": "Arreglo urgente", "serviceId": w.ServiceID,
			"city": "Bogotá", "camelloId": camello})
	}
	got := map[int]int{}
	var last *testkit.Response
	for i := 0; i < 8; i++ {
		last = post(w.CamelloID)
		got[last.Status]++
	}
	if got[201] != 5 || got[429] != 3 || last.Header.Get("Retry-After") == "" {
		t.Fatalf("8 requests to one camello: %v", got)
	}
	// Another camello, or an open job, is not limited by it.
	if r := post(w.OtherCamelloID); r.Status != 201 {
		t.Fatalf("another camello: %d %s", r.Status, clip(r.Raw))
	}
	if r := post(""); r.Status != 201 {
		t.Fatalf("open job: %d %s", r.Status, clip(r.Raw))
	}
	// Refused requests (validation) do not count.
	_, fresh := k.UserWithSession(users.RoleClient)
	for i := 0; i < 6; i++ {
		r := k.Post("/api/jobs", fresh, map[string]any{"title": "x", "serviceId": w.ServiceID, "city": "Bogotá", "camelloId": w.OtherCamelloID})
		if r.Status != 400 {
			t.Fatalf("invalid request %d: %d", i, r.Status)
		}
	}
	if r := k.Post("/api/jobs", fresh, map[string]any{"title": "Válido", "serviceId": w.ServiceID, "city": "Bogotá", "camelloId": w.OtherCamelloID}); r.Status != 201 {
		t.Fatalf("valid after invalid ones: %d %s", r.Status, clip(r.Raw))
	}
}
