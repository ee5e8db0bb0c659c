package hardening_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"camellos/internal/imagecheck"
	"camellos/internal/imagecheck/craft"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

// MaxUploadRSS is the resident memory the service (this test process) must
// stay under while it takes and serves every crafted image (issue 21).
const MaxUploadRSS = 200 << 20

// MaxUploadGrowth is what the uploads may add to the RSS of a `-fuzz`
// worker: MaxUploadRSS less the service's own ~50 MB.
const MaxUploadGrowth = 150 << 20

// fuzzing reports whether the test runs under `go test -fuzz`.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// realImage is a decodable image of w × h (a gradient, so that a PNG of
// the largest allowed size still fits in 5 MiB).
func realImage(t testing.TB, w, h int, format string) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 64 {
		for x := 0; x < w; x += 64 {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 80, 255})
		}
	}
	var b bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 60})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// uploadSeeds are the crafted headers of issue 21: bombs in every format
// (huge dimensions, a WebP canvas that disagrees with its frame, a
// progressive JPEG, animation bombs), truncated files, and real images up
// to the largest the policy allows.
func uploadSeeds(t testing.TB) [][]byte {
	rgba := craft.PNGOptions{ColorType: 6}
	seeds := [][]byte{
		craft.BombPNG(1_000_000, 1_000_000),
		craft.BombPNG(30000, 30000),
		craft.PNG(8193, 1, rgba),
		craft.PNG(65535, 65535, craft.PNGOptions{ColorType: 6, Depth: 16, Interlace: 1}),
		craft.Truncate(craft.BombPNG(100, 100), 33),
		craft.JPEG(65535, 65535, false),
		craft.JPEG(4096, 4096, true),
		craft.Truncate(craft.JPEG(10, 10, false), 22),
		craft.WebPLossy(16383, 16383),
		craft.WebPLossless(16384, 16384),
		craft.WebPExtended(1<<24, 1<<24, 0x10, 16383, 16383),
		craft.WebPExtended(64, 64, 0, 16383, 16383),
		craft.WebPAnimated(4000, 4000, 500),
		craft.Truncate(craft.WebPLossy(10, 10), 25),
		craft.GIF(65535, 65535, 5000),
		craft.GIF(100, 100, 1),
		realImage(t, 32, 24, "png"),
		realImage(t, 300, 200, "jpeg"),
		[]byte("<svg xmlns='http://www.w3.org/2000/svg'/>"),
	}
	return seeds
}

// uploadWorld is the service the upload fuzz target speaks to, booted once.
type uploadWorld struct {
	p        *testkit.Parties
	auth     string
	fileTok  string
	resetRSS sync.Once
	rss0     int64 // kB at the reset
}

// FuzzUploadedImage feeds crafted PNG, JPEG, WebP and GIF files through
// every upload field (registration, the camello's profile, a message, and
// PocketBase's generic API for camellos.photo and users.avatar as the
// dashboard sends them) and reads every stored one back through every file
// route, thumbnails included. A file the policy refuses is a 400 on every
// path; nothing answers 5xx; and the process's peak RSS stays under
// MaxUploadRSS (VmHWM, reset before the first input).
func FuzzUploadedImage(f *testing.F) {
	for _, s := range uploadSeeds(f) {
		f.Add(s)
	}
	w := newUploadWorld(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		w.resetRSS.Do(func() {
			// The seeds built above are garbage: returned to the OS
			// before the peak is reset, so that it measures the service.
			debug.FreeOSMemory()
			_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
			w.rss0 = vmKB("VmRSS")
		})
		w.upload(t, data)
		peak := vmKB("VmHWM")
		if fuzzing() {
			// A `-fuzz` worker is more than the service (coverage counters,
			// the shared input mapping): its growth is what the service adds.
			if grown := peak - w.rss0; grown > MaxUploadGrowth>>10 {
				t.Fatalf("RSS grew %d MB after a %d-byte upload, limit %d MB", grown>>10, len(data), MaxUploadGrowth>>20)
			}
			return
		}
		if peak > MaxUploadRSS>>10 {
			t.Fatalf("peak RSS %d MB after a %d-byte upload, limit %d MB", peak>>10, len(data), MaxUploadRSS>>20)
		}
	})
	f.Cleanup(func() {
		f.Logf("peak RSS over the inputs: %d MB (limit %d MB)", vmKB("VmHWM")>>10, MaxUploadRSS>>20)
	})
}

func newUploadWorld(tb testing.TB) *uploadWorld {
	tb.Setenv("AUTH_IP_LIMIT", "0")
	w := &uploadWorld{p: testkit.NewParties(tb)}
	w.auth, w.fileTok = w.p.K.Superuser()
	return w
}

// TestLargestAllowedImagesStayUnderRSS: the largest images the policy
// takes (12 MP PNG and JPEG, 48 MiB decoded), through every upload field
// and file route with their thumbnails, keep the process under
// MaxUploadRSS. (Kept out of the fuzz target's seeds: a worker of
// `go test -fuzz`, instrumented, is too slow on them.)
func TestLargestAllowedImagesStayUnderRSS(t *testing.T) {
	images := [][]byte{realImage(t, 4096, 3072, "png"), realImage(t, 4096, 3072, "jpeg")}
	w := newUploadWorld(t)
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	for _, data := range images {
		w.upload(t, data)
	}
	peak := vmKB("VmHWM")
	t.Logf("peak RSS %d MB (limit %d MB)", peak>>10, MaxUploadRSS>>20)
	if peak > MaxUploadRSS>>10 {
		t.Fatalf("peak RSS %d MB, limit %d MB", peak>>10, MaxUploadRSS>>20)
	}
}

func (w *uploadWorld) upload(t *testing.T, data []byte) {
	k, p := w.p.K, w.p
	k.T = t
	_, refused := imagecheck.Photo.CheckBytes(data)
	su := map[string]string{"Authorization": w.auth}
	check := func(path string, r *testkit.Response, ok ...int) bool {
		t.Helper()
		if r.Status >= 500 {
			t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		}
		if refused != nil {
			if r.Status != http.StatusBadRequest {
				t.Fatalf("%s: %d for a file the policy refuses (%v): %s", path, r.Status, refused, r.Raw)
			}
			return false
		}
		for _, s := range append(ok, http.StatusBadRequest) {
			if r.Status == s {
				return r.Status != http.StatusBadRequest
			}
		}
		t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
		return false
	}

	// 1. Registration.
	m := testkit.NewMultipart()
	trades, _ := json.Marshal([]string{"pintura"})
	for f, v := range map[string]string{"name": "Luis Pérez", "email": "fz" + testkit.Unique() + "@example.com", "phone": "3109876543",
		"password": "secreto-123", "confirmPassword": "secreto-123", "acceptTerms": "true", "city": "Medellín",
		"trades": string(trades), "serviceIds": "[]"} {
		m.Field(f, v)
	}
	r := k.Post("/api/register/camello", "", m.File("file", "foto.png", data).Close())
	// Each stored file is read back at once (a later upload replaces it).
	stored := func(rec *core.Record, cookie string) { w.readBack(t, rec, cookie) }
	if check("register", r, http.StatusCreated) {
		if rec, err := k.App.FindRecordById("camellos", r.Str("camello.id")); err == nil {
			stored(rec, p.AdminCookie)
		} else {
			t.Fatalf("registered camello %q: %v", r.Str("camello.id"), err)
		}
	}
	// 2. The camello's own profile.
	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/me/camello", Cookie: p.CamCookie,
		Body: testkit.NewMultipart().File("file", "foto.png", data).Close()})
	if check("profile", r, http.StatusOK) {
		rec, _ := k.App.FindRecordById("camellos", p.Camello.Id)
		stored(rec, p.AdminCookie)
	}
	// 3. A message of a fresh client's job (no per-user limit reached).
	client, cookie := k.UserWithSession(users.RoleClient)
	job := k.CreateJob(testkit.JobOpts{Client: client, Provider: p.Camello, Status: "ASIGNADO"})
	r = k.Post("/api/jobs/"+job.Id+"/messages", cookie,
		testkit.NewMultipart().Field("body", "foto").File("files", "foto.png", data).Close())
	if check("message", r, http.StatusCreated) {
		if rec, err := k.App.FindFirstRecordByData("messages", "job", job.Id); err == nil {
			stored(rec, cookie)
		} else {
			t.Fatal(err)
		}
	}
	// 4. PocketBase's generic API, as the dashboard sends it.
	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/collections/camellos/records/" + p.Camello.Id, Headers: su,
		Body: testkit.NewMultipart().File("photo", "foto.png", data).Close()})
	if check("generic camellos.photo", r, http.StatusOK) {
		rec, _ := k.App.FindRecordById("camellos", p.Camello.Id)
		stored(rec, p.AdminCookie)
	}
	r = k.Do(testkit.Req{Method: http.MethodPatch, Path: "/api/collections/users/records/" + client.Id, Headers: su,
		Body: testkit.NewMultipart().File("avatar", "foto.png", data).Close()})
	if check("generic users.avatar", r, http.StatusOK) {
		rec, _ := k.App.FindRecordById("users", client.Id)
		stored(rec, "")
	}

}

// readBack reads every file of rec through every route that serves it, with
// and without a thumbnail, as a caller allowed to (cookie, plus a
// superuser's file token on PocketBase's route): 200, since it passed the
// policy; never 5xx.
func (w *uploadWorld) readBack(t *testing.T, rec *core.Record, cookie string) {
	t.Helper()
	k := w.p.K
	col := rec.Collection().Name
	for _, field := range []string{"photo", "files", "avatar"} {
		for _, name := range rec.GetStringSlice(field) {
			paths := []string{
				"/api/files/" + col + "/" + rec.Id + "/" + name + "?token=" + w.fileTok,
				"/api/files/" + col + "/" + rec.Id + "/" + name + "?thumb=100x100&token=" + w.fileTok,
			}
			switch col {
			case "camellos":
				paths = append(paths, "/uploads/camellos/"+name)
			case "messages":
				paths = append(paths, "/api/messages/files/"+rec.Id+"/"+name)
			}
			for _, path := range paths {
				if r := k.Get(path, cookie); r.Status != http.StatusOK {
					t.Fatalf("%s: %d %s", path, r.Status, r.Raw)
				}
			}
		}
	}
}

// vmKB reads a /proc/self/status field in kB (0 when unknown).
func vmKB(field string) int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
