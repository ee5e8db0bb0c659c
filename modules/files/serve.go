package files

import (
	"context"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"camellos/internal/httpapi"
	"camellos/internal/imagecheck"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"golang.org/x/sync/semaphore"
)

// filePattern is the pattern of PocketBase's file route (apis/file.go).
const filePattern = "/api/files/{collection}/{recordId}/{filename}"

// ThumbBudget bounds the memory of thumbnails made at the same time: the
// sum of their costs (imagecheck.Info.ThumbBytes: the decode and PocketBase's
// copy of the image, 96 MiB at most) never passes it, so the largest
// allowed image is made alone. PocketBase's own limit
// (PB_THUMBS_MAX_WORKERS, CPUs + 2 by default) counts thumbnails, not
// their size.
const ThumbBudget = imagecheck.MaxDecodedBytes + 4*imagecheck.MaxPixels

// freeAfter is the thumbnail cost from which the memory is handed back to
// the system once it is made (a forced collection: a few ms, once per
// image and size), so that one large thumbnail's garbage does not stay
// resident and add to the next one's.
const freeAfter = 16 << 20

// thumbWait is how long a thumbnail waits for the budget before 503 (a
// variable for the tests).
var thumbWait = 30 * time.Second

// thumbsOf is the app's thumbnail budget.
func thumbsOf(app core.App) *semaphore.Weighted {
	return app.Store().GetOrSet("files.thumbs", func() any { return semaphore.NewWeighted(ThumbBudget) }).(*semaphore.Weighted)
}

// defaultThumbSizes are the sizes PocketBase makes for every image field
// (besides each field's Thumbs).
var defaultThumbSizes = []string{"100x100"}

// guard is the global middleware that answers PocketBase's file route by
// our rules before PocketBase's handler runs (its OnFileDownloadRequest
// hook fires only after the thumbnail is made, too late): 404 in our
// envelope unless the caller may read the file (rules; superusers always)
// and the stored file passes its field's upload policy, read from its
// header; a thumbnail still to be made waits for the thumbnail budget.
// Every other route passes through.
func guard() *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id: "camellosFilesGuard",
		// After the session and PocketBase's auth token are loaded, before
		// the file route's own rate limiter (which answers an unknown
		// collection in PocketBase's shape).
		Priority: apis.DefaultRateLimitMiddlewarePriority - 1,
		Func: func(e *core.RequestEvent) error {
			if !strings.HasSuffix(e.Request.Pattern, filePattern) {
				return e.Next()
			}
			if err := serveFile(e, thumbsOf(e.App)); err != nil {
				return httpapi.WriteError(e, err)
			}
			return nil
		},
	}
}

func serveFile(e *core.RequestEvent, sem *semaphore.Weighted) error {
	h := e.Response.Header()
	h.Set("Cache-Control", "no-store")
	notFound := httpapi.NotFound(MsgFileNotFound)
	col, err := e.App.FindCachedCollectionByNameOrId(e.Request.PathValue("collection"))
	if err != nil || col.IsView() {
		return notFound
	}
	rec, err := e.App.FindRecordById(col, e.Request.PathValue("recordId"))
	if err != nil {
		return notFound
	}
	name := e.Request.PathValue("filename")
	field := rec.FindFileFieldByFile(name)
	if field == nil {
		return notFound
	}
	key := imagecheck.Field{Collection: col.Name, Name: field.Name}
	visible, public := false, false
	if r := rules[key]; r != nil {
		visible, public = r(e, rec)
	}
	if !visible && !superuser(e) {
		return notFound
	}
	policy, ok := imagecheck.Policies[key]
	if !ok {
		return notFound
	}
	fsys, err := e.App.NewFilesystem()
	if err != nil {
		return httpapi.Internal(err)
	}
	defer fsys.Close()
	stored := rec.BaseFilesPath() + "/" + name
	info, err := imagecheck.CheckStoredCached(e.App, fsys, stored, policy)
	if v := imagecheck.AsViolation(err); v != nil {
		e.App.Logger().Warn("files: a stored file breaks the upload policy (not served; see file_quarantine)",
			"collection", col.Name, "record", rec.Id, "file", name, "violation", v.Code)
		return notFound
	} else if err != nil {
		return notFound
	}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if public {
		h.Set("Cache-Control", "public, max-age=86400")
	} else {
		h.Set("Cache-Control", "private, no-store")
	}
	if servedHere[key] {
		// The original only (no thumbnails of private files).
		return fsys.Serve(e.Response, e.Request, stored, name)
	}
	if thumb := e.Request.URL.Query().Get("thumb"); thumb != "" &&
		(slices.Contains(defaultThumbSizes, thumb) || slices.Contains(field.Thumbs, thumb)) {
		made, _ := fsys.Exists(rec.BaseFilesPath() + "/thumbs_" + name + "/" + thumb + "_" + name)
		if !made {
			weight := min(max(info.ThumbBytes, 1), ThumbBudget)
			ctx, cancel := context.WithTimeout(e.Request.Context(), thumbWait)
			err := sem.Acquire(ctx, weight)
			cancel()
			if err != nil {
				h.Set("Retry-After", "5")
				return httpapi.NewError(http.StatusServiceUnavailable, MsgThumbsBusy)
			}
			defer func() {
				if weight >= freeAfter {
					debug.FreeOSMemory()
				}
				sem.Release(weight)
			}()
		}
	}
	if err := e.Next(); err != nil {
		if httpapi.ToError(err).Status == http.StatusNotFound {
			return notFound
		}
		return err
	}
	return nil
}

// superuser reports whether the caller is a PocketBase superuser: by its
// Authorization token or by a file token in ?token= (what the dashboard
// puts on the links of protected files).
func superuser(e *core.RequestEvent) bool {
	if e.HasSuperuserAuth() {
		return true
	}
	token := e.Request.URL.Query().Get("token")
	if token == "" {
		return false
	}
	rec, err := e.App.FindAuthRecordByToken(token, core.TokenTypeFile)
	return err == nil && rec.IsSuperuser()
}
