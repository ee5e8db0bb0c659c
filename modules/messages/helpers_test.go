package messages_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
	_ "time/tzdata"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// talk is a running service with an open job of a client and two camellos
// quoting it, plus an outsider of each role.
type talk struct {
	k                          *testkit.Kit
	client                     *core.Record
	clientCk, adminCk, otherCk string
	cams                       []*core.Record
	camUsers                   []*core.Record
	camCks                     []string
	outsiderCamCk              string
	job                        string
}

func newTalk(t *testing.T) *talk {
	t.Helper()
	t.Setenv("AUTH_IP_LIMIT", "0")
	k := testkit.New(t)
	w := &talk{k: k}
	svc := k.CreateService()
	w.client, w.clientCk = k.UserWithSession(users.RoleClient)
	_, w.adminCk = k.UserWithSession(users.RoleAdmin)
	_, w.otherCk = k.UserWithSession(users.RoleClient)
	for i := 0; i < 2; i++ {
		u, c, ck := k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
		w.cams, w.camUsers, w.camCks = append(w.cams, c), append(w.camUsers, u), append(w.camCks, ck)
	}
	_, _, w.outsiderCamCk = k.CreateCamello(testkit.CamelloOpts{Services: []string{svc.Id}})
	r := k.Post("/api/jobs", w.clientCk, map[string]any{"title": "Arreglar fuga", "serviceId": svc.Id, "city": "Bogotá"})
	w.job = r.Str("job.id")
	for i := range w.cams {
		if r := k.Post("/api/jobs/"+w.job+"/quotes", w.camCks[i], map[string]any{"amount": 50000 + i}); r.Status != 201 {
			t.Fatalf("quote: %s", r.Raw)
		}
	}
	return w
}

func (w *talk) path() string { return "/api/jobs/" + w.job + "/messages" }

func expect(t *testing.T, r *testkit.Response, status int, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if msg != "" && r.Error() != msg {
		t.Fatalf("error %q, want %q: %s", r.Error(), msg, r.Raw)
	}
}

func jpegBytes(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpBytes is a 1×1 lossless WebP.
var webpBytes = []byte{
	0x52, 0x49, 0x46, 0x46, 0x1a, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4c,
	0x0d, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe,
	0x07, 0x00,
}

func newRecord(col *core.Collection, fields map[string]any) *core.Record {
	rec := core.NewRecord(col)
	for f, v := range fields {
		rec.Set(f, v)
	}
	return rec
}
