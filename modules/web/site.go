package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/js"
)

// asset is one embedded file ready to serve: its bytes (a script
// minified), the gzip form of a text file (nil when compression does not
// pay), its type and its ETag.
type asset struct {
	name string
	body []byte
	// src is the file as written in the repository (a script's readable
	// source, whose import lines name the modules it loads).
	src   []byte
	gz    []byte
	ctype string
	etag  string
	// preload lists the modules a page's script imports (pages only), as
	// versioned URLs for <link rel="modulepreload">.
	preload []string
}

// site is the web front of one app: every file of pb_public read and
// compressed once at boot, and the version that prefixes asset URLs. It is
// built in Register and held by the route handlers (no package state but
// gzipOnce's memo of compressed file contents, the same for every app).
type site struct {
	version string
	files   map[string]*asset
	mux     http.Handler // the service's router, for forms sent without JavaScript
}

var (
	importRe    = regexp.MustCompile(`(?m)^import [^;]*? from '\./([^']+)'`)
	moduleSrcRe = regexp.MustCompile(`<script type="module" src="/([^"]+)"`)
)

// contentType is the Content-Type of a served file by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".webmanifest":
		return "application/manifest+json"
	case ".json":
		return "application/json"
	case ".png":
		return "image/png"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// compressible reports whether a type is text worth gzipping.
func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "json") ||
		strings.Contains(ctype, "svg") || strings.Contains(ctype, "javascript")
}

// gzipBytes compresses b at the best level (done once per file at boot).
func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// gzipped keeps the gzip form of each file content (by its SHA-256) for
// the process: the embedded files never change, and a process that boots
// many apps (the tests boot hundreds) compresses each one once instead of
// at every boot (about 40 ms of CPU each time at the best level).
var gzipped sync.Map // [32]byte → []byte

// gzipOnce is gzipBytes(b), computed once per content.
func gzipOnce(sum [32]byte, b []byte) []byte {
	if z, ok := gzipped.Load(sum); ok {
		return z.([]byte)
	}
	z, _ := gzipped.LoadOrStore(sum, gzipBytes(b))
	return z.([]byte)
}

// minified keeps the minified form of each script (by the SHA-256 of its
// source) for the process, like gzipped: every boot of a test process
// would otherwise minify the same files again.
var minified sync.Map // [32]byte → []byte

// minifyJS returns a script without comments and blank space, with local
// names shortened (tdewolff/minify): the browser parses and compiles less
// on a phone, and every page's JavaScript stays under its budget
// (docs/web.md). The repository keeps the readable source; a script the
// minifier cannot read is served as written.
func minifyJS(sum [32]byte, b []byte) []byte {
	if z, ok := minified.Load(sum); ok {
		return z.([]byte)
	}
	m := minify.New()
	var out bytes.Buffer
	if err := (&js.Minifier{}).Minify(m, &out, bytes.NewReader(b), map[string]string{"type": "module"}); err != nil || out.Len() == 0 {
		out.Reset()
		out.Write(b)
	}
	z, _ := minified.LoadOrStore(sum, out.Bytes())
	return z.([]byte)
}

// newSite reads every servable file of fsys (Go sources excluded).
func newSite(fsys fs.FS) (*site, error) {
	s := &site{files: map[string]*asset{}}
	h := sha256.New()
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, p := range names {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		h.Write([]byte(p))
		h.Write(sum[:])
		a := &asset{name: p, body: b, src: b, ctype: contentType(p), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		if path.Ext(p) == ".js" {
			a.body = minifyJS(sum, b)
		}
		if compressible(a.ctype) && len(a.body) > 512 {
			if z := gzipOnce(sha256.Sum256(a.body), a.body); len(z) < len(a.body) {
				a.gz = z
			}
		}
		s.files[p] = a
	}
	s.version = hex.EncodeToString(h.Sum(nil)[:6])
	for _, a := range s.files {
		if strings.HasSuffix(a.name, ".html") {
			if m := moduleSrcRe.FindSubmatch(a.body); m != nil {
				seen := map[string]bool{}
				s.modules(string(m[1]), seen)
				delete(seen, string(m[1]))
				for f := range seen {
					a.preload = append(a.preload, s.url(f))
				}
				sort.Strings(a.preload)
			}
		}
	}
	return s, nil
}

// modules collects the JavaScript modules file imports, transitively.
func (s *site) modules(file string, seen map[string]bool) {
	if seen[file] {
		return
	}
	seen[file] = true
	a := s.files[file]
	if a == nil {
		return
	}
	for _, m := range importRe.FindAllSubmatch(a.src, -1) {
		s.modules(path.Join(path.Dir(file), string(m[1])), seen)
	}
}

// url is the versioned, long-cached URL of an asset.
func (s *site) url(name string) string { return "/v/" + s.version + "/" + name }

// versioned rewrites the asset URLs of a page (stylesheet, scripts, images,
// manifest) to their versioned form; relative imports inside the modules
// then resolve under the same prefix.
func (s *site) versioned(html string) string {
	r := strings.NewReplacer(
		`href="/css/`, `href="/v/`+s.version+`/css/`,
		`src="/js/`, `src="/v/`+s.version+`/js/`,
		`src="/img/`, `src="/v/`+s.version+`/img/`,
		`href="/img/`, `href="/v/`+s.version+`/img/`,
	)
	return r.Replace(html)
}
