package imagecheck_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"testing"

	"camellos/internal/imagecheck"
	"camellos/internal/imagecheck/craft"
)

// TestPhotoPolicy walks every bound of the photo policy, just inside and
// just outside, for each format and the bombs of issue 21: everything is
// judged by the header (no crafted file here has its pixels).
func TestPhotoPolicy(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 3))
	var p, j bytes.Buffer
	_ = png.Encode(&p, img)
	_ = jpeg.Encode(&j, img, nil)
	webp := []byte{0x52, 0x49, 0x46, 0x46, 0x1a, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4c,
		0x0d, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00}
	rgba := craft.PNGOptions{ColorType: 6}
	rgba16 := craft.PNGOptions{ColorType: 6, Depth: 16}
	adam7 := craft.PNGOptions{ColorType: 6, Interlace: 1}
	big := append(craft.PNG(10, 10, rgba), make([]byte, imagecheck.MaxBytes)...)
	cases := []struct {
		name string
		data []byte
		code string // "" accepted
		ext  string
	}{
		{"png", p.Bytes(), "", ".png"},
		{"jpeg", j.Bytes(), "", ".jpg"},
		{"webp", webp, "", ".webp"},
		{"html", []byte("<!DOCTYPE html><script>alert(1)</script>"), imagecheck.CodeType, ""},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), imagecheck.CodeType, ""},
		{"truncated png", p.Bytes()[:16], imagecheck.CodeInvalid, ""},
		{"png magic then html", append([]byte("\x89PNG\r\n\x1a\n"), []byte("<html>")...), imagecheck.CodeInvalid, ""},
		{"empty", nil, imagecheck.CodeEmpty, ""},
		{"over 5 MiB", big, imagecheck.CodeTooLarge, ""},
		{"5 MiB", big[:imagecheck.MaxBytes], "", ".png"},
		// The bomb and its milder cousin.
		{"png 1,000,000²", craft.BombPNG(1_000_000, 1_000_000), imagecheck.CodeDimensions, ""},
		{"png 30000²", craft.BombPNG(30000, 30000), imagecheck.CodeDimensions, ""},
		{"png 4096×3072 (12 MP)", craft.PNG(4096, 3072, rgba), "", ".png"},
		{"png 4096×3073", craft.PNG(4096, 3073, rgba), imagecheck.CodeDimensions, ""},
		{"phone 4032×3024", craft.JPEG(4032, 3024, false), "", ".jpg"},
		{"png 4097×3072", craft.PNG(4097, 3072, rgba), imagecheck.CodeDimensions, ""},
		{"png 8192×1536 (side)", craft.PNG(8192, 1536, rgba), "", ".png"},
		{"png 8193×1", craft.PNG(8193, 1, rgba), imagecheck.CodeDimensions, ""},
		{"png 1×8193", craft.PNG(1, 8193, rgba), imagecheck.CodeDimensions, ""},
		{"png 16-bit 2508²", craft.PNG(2508, 2508, rgba16), "", ".png"},
		{"png 16-bit 2509×2508", craft.PNG(2509, 2508, rgba16), imagecheck.CodeDimensions, ""},
		{"png interlaced 4096×1536", craft.PNG(4096, 1536, adam7), "", ".png"},
		{"png interlaced 4096×1537", craft.PNG(4096, 1537, adam7), imagecheck.CodeDimensions, ""},
		{"png gray 8192×1536", craft.PNG(8192, 1536, craft.PNGOptions{}), "", ".png"},
		{"png 0×10", craft.PNG(0, 10, rgba), imagecheck.CodeInvalid, ""},
		{"png truncated IHDR", craft.Truncate(craft.BombPNG(10, 10), 24), imagecheck.CodeInvalid, ""},
		{"jpeg 4096×3072", craft.JPEG(4096, 3072, false), "", ".jpg"},
		{"jpeg 4097×3072", craft.JPEG(4097, 3072, false), imagecheck.CodeDimensions, ""},
		{"jpeg 65535²", craft.JPEG(65535, 65535, false), imagecheck.CodeDimensions, ""},
		{"jpeg progressive 2048×1536", craft.JPEG(2048, 1536, true), "", ".jpg"},
		{"jpeg progressive 2049×1536", craft.JPEG(2049, 1536, true), imagecheck.CodeDimensions, ""},
		{"jpeg truncated frame", craft.Truncate(craft.JPEG(10, 10, false), 25), imagecheck.CodeInvalid, ""},
		{"webp lossy 4096×3072", craft.WebPLossy(4096, 3072), "", ".webp"},
		{"webp lossy 4097×3072", craft.WebPLossy(4097, 3072), imagecheck.CodeDimensions, ""},
		{"webp lossy 16383²", craft.WebPLossy(16383, 16383), imagecheck.CodeDimensions, ""},
		{"webp lossless 2508²", craft.WebPLossless(2508, 2508), "", ".webp"},
		{"webp lossless 2509×2508", craft.WebPLossless(2509, 2508), imagecheck.CodeDimensions, ""},
		{"webp canvas 100², frame 100²", craft.WebPExtended(100, 100, 0, 100, 100), "", ".webp"},
		{"webp canvas 100², frame 16383²", craft.WebPExtended(100, 100, 0, 16383, 16383), imagecheck.CodeDimensions, ""},
		{"webp canvas 16M², frame 10²", craft.WebPExtended(1<<24, 1<<24, 0x10, 10, 10), imagecheck.CodeDimensions, ""},
		{"webp animated flag", craft.WebPExtended(100, 100, 0x02, 100, 100), imagecheck.CodeAnimated, ""},
		{"webp animated, 1000 frames", craft.WebPAnimated(4000, 4000, 1000), imagecheck.CodeAnimated, ""},
		{"webp truncated", craft.Truncate(craft.WebPLossy(10, 10), 20), imagecheck.CodeInvalid, ""},
		{"gif 10²", craft.GIF(10, 10, 1), imagecheck.CodeType, ""},
		{"gif animation bomb", craft.GIF(65535, 65535, 10000), imagecheck.CodeType, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := imagecheck.Photo.CheckBytes(c.data)
			v := imagecheck.AsViolation(err)
			if err != nil && v == nil {
				t.Fatalf("error %v, want a violation", err)
			}
			switch {
			case c.code == "" && err != nil:
				t.Fatalf("refused (%s: %s), want accepted", v.Code, v.Message)
			case c.code != "" && err == nil:
				t.Fatalf("accepted (%dx%d), want %s", info.Width, info.Height, c.code)
			case c.code != "" && v.Code != c.code:
				t.Fatalf("code %s (%s), want %s", v.Code, v.Message, c.code)
			case c.code == "" && info.Ext != c.ext:
				t.Fatalf("ext %q, want %q", info.Ext, c.ext)
			}
			if v != nil && v.Message == "" {
				t.Fatal("violation without a message")
			}
		})
	}
}

// TestCheckReadsOnlyTheHeader: a reader that fails after the header is
// never read that far (the policy does not read the pixels).
func TestCheckReadsOnlyTheHeader(t *testing.T) {
	data := craft.BombPNG(100, 100)
	r := &countingReader{data: append(data, make([]byte, 1<<20)...)}
	if _, err := imagecheck.Photo.Check(r, int64(len(r.data))); err != nil {
		t.Fatalf("refused: %v", err)
	}
	if r.n > 64<<10 {
		t.Fatalf("read %d bytes of a %d-byte file", r.n, len(r.data))
	}
}

type countingReader struct {
	data []byte
	n    int
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.n >= len(r.data) {
		return 0, io.EOF
	}
	k := copy(p, r.data[r.n:])
	r.n += k
	return k, nil
}
