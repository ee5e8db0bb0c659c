package web_test

import (
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"

	"camellos/internal/testkit"
	"camellos/pb_public"
)

var (
	scriptSrc = regexp.MustCompile(`<script type="module" src="/([^"]+)"`)
	importRe  = regexp.MustCompile(`(?m)^import [^;]*? from '\./([^']+)'`)
)

// moduleGraph returns the JavaScript files a module loads (itself included).
func moduleGraph(t *testing.T, file string, seen map[string]bool) {
	if seen[file] {
		return
	}
	seen[file] = true
	raw, err := fs.ReadFile(pb_public.Files, file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, m := range importRe.FindAllStringSubmatch(string(raw), -1) {
		moduleGraph(t, path.Join(path.Dir(file), m[1]), seen)
	}
}

// TestPagesAreSmallAndServed checks every page: served with its type, its
// JavaScript under 100 KB, every script and stylesheet it names served too,
// and the Go sources of pb_public never served.
func TestPagesAreSmallAndServed(t *testing.T) {
	k := testkit.New(t)
	pages, err := fs.Glob(pb_public.Files, "*.html")
	if err != nil || len(pages) < 9 {
		t.Fatalf("pages: %v %v", pages, err)
	}
	for _, page := range pages {
		t.Run(page, func(t *testing.T) {
			raw, _ := fs.ReadFile(pb_public.Files, page)
			html := string(raw)
			for _, want := range []string{`<html lang="es">`, `name="viewport"`, `class="skip-link"`, `<main id="main"`, `/css/app.css`} {
				if !strings.Contains(html, want) {
					t.Errorf("%s lacks %s", page, want)
				}
			}
			src := scriptSrc.FindStringSubmatch(html)
			if src == nil {
				t.Fatalf("%s has no module script", page)
			}
			seen := map[string]bool{}
			moduleGraph(t, src[1], seen)
			total := 0
			for f := range seen {
				b, _ := fs.ReadFile(pb_public.Files, f)
				total += len(b)
				res := k.Get("/"+f, "")
				if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Content-Type"), "javascript") {
					t.Errorf("/%s: %d %s", f, res.Status, res.Header.Get("Content-Type"))
				}
			}
			if total >= 100*1024 {
				t.Errorf("%s loads %d bytes of JavaScript, want under 100 KB", page, total)
			}
			p := "/" + page
			if page == "index.html" {
				p = "/"
			}
			res := k.Get(p, "")
			if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
				t.Errorf("%s: %d %s", p, res.Status, res.Header.Get("Content-Type"))
			}
		})
	}
	for _, tc := range []struct {
		path, ctype string
		status      int
	}{
		{"/css/app.css", "text/css", 200},
		{"/sw.js", "javascript", 200},
		{"/img/logo.svg", "image/svg+xml", 200},
		{"/img/avatar.svg", "image/svg+xml", 200},
		{"/embed.go", "", 404},
		{"/no-existe.html", "", 404},
	} {
		res := k.Get(tc.path, "")
		if res.Status != tc.status || !strings.Contains(res.Header.Get("Content-Type"), tc.ctype) {
			t.Errorf("%s: %d %q", tc.path, res.Status, res.Header.Get("Content-Type"))
		}
	}
}
