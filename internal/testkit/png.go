package testkit

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// PNG is a small valid PNG image (4×4, one red pixel): an upload the
// image checks accept.
func PNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
