// Package web serves the static web front embedded from pb_public: every
// file read and gzipped once at boot, scripts, styles and images under
// versioned URLs (/v/<version>/...) cached for a year, pages revalidated on
// every visit, an HTML 404 page for unknown paths, and link-preview tags on
// camello profiles.
package web

import (
	"bytes"
	"compress/gzip"
	"html"
	"net/http"
	"strings"
	"unicode/utf8"

	"camellos/internal/config"
	"camellos/internal/session"
	"camellos/modules/camellos"
	"camellos/pb_public"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
)

// Cache lifetimes of the answers.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheAsset     = "public, max-age=86400"
	cachePage      = "no-cache"
)

// Register binds the web front as the last-resort GET (and POST, for forms
// sent without JavaScript) routes.
func Register(app core.App) {
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Func: func(se *core.ServeEvent) error {
			if se.Router.HasRoute(http.MethodGet, "/{path...}") {
				return se.Next()
			}
			s, err := newSite(pb_public.Files)
			if err != nil {
				return err
			}
			se.App.Store().Set(storeKey, s)
			se.Router.GET("/v/{version}/{path...}", s.serveVersioned)
			se.Router.GET("/{path...}", s.serve)
			se.Router.POST("/{path...}", s.servePost)
			if err := se.Next(); err != nil {
				return err
			}
			// The forms sent without JavaScript reach the JSON routes
			// through the service's own router (nojs.go).
			mux, err := se.Router.BuildMux()
			if err != nil {
				return err
			}
			s.mux = mux
			return nil
		},
		Priority: 999,
	})
}

// storeKey holds the app's site in app.Store() (per app, no package state).
const storeKey = "web.site"

// NotFound answers the site's HTML 404 page: other modules use it so that a
// hidden route (e.g. /metrics without its token) answers exactly like any
// unknown page.
func NotFound(e *core.RequestEvent) error {
	if s, ok := e.App.Store().Get(storeKey).(*site); ok {
		return s.notFound(e)
	}
	return apis.NewNotFoundError("", nil)
}

// acceptsGzip reports whether the client takes gzip.
func acceptsGzip(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
}

// write sends body (or its gzip form) with the caching headers.
func write(e *core.RequestEvent, status int, ctype, cache, etag string, body, gz []byte) error {
	h := e.Response.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", cache)
	h.Add("Vary", "Accept-Encoding")
	if etag != "" {
		h.Set("ETag", etag)
		if status == http.StatusOK && e.Request.Header.Get("If-None-Match") == etag {
			e.Response.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if gz != nil && acceptsGzip(e.Request) {
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	return e.Blob(status, ctype, body)
}

// serveVersioned answers /v/<version>/<file>: cached for a year when the
// version is the current one (a stale version still gets today's file,
// revalidated, so an old page open during a deploy keeps working).
func (s *site) serveVersioned(e *core.RequestEvent) error {
	name := e.Request.PathValue("path")
	a := s.files[name]
	if a == nil || strings.HasSuffix(name, ".html") {
		return s.notFound(e)
	}
	cache := cacheImmutable
	if e.Request.PathValue("version") != s.version {
		cache = cachePage
	}
	return write(e, http.StatusOK, a.ctype, cache, a.etag, a.body, a.gz)
}

// serve answers a page or an unversioned file.
func (s *site) serve(e *core.RequestEvent) error {
	p := e.Request.PathValue("path")
	if strings.HasPrefix(e.Request.URL.Path, "/api/") {
		return apis.NewNotFoundError("", nil)
	}
	if p == "" {
		p = "index.html"
	}
	a := s.files[p]
	if a == nil || p == "404.html" {
		return s.notFound(e)
	}
	if strings.HasSuffix(p, ".html") {
		return s.page(e, a, http.StatusOK)
	}
	cache := cacheAsset
	if p == "sw.js" {
		cache = cachePage // a new worker must be seen at once
	}
	return write(e, http.StatusOK, a.ctype, cache, a.etag, a.body, a.gz)
}

// servePost answers a form sent without JavaScript (nojs.go): sign-in and
// publishing are done, any other form answers its page with what was typed
// kept and a notice that it needs JavaScript.
func (s *site) servePost(e *core.RequestEvent) error {
	p := e.Request.PathValue("path")
	if p == "" {
		p = "index.html"
	}
	if strings.HasPrefix(e.Request.URL.Path, "/api/") || !strings.HasSuffix(p, ".html") || s.files[p] == nil || p == "404.html" {
		return s.notFound(e)
	}
	return s.handleForm(e, s.files[p])
}

// notFound answers the HTML 404 page.
func (s *site) notFound(e *core.RequestEvent) error {
	return s.page(e, s.files["404.html"], http.StatusNotFound)
}

// page answers an HTML page: asset URLs versioned, module preloads, a hint
// that the browser holds a session cookie (so a guest's page never asks
// /api/me and logs a 401), and link-preview tags on a camello's profile.
func (s *site) page(e *core.RequestEvent, a *asset, status int) error {
	doc := s.versioned(s.serviceOptions(e, a.name, string(a.body)))
	var head strings.Builder
	for _, u := range a.preload {
		head.WriteString(`<link rel="modulepreload" href="` + u + `">`)
	}
	if c, err := e.Request.Cookie(session.SessionCookie); err == nil && c.Value != "" {
		doc = strings.Replace(doc, `<html lang="es">`, `<html lang="es" data-session="1">`, 1)
	}
	if a.name == "camello.html" {
		if id := e.Request.URL.Query().Get("id"); id != "" {
			head.WriteString(s.preview(e, id, &doc))
		}
	}
	doc = strings.Replace(doc, "</head>", head.String()+"</head>", 1)
	body := []byte(doc)
	var gz []byte
	if acceptsGzip(e.Request) {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = w.Write(body)
		_ = w.Close()
		gz = buf.Bytes()
	}
	e.Response.Header().Add("Vary", "Cookie")
	return write(e, status, a.ctype, cachePage, "", body, gz)
}

// clip shortens s to n characters with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// preview returns the Open Graph and Twitter tags of an active camello's
// profile (nothing for anyone else) and sets the page title.
func (s *site) preview(e *core.RequestEvent, id string, doc *string) string {
	if len(id) > 50 {
		return ""
	}
	c, err := camellos.Find(e.App, id)
	if err != nil || !c.Active() {
		return ""
	}
	rec := c.Record
	base := config.Of(e.App).AppURL
	name := c.Name()
	title := name + " · Camellos"
	desc := strings.Join(camellos.Trades(rec), ", ")
	if city := c.City(); city != "" {
		desc += " en " + city
	}
	if d := c.Description(); d != "" {
		desc += ". " + d
	}
	desc = clip(desc, 200)
	image := base + "/v/" + s.version + "/img/icon-512.png"
	if p := camellos.PhotoPath(rec); p != "" {
		image = base + p
	}
	esc := html.EscapeString
	*doc = strings.Replace(*doc, "<title>Perfil · Camellos</title>", "<title>"+esc(title)+"</title>", 1)
	*doc = strings.Replace(*doc, `<meta name="description" content="Camellos: encuentra camellos de confianza para trabajos en tu casa.">`,
		`<meta name="description" content="`+esc(desc)+`">`, 1)
	tags := [][2]string{
		{"og:type", "profile"}, {"og:site_name", "Camellos"}, {"og:locale", "es_CO"},
		{"og:title", title}, {"og:description", desc}, {"og:image", image},
		{"og:url", base + "/camello.html?id=" + id},
	}
	var b strings.Builder
	for _, t := range tags {
		b.WriteString(`<meta property="` + t[0] + `" content="` + esc(t[1]) + `">`)
	}
	b.WriteString(`<meta name="twitter:card" content="summary"><meta name="twitter:title" content="` + esc(title) +
		`"><meta name="twitter:description" content="` + esc(desc) + `"><meta name="twitter:image" content="` + esc(image) + `">`)
	b.WriteString(`<link rel="canonical" href="` + esc(base+"/camello.html?id="+id) + `">`)
	return b.String()
}
