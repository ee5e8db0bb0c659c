package registration

import (
	"path/filepath"
	"regexp"

	"camellos/internal/httpapi"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

var photoName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,150}\.(jpg|png|webp)$`)

var photoTypes = map[string]string{".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}

// photoGet serves /uploads/camellos/<file>: only a name that a camello's
// photo field holds (no paths, so no traversal), always as an image with
// nosniff, so an upload can never be served as HTML.
func photoGet(e *core.RequestEvent) error {
	name := e.Request.PathValue("file")
	if !photoName.MatchString(name) {
		return httpapi.NotFound("Foto no encontrada")
	}
	rec, err := e.App.FindFirstRecordByData(camellos.Collection, "photo", name)
	if err != nil {
		return httpapi.NotFound("Foto no encontrada")
	}
	fsys, err := e.App.NewFilesystem()
	if err != nil {
		return httpapi.Internal(err)
	}
	defer fsys.Close()
	h := e.Response.Header()
	h.Set("Content-Type", photoTypes[filepath.Ext(name)])
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", "inline")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if err := fsys.Serve(e.Response, e.Request, rec.BaseFilesPath()+"/"+name, name); err != nil {
		for _, k := range []string{"Content-Type", "Content-Disposition", "Cache-Control"} {
			h.Del(k)
		}
		return httpapi.NotFound("Foto no encontrada")
	}
	return nil
}
