package imagecheck_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"camellos/internal/imagecheck"
)

func TestKind(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 3))
	var p, j bytes.Buffer
	_ = png.Encode(&p, img)
	_ = jpeg.Encode(&j, img, nil)
	webp := []byte{0x52, 0x49, 0x46, 0x46, 0x1a, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4c,
		0x0d, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00}
	cases := []struct {
		name string
		data []byte
		ext  string
	}{
		{"png", p.Bytes(), ".png"},
		{"jpeg", j.Bytes(), ".jpg"},
		{"webp", webp, ".webp"},
		{"html", []byte("<!DOCTYPE html><script>alert(1)</script>"), ""},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), ""},
		{"truncated png", p.Bytes()[:16], ""},
		{"png magic then html", append([]byte("\x89PNG\r\n\x1a\n"), []byte("<html>")...), ""},
		{"empty", nil, ""},
	}
	for _, c := range cases {
		ext, _, ok := imagecheck.Kind(c.data)
		if ok != (c.ext != "") || ext != c.ext {
			t.Errorf("%s: %q %v, want %q", c.name, ext, ok, c.ext)
		}
	}
}
