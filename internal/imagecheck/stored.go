package imagecheck

import (
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
