package web

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/pocketbase/pocketbase/core"
)

// Forms sent without JavaScript (docs/web.md, "Without JavaScript"). A page
// form posts to its own page; for the forms of noJSForms the post is sent,
// unchanged in meaning, to the JSON route the page's script calls, through
// the service's own router (the same middlewares, quotas and answers: the
// JSON API does not change). A success is a 303 to where the script would
// go; a refusal answers the page again, with the route's status, what was
// typed kept (never a password) and the Spanish errors beside their fields
// and in the form's alert. Any other page's form answers its page with what
// was typed and a notice that the form needs JavaScript.

// noJSForm is a page whose form works without JavaScript.
type noJSForm struct {
	route string // the JSON route the page's script posts to
	// body turns the form's values into the route's JSON body.
	body func(form url.Values) map[string]any
	// next is where a success goes (answer: the route's JSON answer).
	next func(form url.Values, query url.Values, answer map[string]any) string
}

// maxFormBytes bounds a form sent without JavaScript (text fields only).
const maxFormBytes = 64 << 10

// MsgNeedsJS is the notice of a form that only works with JavaScript.
const MsgNeedsJS = "Este formulario necesita JavaScript: actívalo en tu navegador y vuelve a enviarlo. Lo que escribiste sigue aquí."

// trimmed is the form value, trimmed.
func trimmed(f url.Values, name string) string { return strings.TrimSpace(f.Get(name)) }

var noJSForms = map[string]noJSForm{
	"ingresar.html": {
		route: "/api/auth/login",
		body: func(f url.Values) map[string]any {
			return map[string]any{"email": trimmed(f, "email"), "password": f.Get("password")}
		},
		next: func(_, q url.Values, _ map[string]any) string { return safeNext(q.Get("next")) },
	},
	"publicar.html": {
		route: "/api/jobs",
		body: func(f url.Values) map[string]any {
			b := map[string]any{"title": trimmed(f, "title"), "serviceId": trimmed(f, "serviceId"),
				"city": trimmed(f, "city"), "description": trimmed(f, "description")}
			for _, opt := range []string{"neighborhood", "address"} {
				if v := trimmed(f, opt); v != "" {
					b[opt] = v
				}
			}
			return b
		},
		next: func(_, _ url.Values, a map[string]any) string {
			job, _ := a["job"].(map[string]any)
			id, _ := job["id"].(string)
			return "/trabajo.html?id=" + url.QueryEscape(id)
		},
	},
}

// safeNext is a same-origin path to go to after signing in ("/" otherwise),
// the rule of the page's script (safeNext in app.js).
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
		return "/"
	}
	return next
}

// handleForm answers the form post of page a (servePost).
func (s *site) handleForm(e *core.RequestEvent, a *asset) error {
	form := url.Values{}
	ct := e.Request.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		e.Request.Body = http.MaxBytesReader(e.Response, e.Request.Body, maxFormBytes)
		if err := e.Request.ParseForm(); err != nil {
			return s.formPage(e, a, http.StatusBadRequest, nil, "El formulario es demasiado grande o no se pudo leer.", nil)
		}
		form = e.Request.PostForm
	}
	spec, ok := noJSForms[a.name]
	if !ok {
		return s.formPage(e, a, http.StatusOK, form, MsgNeedsJS, nil)
	}
	status, answer := s.forward(e, http.MethodPost, spec.route, spec.body(form))
	if status >= 200 && status < 300 {
		return e.Redirect(http.StatusSeeOther, spec.next(form, e.Request.URL.Query(), answer))
	}
	msg, _ := answer["error"].(string)
	if msg == "" {
		msg = "No se pudo enviar el formulario. Inténtalo de nuevo."
	}
	fields := map[string][]string{}
	if issues, ok := answer["issues"].(map[string]any); ok {
		if fe, ok := issues["fieldErrors"].(map[string]any); ok {
			for k, v := range fe {
				for _, m := range asList(v) {
					fields[k] = append(fields[k], m)
				}
			}
		}
		for _, m := range asList(issues["formErrors"]) {
			msg += " " + m
		}
	}
	if status == http.StatusUnauthorized && a.name == "publicar.html" {
		msg = "Ingresa para publicar un trabajo: tu sesión no está abierta."
	}
	return s.formPage(e, a, status, form, msg, fields)
}

// asList reads a JSON list of strings.
func asList(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// recorder keeps an internal answer.
type recorder struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

// forward sends body as JSON to the service's own route, as the page's
// script would from this browser (its cookies, address, origin and proxy
// headers), copies the cookies the route sets onto the answer, and
// returns the route's status and JSON answer.
func (s *site) forward(e *core.RequestEvent, method, route string, body map[string]any) (int, map[string]any) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	u, err := url.Parse(route)
	if err != nil || s.mux == nil {
		return http.StatusServiceUnavailable, map[string]any{}
	}
	in := e.Request.Clone(e.Request.Context())
	in.Method = method
	in.URL = u
	in.RequestURI = route
	in.Body = readCloser{bytes.NewReader(raw)}
	in.ContentLength = int64(len(raw))
	in.Header = e.Request.Header.Clone()
	in.Header.Del("Content-Type")
	if body != nil {
		in.Header.Set("Content-Type", "application/json")
	}
	in.Header.Set("Accept", "application/json")
	in.Header.Del("Content-Length")
	in.Header.Del("Accept-Encoding")
	in.Form, in.PostForm, in.MultipartForm = nil, nil, nil
	rec := &recorder{h: http.Header{}}
	s.mux.ServeHTTP(rec, in)
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	for _, c := range rec.h.Values("Set-Cookie") {
		e.Response.Header().Add("Set-Cookie", c)
	}
	out := map[string]any{}
	_ = json.Unmarshal(rec.body.Bytes(), &out)
	return rec.code, out
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

var (
	inputTagRe   = regexp.MustCompile(`<input [^>]*>`)
	textareaRe   = regexp.MustCompile(`(?s)(<textarea [^>]*>)(.*?)(</textarea>)`)
	selectRe     = regexp.MustCompile(`(?s)(<select [^>]*>)(.*?)(</select>)`)
	nameAttrRe   = regexp.MustCompile(` name="([^"]+)"`)
	typeAttrRe   = regexp.MustCompile(` type="([^"]+)"`)
	valueAttrRe  = regexp.MustCompile(` value="[^"]*"`)
	optionRe     = regexp.MustCompile(`<option value="([^"]*)"`)
	alertRe      = regexp.MustCompile(`<div class="alert" id="alert" role="alert" tabindex="-1"></div>`)
	fieldErrorRe = regexp.MustCompile(`<p class="field-error" id="err-([^"]+)"></p>`)
)

// formPage answers page a with the posted values kept in its form (never a
// password or a file), msg in the form's alert and each field's errors
// beside it.
func (s *site) formPage(e *core.RequestEvent, a *asset, status int, form url.Values, msg string, fields map[string][]string) error {
	doc := s.serviceOptions(e, a.name, string(a.body))
	esc := html.EscapeString
	doc = inputTagRe.ReplaceAllStringFunc(doc, func(tag string) string {
		m := nameAttrRe.FindStringSubmatch(tag)
		if m == nil {
			return tag
		}
		name := m[1]
		typ := "text"
		if t := typeAttrRe.FindStringSubmatch(tag); t != nil {
			typ = t[1]
		}
		if len(fields[name]) > 0 {
			tag = strings.Replace(tag, "<input ", `<input aria-invalid="true" `, 1)
		}
		switch typ {
		case "password", "file", "hidden", "submit":
			return tag
		case "checkbox", "radio":
			if _, ok := form[name]; ok && !strings.Contains(tag, " checked") {
				tag = strings.Replace(tag, "<input ", "<input checked ", 1)
			}
			return tag
		}
		if _, ok := form[name]; !ok {
			return tag
		}
		tag = valueAttrRe.ReplaceAllString(tag, "")
		return strings.Replace(tag, "<input ", `<input value="`+esc(form.Get(name))+`" `, 1)
	})
	doc = textareaRe.ReplaceAllStringFunc(doc, func(t string) string {
		m := textareaRe.FindStringSubmatch(t)
		n := nameAttrRe.FindStringSubmatch(m[1])
		if n == nil {
			return t
		}
		if _, ok := form[n[1]]; !ok {
			return t
		}
		return m[1] + esc(form.Get(n[1])) + m[3]
	})
	doc = selectRe.ReplaceAllStringFunc(doc, func(t string) string {
		m := selectRe.FindStringSubmatch(t)
		n := nameAttrRe.FindStringSubmatch(m[1])
		if n == nil || form.Get(n[1]) == "" {
			return t
		}
		want := form.Get(n[1])
		opts := optionRe.ReplaceAllStringFunc(m[2], func(o string) string {
			if optionRe.FindStringSubmatch(o)[1] == esc(want) {
				return o + " selected"
			}
			return o
		})
		return m[1] + opts + m[3]
	})
	doc = fieldErrorRe.ReplaceAllStringFunc(doc, func(p string) string {
		name := fieldErrorRe.FindStringSubmatch(p)[1]
		if len(fields[name]) == 0 {
			return p
		}
		return `<p class="field-error" id="err-` + name + `">` + esc(strings.Join(fields[name], ". ")) + `</p>`
	})
	if msg != "" {
		kind := "error"
		if status < 400 {
			kind = "info"
		}
		doc = alertRe.ReplaceAllString(doc, `<div class="alert `+kind+`" id="alert" role="alert" tabindex="-1">`+esc(msg)+`</div>`)
	}
	return s.page(e, &asset{name: a.name, body: []byte(doc), ctype: a.ctype, preload: a.preload}, status)
}

// serviceOptions fills the services' select of publicar.html on the
// server (GET /api/categories and /api/services, as the script does), so
// that the form works without JavaScript. When the services cannot be read
// (a refusal or a failure of a route, each tried twice when it fails on
// the server's side) the select says so in Spanish instead of "Cargando
// servicios…", which no script would replace, and the routes' statuses are
// logged.
func (s *site) serviceOptions(e *core.RequestEvent, page, doc string) string {
	const empty = `<option value="">Cargando servicios…</option>`
	if page != "publicar.html" || !strings.Contains(doc, empty) {
		return doc
	}
	catStatus, cats := s.read(e, "/api/categories")
	svcStatus, svc := s.read(e, "/api/services?perPage=100")
	names := map[string]string{}
	for _, c := range asMaps(cats["categories"]) {
		id, _ := c["id"].(string)
		names[id], _ = c["name"].(string)
	}
	groups := map[string][]map[string]any{}
	var order []string
	for _, sv := range asMaps(svc["services"]) {
		cid, _ := sv["categoryId"].(string)
		if cid == "" {
			if c, ok := sv["category"].(map[string]any); ok {
				cid, _ = c["id"].(string)
			}
		}
		if _, seen := groups[cid]; !seen {
			order = append(order, cid)
		}
		groups[cid] = append(groups[cid], sv)
	}
	if len(order) == 0 && catStatus == http.StatusOK && svcStatus == http.StatusOK {
		return strings.Replace(doc, empty, `<option value="">`+html.EscapeString(MsgNoServicesYet)+`</option>`, 1)
	}
	if len(order) == 0 {
		e.App.Logger().Warn("web: the publish form without JavaScript has no services",
			"categoriesStatus", catStatus, "servicesStatus", svcStatus)
		return strings.Replace(doc, empty, `<option value="">`+html.EscapeString(MsgNoServices)+`</option>`, 1)
	}
	esc := html.EscapeString
	var b strings.Builder
	b.WriteString(`<option value="">Elige un servicio</option>`)
	for _, cid := range order {
		label := names[cid]
		if label == "" {
			label = "Otros"
		}
		b.WriteString(`<optgroup label="` + esc(label) + `">`)
		for _, sv := range groups[cid] {
			id, _ := sv["id"].(string)
			name, _ := sv["name"].(string)
			b.WriteString(`<option value="` + esc(id) + `">` + esc(name) + `</option>`)
		}
		b.WriteString(`</optgroup>`)
	}
	return strings.Replace(doc, empty, b.String(), 1)
}

// MsgNoServices is the services' select of publicar.html, sent without
// JavaScript, when the services could not be read.
const MsgNoServices = "No se pudieron cargar los servicios: recarga la página en unos segundos"

// MsgNoServicesYet is the services' select of publicar.html, sent without
// JavaScript, when the catalog has no service yet.
const MsgNoServicesYet = "Todavía no hay servicios para elegir"

// read is a GET of one of the service's own routes (forward), tried a
// second time when the first answer is a failure on the server's side.
func (s *site) read(e *core.RequestEvent, route string) (int, map[string]any) {
	status, answer := s.forward(e, http.MethodGet, route, nil)
	if status >= 500 && e.Request.Context().Err() == nil {
		status, answer = s.forward(e, http.MethodGet, route, nil)
	}
	return status, answer
}

func asMaps(v any) []map[string]any {
	var out []map[string]any
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}
