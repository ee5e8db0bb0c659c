package registration

import (
	"path/filepath"
	"regexp"

	"camellos/internal/httpapi"
	"camellos/internal/imagecheck"
	"camellos/internal/session"
	"camellos/modules/camellos"

	"github.com/pocketbase/pocketbase/core"
)

var photoName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,150}\.(jpg|png|webp)$`)

var photoTypes = map[string]string{".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}

// photoGet serves /uploads/camellos/<file>: only a name that a camello's
// photo field holds (no paths, so no traversal), always as an image with
// nosniff, so an upload can never be served as HTML. The photo of a camello
// that is not ACTIVO is served only to its owner and admins (else 404).
func photoGet(e *core.RequestEvent) error {
	name := e.Request.PathValue("file")
	if !photoName.MatchString(name) {
		return httpapi.NotFound("Foto no encontrada")
	}
	h := e.Response.Header()
	rec, err := e.App.FindFirstRecordByData(camellos.Collection, "photo", name)
	if err != nil {
		h.Set("Cache-Control", "no-store")
		return httpapi.NotFound("Foto no encontrada")
	}
	// A camello's photo is public while the camello is (ACTIVO); otherwise
	// only its owner and admins see it, and no shared cache keeps it.
	visible, public := camellos.PhotoVisible(rec, session.AuthUser(e))
	if !visible {
		h.Set("Cache-Control", "no-store")
		return httpapi.NotFound("Foto no encontrada")
	}
	cache := "public, max-age=86400"
	if !public {
		cache = "private, no-store"
	}
	fsys, err := e.App.NewFilesystem()
	if err != nil {
		return httpapi.Internal(err)
	}
	defer fsys.Close()
	// A stored photo that breaks the upload policy (one stored before it,
	// awaiting quarantine) is never served.
	key := rec.BaseFilesPath() + "/" + name
	policy, _ := imagecheck.For(camellos.Collection, "photo")
	if _, err := imagecheck.CheckStoredCached(e.App, fsys, key, policy); err != nil {
		h.Set("Cache-Control", "no-store")
		return httpapi.NotFound("Foto no encontrada")
	}
	h.Set("Content-Type", photoTypes[filepath.Ext(name)])
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", "inline")
	h.Set("Cache-Control", cache)
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if err := fsys.Serve(e.Response, e.Request, key, name); err != nil {
		for _, k := range []string{"Content-Type", "Content-Disposition"} {
			h.Del(k)
		}
		h.Set("Cache-Control", "no-store")
		return httpapi.NotFound("Foto no encontrada")
	}
	return nil
}
