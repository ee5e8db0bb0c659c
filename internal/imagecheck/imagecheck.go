// Package imagecheck tells whether uploaded bytes are really an image the
// service accepts (JPEG, PNG or WebP), by their content and never by the
// name or declared type: the camello photos of registration and the photos
// of the job conversation use it.
package imagecheck

import (
	"bytes"
	"image"
	_ "image/jpeg" // decoders, to check uploads by content
	_ "image/png"
	"net/http"

	_ "golang.org/x/image/webp"
)

// MaxBytes is the largest image accepted (5 MiB).
const MaxBytes = 5 << 20

// Kind returns the file extension (".jpg", ".png", ".webp") and MIME type
// of data when it is a decodable JPEG, PNG or WebP; ok is false otherwise
// (HTML or anything else posing as an image).
func Kind(data []byte) (ext, mime string, ok bool) {
	switch ct := http.DetectContentType(data); ct {
	case "image/jpeg":
		ext, mime = ".jpg", ct
	case "image/png":
		ext, mime = ".png", ct
	case "image/webp":
		ext, mime = ".webp", ct
	default:
		return "", "", false
	}
	if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
		return "", "", false
	}
	return ext, mime, true
}
