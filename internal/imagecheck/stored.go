package imagecheck

import (
	"sync"

	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
)

// CheckStored judges the stored file key of fsys by p, reading its size
// and header only (never its pixels): what every route checks before it
// serves a stored image or lets PocketBase make a thumbnail of it. The
// error is a *Violation when the file breaks the policy, another error when
// it cannot be read (missing included).
func CheckStored(fsys *filesystem.System, key string, p Policy) (Info, error) {
	attrs, err := fsys.Attributes(key)
	if err != nil {
		return Info{}, err
	}
	r, err := fsys.GetReader(key)
	if err != nil {
		return Info{}, err
	}
	defer r.Close()
	return p.Check(r, attrs.Size)
}

// storedCacheMax bounds the accepted verdicts kept per app (about 100
// bytes each); when full, the cache starts over.
const storedCacheMax = 20000

type storedCache struct {
	mu sync.Mutex
	ok map[string]Info
}

func cacheOf(app core.App) *storedCache {
	return app.Store().GetOrSet("imagecheck.stored", func() any {
		return &storedCache{ok: map[string]Info{}}
	}).(*storedCache)
}

// CheckStoredCached is CheckStored keeping, per app, the files that passed:
// a stored file never changes (a new upload gets a new random name), so a
// photo shown on every listing is read from the storage (a HEAD and a GET
// on S3) once, not on every request. Refusals and errors are not kept.
func CheckStoredCached(app core.App, fsys *filesystem.System, key string, p Policy) (Info, error) {
	c := cacheOf(app)
	c.mu.Lock()
	info, ok := c.ok[key]
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := CheckStored(fsys, key, p)
	if err != nil {
		return info, err
	}
	c.mu.Lock()
	if len(c.ok) >= storedCacheMax {
		c.ok = map[string]Info{}
	}
	c.ok[key] = info
	c.mu.Unlock()
	return info, nil
}
