package imagecheck_test

import (
	"testing"

	"camellos/internal/imagecheck"
	"camellos/internal/imagecheck/craft"

	"github.com/pocketbase/pocketbase/tests"
)

// TestCheckStoredCached: a stored file that passed is read once (its
// verdict kept per app); a refused one is read every time and never kept.
func TestCheckStoredCached(t *testing.T) {
	app, err := tests.NewTestApp(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer app.Cleanup()
	fsys, err := app.NewFilesystem()
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	good, bomb := "c/r/good.png", "c/r/bomb.png"
	if err := fsys.Upload(craft.PNG(10, 10, craft.PNGOptions{ColorType: 6}), good); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Upload(craft.BombPNG(1_000_000, 1_000_000), bomb); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if v := imagecheck.AsViolation(func() error { _, err := imagecheck.CheckStoredCached(app, fsys, bomb, imagecheck.Photo); return err }()); v == nil || v.Code != imagecheck.CodeDimensions {
			t.Fatalf("bomb: %v", v)
		}
	}
	info, err := imagecheck.CheckStoredCached(app, fsys, good, imagecheck.Photo)
	if err != nil || info.Width != 10 {
		t.Fatalf("good: %+v %v", info, err)
	}
	// Replaced in place (never done by PocketBase: names are new on every
	// upload), the kept verdict shows it is not read again.
	if err := fsys.Upload(craft.BombPNG(1_000_000, 1_000_000), good); err != nil {
		t.Fatal(err)
	}
	if info, err := imagecheck.CheckStoredCached(app, fsys, good, imagecheck.Photo); err != nil || info.Width != 10 {
		t.Fatalf("kept verdict: %+v %v", info, err)
	}
	if _, err := imagecheck.CheckStored(fsys, good, imagecheck.Photo); imagecheck.AsViolation(err) == nil {
		t.Fatalf("uncached check: %v", err)
	}
}
