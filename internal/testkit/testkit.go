// Package testkit boots the whole service on a temporary data dir for tests:
// migrations applied, every module registered, a real HTTP server on
// 127.0.0.1, and helpers to create users, sessions and camellos in code.
package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"camellos/internal/config"
	"camellos/internal/dbwatch"
	"camellos/internal/logs"
	"camellos/internal/session"
	"camellos/modules"
	"camellos/modules/camellos"
	"camellos/modules/users"
	_ "camellos/pb_migrations"

	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tests"
)

// Kit is a running service for one test.
type Kit struct {
	T      testing.TB
	App    *tests.TestApp
	Server *httptest.Server
	URL    string
	Client *http.Client
}

// Option adjusts the app before the server starts (e.g. env-like settings).
type Option func(app *tests.TestApp)

// New boots the service on a fresh temporary data dir (a copy of the
// migrated template, template.go) and serves it on a loopback port until
// the test ends.
func New(t testing.TB, opts ...Option) *Kit {
	t.Helper()
	dir := t.TempDir()
	if err := writeTemplate(dir); err != nil {
		t.Fatalf("data dir: %v", err)
	}
	return newOn(t, dir, opts...)
}

// Clone boots a second service on a copy of src's database as it is now
// (VACUUM INTO: a consistent snapshot), with every in-memory projection
// cold: what src answers must equal what the clone answers (the
// differential test of internal/readmodel).
func Clone(t testing.TB, src *Kit, opts ...Option) *Kit {
	t.Helper()
	dir := t.TempDir()
	if _, err := src.App.DB().NewQuery("VACUUM INTO {:p}").
		Bind(map[string]any{"p": filepath.Join(dir, "data.db")}).Execute(); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return newOn(t, dir, opts...)
}

func newOn(t testing.TB, dataDir string, opts ...Option) *Kit {
	t.Helper()
	// data.db through the service's own connections, watched for commits
	// by other processes as in production (modules.New).
	w := dbwatch.New()
	app, err := tests.NewTestAppWithConfig(core.BaseAppConfig{
		DataDir:       dataDir,
		EncryptionEnv: "pb_test_env",
		DBConnect:     modules.DBConnect(w),
	})
	if err != nil {
		t.Fatalf("test app: %v", err)
	}
	// The configuration is read once, here, as the binary reads it at start:
	// a test sets its environment (t.Setenv) before booting the kit.
	cfg, err := config.Load()
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	config.Set(app, cfg)
	dbwatch.Attach(app, w)
	for _, o := range opts {
		o(app)
	}
	modules.Register(app)
	r, err := apis.NewRouter(app)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	se := &core.ServeEvent{App: app, Router: r}
	var srv *httptest.Server
	err = app.OnServe().Trigger(se, func(e *core.ServeEvent) error {
		mux, err := e.Router.BuildMux()
		if err != nil {
			return err
		}
		srv = httptest.NewServer(mux)
		return nil
	})
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	// The scheduler stays stopped: a job registered on it (the 5-minute
	// sweeps, the reminders) would otherwise fire whenever the wall clock
	// crosses its minute, racing a test that moved the app's clock and
	// runs the same sweep itself. The jobs stay registered (tests read
	// app.Cron().Jobs()); a test runs a sweep by calling it.
	app.Cron().Stop()
	// Honour "Expect: 100-continue", so a request refused for its size gets
	// its 413 instead of a reset connection.
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 5 * time.Second
	tr.MaxIdleConnsPerHost = 64
	k := &Kit{T: t, App: app, Server: srv, URL: srv.URL, Client: &http.Client{Transport: tr}}
	t.Cleanup(func() {
		srv.Close()
		app.Cleanup()
		_ = w.Close()
	})
	return k
}

// Response is an answered request: status, headers, raw body and the body
// decoded as a JSON object (nil when it is not one).
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   map[string]any
}

// Str returns a string at a dotted path of the JSON body ("user.email").
func (r *Response) Str(path string) string {
	v := r.Get(path)
	s, _ := v.(string)
	return s
}

// Get returns the value at a dotted path of the JSON body ("camello.services.0.id").
func (r *Response) Get(path string) any {
	var cur any = r.JSON
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case []any:
			var i int
			if _, err := fmt.Sscanf(part, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// Error returns the envelope's error message.
func (r *Response) Error() string { return r.Str("error") }

// FieldErrors returns issues.fieldErrors[field] of a validation error.
func (r *Response) FieldErrors(field string) []string {
	v, _ := r.Get("issues.fieldErrors." + field).([]any)
	out := make([]string, 0, len(v))
	for _, s := range v {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

// Req describes a request: Body may be a string/[]byte (sent as is), nil,
// or any value sent as JSON.
type Req struct {
	Method  string
	Path    string
	Body    any
	Cookie  string // session token
	Headers map[string]string
}

// Do sends a request and reads the whole answer.
func (k *Kit) Do(r Req) *Response {
	k.T.Helper()
	var body io.Reader
	contentType := "application/json"
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	case *Multipart:
		body = bytes.NewReader(b.buf.Bytes())
		contentType = b.contentType
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			k.T.Fatalf("marshal: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(r.Method, k.URL+r.Path, body)
	if err != nil {
		k.T.Fatalf("request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if r.Cookie != "" {
		req.AddCookie(&http.Cookie{Name: session.SessionCookie, Value: r.Cookie})
	}
	for h, v := range r.Headers {
		req.Header.Set(h, v)
	}
	res, err := k.Client.Do(req)
	if err != nil {
		k.T.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := &Response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.JSON)
	return out
}

// Get, Post, Put, Patch and Delete are shorthands of Do.
func (k *Kit) Get(path, cookie string) *Response {
	k.T.Helper()
	return k.Do(Req{Method: http.MethodGet, Path: path, Cookie: cookie})
}

// Post sends body as JSON (or as is for string/[]byte/*Multipart).
func (k *Kit) Post(path, cookie string, body any) *Response {
	k.T.Helper()
	return k.Do(Req{Method: http.MethodPost, Path: path, Cookie: cookie, Body: body})
}

// Put sends body as JSON.
func (k *Kit) Put(path, cookie string, body any) *Response {
	k.T.Helper()
	return k.Do(Req{Method: http.MethodPut, Path: path, Cookie: cookie, Body: body})
}

// Patch sends body as JSON.
func (k *Kit) Patch(path, cookie string, body any) *Response {
	k.T.Helper()
	return k.Do(Req{Method: http.MethodPatch, Path: path, Cookie: cookie, Body: body})
}

// Delete sends body (may be nil) as JSON.
func (k *Kit) Delete(path, cookie string, body any) *Response {
	k.T.Helper()
	return k.Do(Req{Method: http.MethodDelete, Path: path, Cookie: cookie, Body: body})
}

// Multipart builds a multipart/form-data body.
type Multipart struct {
	buf         bytes.Buffer
	w           *multipart.Writer
	contentType string
}

// NewMultipart starts a multipart body.
func NewMultipart() *Multipart {
	m := &Multipart{}
	m.w = multipart.NewWriter(&m.buf)
	return m
}

// Field adds a text field.
func (m *Multipart) Field(name, value string) *Multipart {
	_ = m.w.WriteField(name, value)
	return m
}

// File adds a file part.
func (m *Multipart) File(field, filename string, content []byte) *Multipart {
	fw, _ := m.w.CreateFormFile(field, filename)
	_, _ = fw.Write(content)
	return m
}

// Close finishes the body; call it before sending.
func (m *Multipart) Close() *Multipart {
	_ = m.w.Close()
	m.contentType = m.w.FormDataContentType()
	return m
}

var seq atomic.Int64

// Unique returns a short unique suffix for e-mails and names.
func Unique() string { return fmt.Sprintf("%d", seq.Add(1)) }

// UserOpts are optional fields of CreateUser.
type UserOpts struct {
	Email    string
	Password string
	Name     string
	Phone    string
	City     string
	Disabled bool
}

// DefaultPassword is the password of users made by CreateUser.
const DefaultPassword = "secreto-123"

// CreateUser saves a user with a role directly (no HTTP).
func (k *Kit) CreateUser(role string, o ...UserOpts) *core.Record {
	k.T.Helper()
	var opt UserOpts
	if len(o) > 0 {
		opt = o[0]
	}
	n := Unique()
	if opt.Email == "" {
		opt.Email = strings.ToLower(role) + n + "@example.com"
	}
	if opt.Password == "" {
		opt.Password = DefaultPassword
	}
	if opt.Name == "" {
		opt.Name = "Usuario " + n
	}
	// Through the owner's commands, as a sign-up creates one (the record
	// hooks run); a disabled user is disabled afterwards, as an admin does.
	u, err := users.Prepare(k.App, users.New{Email: opt.Email, Name: opt.Name, Phone: opt.Phone, City: opt.City,
		Role: role, Password: opt.Password})
	if err == nil {
		err = users.Create(k.App, u)
	}
	if err == nil && opt.Disabled {
		disabled := true
		err = users.Update(k.App, u, users.Change{Disabled: &disabled})
	}
	if err != nil {
		k.T.Fatalf("create user: %v", err)
	}
	return u.Record
}

// Session opens a session for user and returns its cookie token.
func (k *Kit) Session(user *core.Record) string {
	k.T.Helper()
	token, err := session.CreateSession(k.App, user, "127.0.0.1", "testkit")
	if err != nil {
		k.T.Fatalf("session: %v", err)
	}
	return token
}

// UserWithSession creates a user of a role and returns it with a cookie token.
func (k *Kit) UserWithSession(role string, o ...UserOpts) (*core.Record, string) {
	k.T.Helper()
	u := k.CreateUser(role, o...)
	return u, k.Session(u)
}

// CamelloOpts are optional fields of CreateCamello.
type CamelloOpts struct {
	Status   string // default ACTIVO
	Name     string
	City     string
	Trades   []string
	Services []string
	Premium  bool
	Timezone string
}

// CreateCamello saves a CAMELLOS user and its camello profile directly.
func (k *Kit) CreateCamello(o ...CamelloOpts) (user *core.Record, camello *core.Record, cookie string) {
	k.T.Helper()
	var opt CamelloOpts
	if len(o) > 0 {
		opt = o[0]
	}
	if opt.Status == "" {
		opt.Status = "ACTIVO"
	}
	if opt.Name == "" {
		opt.Name = "Camello " + Unique()
	}
	if opt.City == "" {
		opt.City = "Bogotá"
	}
	if opt.Trades == nil {
		opt.Trades = []string{"plomería"}
	}
	user, cookie = k.UserWithSession(users.RoleCamello, UserOpts{Name: opt.Name})
	col, err := k.App.FindCollectionByNameOrId("camellos")
	if err != nil {
		k.T.Fatal(err)
	}
	camello = core.NewRecord(col)
	camello.Set(camellos.FieldUser, user.Id)
	camello.Set(camellos.FieldName, opt.Name)
	camello.Set(camellos.FieldTrades, opt.Trades)
	camello.Set(camellos.FieldStatus, opt.Status)
	camello.Set(camellos.FieldPremium, opt.Premium)
	camello.Set(camellos.FieldServices, opt.Services)
	camello.Set(camellos.FieldPhone, "3001234567")
	camello.Set(camellos.FieldCity, opt.City)
	if opt.Timezone != "" {
		camello.Set(camellos.FieldTimezone, opt.Timezone)
	}
	if err := k.App.Save(camello); err != nil {
		k.T.Fatalf("create camello: %v", err)
	}
	return user, camello, cookie
}

// CreateRecord saves a record of any collection with the given fields.
func (k *Kit) CreateRecord(collection string, fields map[string]any) *core.Record {
	k.T.Helper()
	col, err := k.App.FindCollectionByNameOrId(collection)
	if err != nil {
		k.T.Fatal(err)
	}
	rec := core.NewRecord(col)
	for f, v := range fields {
		rec.Set(f, v)
	}
	if err := k.App.Save(rec); err != nil {
		k.T.Fatalf("create %s: %v", collection, err)
	}
	return rec
}

// Count returns how many records of a collection match a filter ("" = all).
func (k *Kit) Count(collection, filter string, params ...map[string]any) int {
	k.T.Helper()
	var p map[string]any
	if len(params) > 0 {
		p = params[0]
	}
	n, err := k.App.CountRecords(collection, dbxFilter(filter, p)...)
	if err != nil {
		k.T.Fatalf("count %s: %v", collection, err)
	}
	return int(n)
}

// LogTo sends the service's stdout log (internal/logs) to w.
func LogTo(w io.Writer) Option {
	return func(app *tests.TestApp) { logs.SetOutput(app, w) }
}
