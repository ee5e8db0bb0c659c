package e2e_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds the browser: $CHROMIUM, then the usual names.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium tab pointed at a running service.
type browser struct {
	t    *testing.T
	k    *testkit.Kit
	ctx  context.Context
	mu   sync.Mutex
	errs []string
}

// newBrowser starts Chromium with a fresh profile, or skips (fails on CI)
// when there is none.
func newBrowser(t *testing.T, k *testkit.Kit) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		msg := "\n\n*** NO CHROMIUM FOUND: the browser tests of e2e/ did NOT run. ***\n" +
			"*** Install it (apt-get install -y chromium) or set $CHROMIUM.   ***\n\n"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "es-CO"),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	b := &browser{t: t, k: k, ctx: ctx}
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				text = d.Exception.Description
			}
			b.mu.Lock()
			b.errs = append(b.errs, fmt.Sprintf("%s (%s:%d)", text, d.URL, d.LineNumber+1))
			b.mu.Unlock()
		}
	}()
	b.do(chromedp.EmulateViewport(1280, 900))
	return b
}

// jsErrors returns the uncaught JavaScript exceptions seen so far.
func (b *browser) jsErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// do runs actions, failing the test with where it stood.
func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v (at %s)\nJS errors: %v", err, b.location(), b.jsErrors())
	}
}

func (b *browser) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	return loc
}

// visit opens a path of the service and waits until its header is drawn.
func (b *browser) visit(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.k.URL + path))
	b.waitJS(`document.readyState === 'complete' && document.querySelector('#nav') && document.querySelector('#nav').children.length > 0`, "the header navigation")
}

// waitJS polls a JavaScript condition until it is truthy; a navigation
// while polling (the page changed under it) polls again on the new page.
func (b *browser) waitJS(expr, what string) {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second) // generous: CI machines are busy
	var err error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, time.Until(deadline)+time.Second)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!!(`+expr+`)`, chromedp.WithPollingTimeout(time.Until(deadline)), chromedp.WithPollingInterval(50*time.Millisecond)))
		cancel()
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "navigated") && !strings.Contains(err.Error(), "context") && !strings.Contains(err.Error(), "Execution context") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("waiting for %s: %v\nat %s\nalert: %q\nJS errors: %v", what, err, b.location(), b.str(`(document.querySelector('.alert')||{}).textContent||''`), b.jsErrors())
}

// noJunk fails when the page shows a JavaScript placeholder as text.
func (b *browser) noJunk() {
	b.t.Helper()
	if junk := b.str(`(document.body.innerText.match(/\b(undefined|null|NaN)\b|\[object Object\]/) || [''])[0]`); junk != "" {
		b.t.Errorf("%s shows %q", b.location(), junk)
	}
}

// str evaluates a JavaScript expression to a string.
func (b *browser) str(expr string) string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`String(`+expr+`)`))
	return s
}

// css selects by CSS.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// typeIn fills text fields of the page: selector -> value.
func (b *browser) typeIn(fields [][2]string) {
	b.t.Helper()
	for _, f := range fields {
		b.do(chromedp.WaitVisible(css(f[0])), chromedp.SendKeys(css(f[0]), f[1]))
	}
}

// signIn gives the browser a session of user without the sign-in page.
func (b *browser) signIn(user string) {
	b.t.Helper()
	rec, err := b.k.App.FindRecordById(users.Collection, user)
	if err != nil {
		b.t.Fatal(err)
	}
	token := b.k.Session(rec)
	httpOnly := true
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.SetCookie, network.SetCookieParams{
			Name: session.SessionCookie, Value: token, URL: b.k.URL, Path: "/", HTTPOnly: &httpOnly,
			SameSite: network.CookieSameSiteLax,
		})
		return err
	}))
}

// clearCookies signs the browser out without the UI.
func (b *browser) clearCookies() {
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{})
		return err
	}))
}

// screenshotDir is where screenshots go (outside git).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("E2E_SCREENSHOTS")
	if dir == "" {
		dir = "screenshots"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shoot saves full-page screenshots of the current page at phone (390 px)
// and desktop (1280 px) widths.
func (b *browser) shoot(name string) {
	b.t.Helper()
	dir := screenshotDir(b.t)
	for _, w := range []struct {
		label  string
		width  int64
		height int64
	}{{"phone", 390, 844}, {"desktop", 1280, 900}} {
		b.do(chromedp.EmulateViewport(w.width, w.height))
		ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
		// let layout settle after the resize
		_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			b.t.Fatalf("screenshot %s: %v", name, err)
		}
		file := filepath.Join(dir, fmt.Sprintf("%s-%s.png", name, w.label))
		if strings.HasSuffix(file, ".png") && len(png) > 0 {
			if err := os.WriteFile(file, png, 0o644); err != nil {
				b.t.Fatal(err)
			}
		}
	}
	b.do(chromedp.EmulateViewport(1280, 900))
}
