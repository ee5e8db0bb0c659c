package files_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/files"
)

// TestThumbnailsWaitForTheBudget: a thumbnail still to be made waits for
// its share of the memory budget; while the budget is taken it is refused
// with 503 and Retry-After (never made over the budget); a thumbnail made
// already and the original are served without waiting.
func TestThumbnailsWaitForTheBudget(t *testing.T) {
	k := testkit.New(t)
	_, _, cam := withPhoto(t, k, "ACTIVO")
	path := "/api/files/camellos/" + cam.Id + "/" + cam.GetString("photo")
	if r := k.Get(path+"?thumb=100x100", ""); r.Status != http.StatusOK {
		t.Fatalf("first thumb: %d", r.Status)
	}
	files.SetThumbWait(50 * time.Millisecond)
	defer files.SetThumbWait(30 * time.Second)
	sem := files.ThumbsOf(k.App)
	if err := sem.Acquire(context.Background(), files.ThumbBudget); err != nil {
		t.Fatal(err)
	}
	r := k.Get(path+"?thumb=0x50", "") // not a thumb size of the field: the original, no wait
	testkit.Expect(t, r, http.StatusOK, "")
	r = k.Get(path+"?thumb=100x100", "") // made already
	testkit.Expect(t, r, http.StatusOK, "")
	_, _, other := withPhoto(t, k, "ACTIVO")
	opath := "/api/files/camellos/" + other.Id + "/" + other.GetString("photo")
	r = k.Get(opath+"?thumb=100x100", "")
	testkit.Expect(t, r, http.StatusServiceUnavailable, files.MsgThumbsBusy)
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if hasPrefix(t, k, other.BaseFilesPath()+"/thumbs_") {
		t.Fatal("a thumbnail was made over the budget")
	}
	sem.Release(files.ThumbBudget)
	r = k.Get(opath+"?thumb=100x100", "")
	testkit.Expect(t, r, http.StatusOK, "")
	if !hasPrefix(t, k, other.BaseFilesPath()+"/thumbs_") {
		t.Fatal("no thumbnail made once the budget is free")
	}
}
