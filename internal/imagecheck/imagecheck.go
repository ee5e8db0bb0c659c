// Package imagecheck is the service's one upload policy: the table of every
// file field of the schema and the rule its files obey, checked by their
// bytes and never by their name or declared type. A file is judged by its
// first bytes only: the content type (sniffed), the byte size, and the
// dimensions, pixel count and decoded size read from the image header with
// image.DecodeConfig, before anything decodes the pixels. So a
// decompression bomb (a few hundred bytes claiming 1,000,000 × 1,000,000
// pixels) is refused without costing more than its header.
//
// Who applies it: modules/files binds it to every record save (a file field
// without a row here refuses every upload) and checks the stored file again
// before PocketBase's file route serves it or makes a thumbnail of it; the
// upload routes (registration, messages) call it first for their field
// messages; the quarantine migration finds stored files that break it.
// A new file field adds a row to Policies.
package imagecheck

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decoders, to read headers by content
	_ "image/png"
	"io"
	"net/http"
	"sort"

	_ "golang.org/x/image/webp"
)

// MaxBytes is the largest image accepted (5 MiB).
const MaxBytes = 5 << 20

// Limits of the photo policy. 12 MP (12 × 2²⁰ = 12,582,912 pixels, 4096 ×
// 3072) holds every phone camera's default photo (4032 × 3024); 8,192 px a
// side holds panoramas. The decoded size bounds the memory one decode may
// take: 48 MiB is 12 MP at 4 bytes a pixel, so a 16-bit or interlaced PNG
// or a lossless WebP (8 bytes a pixel) may have 6 MP and a progressive
// JPEG (16) 3 MP. PocketBase's thumbnail copies the decoded image once more
// (4 bytes a pixel) before resizing it: a thumbnail of the largest allowed
// image takes about 96 MiB, which keeps the service under 200 MB of RSS
// (hardening's FuzzUploadedImage measures it).
const (
	MaxSide         = 8192
	MaxPixels       = 12 << 20 // 12,582,912 = 4096 × 3072
	MaxDecodedBytes = 48 << 20
)

// Policy is the rule of one file field.
type Policy struct {
	// Types maps each accepted MIME type (sniffed from the bytes) to the
	// image.DecodeConfig format name the header must parse as.
	Types map[string]string
	// MaxBytes is the largest file.
	MaxBytes int64
	// MaxSide is the largest width and height, in pixels.
	MaxSide int
	// MaxPixels is the largest width × height.
	MaxPixels int64
	// MaxDecodedBytes is the largest width × height × bytes per pixel of
	// the decoded colour model (the memory a decode allocates).
	MaxDecodedBytes int64
	// Animated allows animated images (never, today: only the first frame
	// would be shown, and every frame costs a decode in a browser).
	Animated bool
}

// Photo is the policy of every image field: JPEG, PNG or WebP, still,
// ≤ 5 MiB, ≤ 8,192 px a side, ≤ 12 MP, ≤ 48 MiB decoded.
var Photo = Policy{
	Types:           map[string]string{"image/jpeg": "jpeg", "image/png": "png", "image/webp": "webp"},
	MaxBytes:        MaxBytes,
	MaxSide:         MaxSide,
	MaxPixels:       MaxPixels,
	MaxDecodedBytes: MaxDecodedBytes,
}

// Field names one file field of the schema.
type Field struct {
	Collection string
	Name       string
}

// Policies is the table: every file field of pb_migrations (and of
// PocketBase's own collections that we keep) and its policy.
// modules/files' test fails on a file field of the schema without a row.
var Policies = map[Field]Policy{
	{"camellos", "photo"}:     Photo, // a camello's profile photo (registration, self-service profile)
	{"camellos", "documents"}: Photo, // photos of a camello's document and professional card (registration, profile; up to 2, private)
	{"messages", "files"}:     Photo, // photos of a job's conversation (up to 3 a message)
	{"users", "avatar"}:       Photo, // PocketBase's users.avatar (unused by our routes: dashboard only)
}

// For returns the policy of collection's field; ok is false when the field
// has no row (then no upload to it is accepted).
func For(collection, field string) (Policy, bool) {
	p, ok := Policies[Field{collection, field}]
	return p, ok
}

// Fields lists the table's rows, sorted.
func Fields() []Field {
	out := make([]Field, 0, len(Policies))
	for f := range Policies {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Collection != out[j].Collection {
			return out[i].Collection < out[j].Collection
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Codes of a Violation.
const (
	CodeEmpty      = "empty"
	CodeTooLarge   = "too_large"
	CodeType       = "type"
	CodeInvalid    = "invalid"
	CodeAnimated   = "animated"
	CodeDimensions = "dimensions"
)

// Violation is why a file breaks a policy, with the Spanish message users see.
type Violation struct {
	Code    string
	Message string
}

// Error implements error.
func (v *Violation) Error() string { return v.Message }

// AsViolation returns the violation err carries, nil if none.
func AsViolation(err error) *Violation {
	var v *Violation
	if errors.As(err, &v) {
		return v
	}
	return nil
}

func (p Policy) violation(code string) *Violation {
	var msg string
	switch code {
	case CodeEmpty:
		msg = "La foto está vacía"
	case CodeTooLarge:
		msg = fmt.Sprintf("La foto no puede superar %d MB", p.MaxBytes>>20)
	case CodeType:
		msg = "La foto debe ser una imagen JPEG, PNG o WebP"
	case CodeAnimated:
		msg = "La foto no puede ser una imagen animada"
	case CodeDimensions:
		msg = fmt.Sprintf("La foto es demasiado grande: como máximo %d píxeles por lado y %d megapíxeles (%d MB al descomprimirla)",
			p.MaxSide, p.MaxPixels>>20, p.MaxDecodedBytes>>20)
	default:
		msg = "La foto no es una imagen válida"
	}
	return &Violation{Code: code, Message: msg}
}

// Info is what the header of an accepted image says.
type Info struct {
	Ext    string // ".jpg", ".png", ".webp"
	MIME   string // "image/jpeg", …
	Width  int
	Height int
	// DecodedBytes is width × height × bytes per pixel: the memory a
	// decode of it allocates (about).
	DecodedBytes int64
	// ThumbBytes is the memory PocketBase's thumbnail of it takes: the
	// decode and a copy of the image in NRGBA (4 bytes a pixel).
	ThumbBytes int64
}

// sniffLen is how much http.DetectContentType reads.
const sniffLen = 512

var extOf = map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp"}

// CheckBytes is Check of data in memory.
func (p Policy) CheckBytes(data []byte) (Info, error) {
	return p.Check(bytes.NewReader(data), int64(len(data)))
}

// Check judges a file of size bytes (-1 when unknown) read from r by its
// header only: it reads the first bytes, never more than MaxBytes, and
// never decodes pixels. The error is a *Violation when the file breaks the
// policy, another error only when r fails.
func (p Policy) Check(r io.Reader, size int64) (Info, error) {
	if size == 0 {
		return Info{}, p.violation(CodeEmpty)
	}
	if size > p.MaxBytes {
		return Info{}, p.violation(CodeTooLarge)
	}
	limited := io.LimitReader(r, p.MaxBytes)
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(limited, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Info{}, err
	}
	head = head[:n]
	if n == 0 {
		return Info{}, p.violation(CodeEmpty)
	}
	mime := http.DetectContentType(head)
	format, ok := p.Types[mime]
	if !ok {
		return Info{}, p.violation(CodeType)
	}
	if mime == "image/webp" && webpAnimated(head) && !p.Animated {
		return Info{}, p.violation(CodeAnimated)
	}
	// What DecodeConfig reads is kept, so the format's own walk below
	// reads the same stream from its start.
	src := io.MultiReader(bytes.NewReader(head), limited)
	var seen bytes.Buffer
	cfg, got, err := image.DecodeConfig(io.TeeReader(src, &seen))
	if err != nil || got != format {
		return Info{}, p.violation(CodeInvalid)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, p.violation(CodeInvalid)
	}
	w, h := int64(cfg.Width), int64(cfg.Height)
	var perPixel int64
	switch format {
	case "png":
		perPixel = bytesPerPixel(cfg.ColorModel)
		if len(head) > 28 && head[28] == 1 { // Adam7: the passes, then the image
			perPixel *= 2
		}
	case "jpeg":
		progressive, ok := jpegProgressive(seen.Bytes())
		if !ok {
			return Info{}, p.violation(CodeInvalid)
		}
		perPixel = 4 // the YCbCr or CMYK image, at its largest
		if progressive {
			// and the coefficients of every component kept for the later
			// scans: 4 bytes a pixel each, 3 components at full resolution.
			perPixel += 12
		}
	case "webp":
		fw, fh, lossless, animated, ok := webpFrame(io.MultiReader(bytes.NewReader(seen.Bytes()), src))
		if !ok {
			return Info{}, p.violation(CodeInvalid)
		}
		if animated && !p.Animated {
			return Info{}, p.violation(CodeAnimated)
		}
		// The frame decoded may be other than the canvas DecodeConfig
		// read (VP8X): the larger of both counts.
		w, h = max(w, int64(fw)), max(h, int64(fh))
		perPixel = 4 // YCbCr and alpha (lossy)
		if lossless {
			perPixel = 8 // the ARGB words, then the NRGBA image
		}
	}
	pixels := w * h
	decoded := pixels * perPixel
	if w > int64(p.MaxSide) || h > int64(p.MaxSide) || pixels > p.MaxPixels || decoded > p.MaxDecodedBytes {
		return Info{}, p.violation(CodeDimensions)
	}
	return Info{Ext: extOf[mime], MIME: mime, Width: cfg.Width, Height: cfg.Height,
		DecodedBytes: decoded, ThumbBytes: decoded + 4*pixels}, nil
}

// jpegProgressive walks a JPEG's markers up to its first frame header
// (SOFn) and reports whether the frame is progressive; ok is false when no
// frame header is found in data.
func jpegProgressive(data []byte) (progressive, ok bool) {
	i := 2 // after SOI
	for i+4 <= len(data) {
		if data[i] != 0xFF {
			return false, false
		}
		m := data[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m >= 0xD0 && m <= 0xD9 || m == 0x01 { // markers without a length
			i += 2
			continue
		}
		if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
			return m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE, true
		}
		i += 2 + (int(data[i+2])<<8 | int(data[i+3]))
	}
	return false, false
}

// webpFrame walks a WebP's chunks (reading only their headers and skipping
// their data) to the first image frame (VP8 or VP8L) and returns its
// dimensions, whether it is lossless and whether the extended header
// (VP8X) or an ANIM chunk says the file is animated; ok is false when no
// frame header is found.
func webpFrame(r io.Reader) (w, h int, lossless, animated, ok bool) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil || string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WEBP" {
		return 0, 0, false, false, false
	}
	for range 64 { // a still image has a handful of chunks
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return 0, 0, false, false, false
		}
		id := string(ch[0:4])
		n := int64(ch[4]) | int64(ch[5])<<8 | int64(ch[6])<<16 | int64(ch[7])<<24
		switch id {
		case "VP8 ":
			var b [10]byte
			if n < 10 {
				return 0, 0, false, false, false
			}
			if _, err := io.ReadFull(r, b[:]); err != nil || b[3] != 0x9d || b[4] != 0x01 || b[5] != 0x2a {
				return 0, 0, false, false, false
			}
			w = int(b[6]) | int(b[7]&0x3f)<<8
			h = int(b[8]) | int(b[9]&0x3f)<<8
			return w, h, false, animated, true
		case "VP8L":
			var b [5]byte
			if n < 5 {
				return 0, 0, false, false, false
			}
			if _, err := io.ReadFull(r, b[:]); err != nil || b[0] != 0x2f {
				return 0, 0, false, false, false
			}
			bits := uint32(b[1]) | uint32(b[2])<<8 | uint32(b[3])<<16 | uint32(b[4])<<24
			w = int(bits&0x3fff) + 1
			h = int(bits>>14&0x3fff) + 1
			return w, h, true, animated, true
		case "VP8X":
			var b [10]byte
			if n != 10 {
				return 0, 0, false, false, false
			}
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return 0, 0, false, false, false
			}
			animated = animated || b[0]&0x02 != 0
			continue
		case "ANIM", "ANMF":
			return 0, 0, false, true, true
		}
		if _, err := io.CopyN(io.Discard, r, n+n&1); err != nil {
			return 0, 0, false, false, false
		}
	}
	return 0, 0, false, false, false
}

// webpAnimated reports whether a WebP's extended header (VP8X) sets the
// animation flag.
func webpAnimated(head []byte) bool {
	return len(head) >= 21 && string(head[12:16]) == "VP8X" && head[20]&0x02 != 0
}

// bytesPerPixel is the memory a pixel of the decoded model takes (4 for
// the models not listed: RGBA, NRGBA, YCbCr counted at its largest).
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4
}
