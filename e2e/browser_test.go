package e2e_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"camellos/internal/session"
	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
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
	// console holds the console errors (network failures included) since
	// the last consoleMark.
	console []string
	// w, h is the current viewport.
	w, h int64
	// noScripts: the page's JavaScript is turned off (scripts).
	noScripts bool
}

// newBrowser opens a window of the package's Chromium in a fresh browser
// context, or skips (fails on CI) when there is no Chromium.
func newBrowser(t *testing.T, k *testkit.Kit) *browser {
	t.Helper()
	defer spent("newBrowser", time.Now())
	path := chromiumPath()
	if path == "" {
		msg := "\n\n*** NO CHROMIUM FOUND: the browser tests of e2e/ did NOT run. ***\n" +
			"*** Install it (apt-get install -y chromium) or set $CHROMIUM.   ***\n\n"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root, err := shared.start(path)
	if err != nil {
		t.Fatal(err)
	}
	// A browser context of its own: cookies, storage, permissions and
	// service workers start empty, as with a fresh profile.
	ctx, cancelTab := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	b := &browser{t: t, k: k, ctx: ctx}
	t.Cleanup(cancelTab)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	console := chromedp.Console(ctx)
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
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.console = append(b.console, fmt.Sprintf("%s (%s)", m.Text, m.URL))
				b.mu.Unlock()
			}
		}
	}()
	// Every document sums its layout shifts (CLS) from the start; the
	// browser lives in Bogotá, as the demo's people do.
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/Bogota"}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: clsObserver})
		return err
	}))
	b.viewport(1366, 900)
	if latency() > 0 {
		b.lateAnswers(0)
	}
	return b
}

// lateAnswers makes every answer this browser gets wait ms (0: only
// $E2E_LATENCY_MS, the larger wins), past Chrome's 500 ms input window
// from 700 on: a step whose page must not move however late its answers
// come is walked that way on every run, on a quiet machine too.
func (b *browser) lateAnswers(ms int) {
	b.t.Helper()
	ms = max(ms, latency())
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{Latency: float64(ms), DownloadThroughput: -1, UploadThroughput: -1}}})
		return err
	}))
}

// latency is $E2E_LATENCY_MS: every request of the browser then waits that
// long for its answer (DevTools' network emulation). At 700 every answer
// comes after Chrome's 500 ms input window, as on a slow phone network or a
// busy machine: a layout shift that only a late answer causes is then seen
// on every run, on a quiet machine too (docs/web.md).
func latency() int {
	ms, _ := strconv.Atoi(os.Getenv("E2E_LATENCY_MS"))
	return ms
}

// clsObserver sums the layout shifts not caused by input, as CLS does
// (one session window is enough for a page that settles once), and counts
// the page's requests in flight (window.__inflight: fetch and
// EventSource-free), so that checks wait for data, not for the clock.
const clsObserver = `window.__cls = 0; window.__shifts = []; window.__inflight = 0;
try { const f = window.fetch.bind(window); window.fetch = (...a) => { window.__inflight++;
  return f(...a).finally(() => { window.__inflight--; }); }; } catch (e) {}
try { new PerformanceObserver((l) => { for (const e of l.getEntries()) { if (!e.hadRecentInput) { window.__cls += e.value;
  window.__shifts.push(e.value.toFixed(3) + ' ' + (e.sources || []).map((s) => (s.node ? (s.node.id || s.node.className || s.node.nodeName) : '?') +
    ' y' + Math.round(s.previousRect.y) + '→' + Math.round(s.currentRect.y) + ' h' + Math.round(s.previousRect.height) + '→' + Math.round(s.currentRect.height)).join('+')); } } })
  .observe({ type: 'layout-shift', buffered: true }); } catch (e) {}`

// contextID is the browser context of this browser (permissions are set
// per context).
func (b *browser) contextID() cdp.BrowserContextID {
	return chromedp.FromContext(b.ctx).BrowserContextID
}

// viewport sets the window size (phone 390×844, desktop 1366×900).
func (b *browser) viewport(w, h int64) {
	b.w, b.h = w, h
	if w < 500 {
		b.do(chromedp.EmulateViewport(w, h, chromedp.EmulateMobile, chromedp.EmulateScale(1)))
	} else {
		b.do(chromedp.EmulateViewport(w, h))
	}
}

// consoleErrors returns the console errors since the last consoleMark and
// forgets them.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.console
	b.console = nil
	return out
}

// expectConsoleErrors forgets the console errors seen so far (a step that
// asks for a refusal on purpose: the browser logs the 4xx).
// It waits until no request is in flight (the browser logs a refusal when
// its answer arrives), never for a fixed time.
func (b *browser) expectConsoleErrors() { b.settle(); b.consoleErrors() }

// settle waits until the page is at rest as a person would see it: its
// fonts loaded, no request in flight (the data drawn), and two animation
// frames later (the layout shifts of the last draw reported). Measures
// that follow (CLS, console) then mean what they say on a busy machine.
func (b *browser) settle() {
	b.t.Helper()
	defer spent("settle", time.Now())
	b.waitJS(`document.fonts.status === 'loaded' && !window.__inflight`, "the page at rest (fonts and data)")
	b.do(chromedp.Evaluate[chromedp.Void](`window.__frames = 0; requestAnimationFrame(() => requestAnimationFrame(() => { window.__frames = 2; }))`))
	b.waitJS(`window.__frames === 2 && !window.__inflight`, "two frames after the last draw")
}

// axeSource is axe-core, installed by npm in e2e/lighthouse.
var (
	axeOnce   sync.Once
	axeSource string
)

func loadAxe() string {
	axeOnce.Do(func() {
		raw, err := os.ReadFile(filepath.Join("lighthouse", "node_modules", "axe-core", "axe.min.js"))
		if err == nil {
			axeSource = string(raw)
		}
	})
	return axeSource
}

// axe runs axe-core (WCAG 2.2 A/AA and best practices) on the page as it is
// and fails on any violation.
func (b *browser) axe(state string) { b.axeOn(state, "document") }

// axeOn runs axe-core on what the JavaScript expression within selects
// (a modal dialog: the page under it is inert and was checked before it
// opened).
func (b *browser) axeOn(state, within string) {
	b.t.Helper()
	defer spent("axe", time.Now())
	src := loadAxe()
	if src == "" {
		msg := "axe-core missing: run `npm ci` in e2e/lighthouse"
		if os.Getenv("CI") != "" {
			b.t.Fatal(msg)
		}
		b.t.Log(msg)
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	// A state already found clean at this size in this run is not scanned
	// again (axeSeen).
	shape, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(`+domShape+`)(`+within+`)`))
	if err != nil {
		b.t.Fatalf("axe on %s: the page's shape: %v", state, err)
	}
	key := fmt.Sprintf("%d %s %x", b.w, within, sha256.Sum256([]byte(shape)))
	axeSeen.Lock()
	seen := axeSeen.m[key]
	axeSeen.Unlock()
	if seen {
		spent("axe (same state, skipped)", time.Now())
		return
	}
	// The 560 KB source goes to the page only when this document has no
	// axe yet (a page checked again keeps it).
	if has, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!window.axe`)); !has {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`(() => { `+src+` })()`)); err != nil {
			b.t.Fatalf("axe on %s: loading axe-core: %v", state, err)
		}
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		return axe.run(`+within+`, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] })
		.then((r) => JSON.stringify(r.violations.map((v) => v.id + ' (' + v.impact + '): ' + v.help + ' — ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))); })()`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe on %s: %v", state, err)
	}
	if res != "[]" {
		b.t.Errorf("axe violations on %s (%dx%d): %s", state, b.w, b.h, res)
		return
	}
	axeSeen.Lock()
	axeSeen.m[key] = true
	axeSeen.Unlock()
}

// axeSeen holds the page states axe found clean in this run, by viewport
// width, scope and domShape digest. The journeys check the same state
// more than once (a page at rest that several tests open, a dialog asked
// twice); axe was ~95 % of the checks' time (docs/web.md).
var axeSeen = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// domShape is what axe's rules read of a page state, without the data that
// differ between runs of the same state: the path, then every element in
// order with its attributes (record ids, numbers and object URLs folded;
// style kept) and whether it holds text. The
// same shape means the same tags, roles, names' presence, classes (hence
// colours and contrast), ids' pattern and tree: the same axe verdict.
const domShape = `(root) => {
	const fold = (v) => v.replace(/blob:\S+/g, 'blob').replace(/[a-z0-9]{15}/g, 'ID').replace(/\d+(\.\d+)?/g, '0');
	const out = [location.pathname];
	const walk = (n, depth) => {
		const a = [...n.attributes].map((x) => x.name + '=' + fold(x.value)).sort().join(' ');
		const text = [...n.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim()) ? ' T' : '';
		out.push(depth + ' ' + n.tagName + ' ' + a + text);
		for (const c of n.children) walk(c, depth + 1);
	};
	walk(root === document ? document.documentElement : root, 0);
	return out.join('\n');
}`

// check asserts a page state as a person sees it: no JavaScript placeholder
// shown, no console error, no layout jump (CLS ≤ 0.05), zero axe
// violations; then saves a screenshot.
func (b *browser) check(state string) {
	b.t.Helper()
	defer spent("check", time.Now())
	b.settle()
	b.noJunk()
	if errs := b.consoleErrors(); len(errs) > 0 {
		b.t.Errorf("console errors on %s: %v", state, errs)
	}
	if cls := b.float(`window.__cls || 0`); cls > 0.05 {
		b.t.Errorf("layout shift on %s (%dx%d): CLS %.3f %s", state, b.w, b.h, cls, b.str(`JSON.stringify(window.__shifts)`))
	}
	if small := b.str(`JSON.stringify([...document.querySelectorAll('button, .btn, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden]), textarea, summary, .nav a, .tabs a, .site-footer a')]
		.filter((n) => n.offsetParent !== null && !n.closest('[hidden]')).map((n) => [n, n.getBoundingClientRect()])
		.filter(([n, r]) => r.width > 0 && (r.height < 43.5 || r.width < 43.5)).slice(0, 5)
		.map(([n, r]) => (n.id || n.className || n.tagName) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height)))`); small != "[]" {
		b.t.Errorf("touch targets under 44 px on %s (%dx%d): %s", state, b.w, b.h, small)
	}
	// Nothing wider than the viewport (a phone scrolls sideways and clips
	// the right side otherwise), and nothing marked hidden is drawn (a CSS
	// display rule can override the attribute).
	if wide := b.str(`(() => { const vw = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth <= vw) return '';
		const n = [...document.body.querySelectorAll('*')].find((n) => n.getBoundingClientRect().right > vw + 0.5 && !n.closest('[hidden]') && getComputedStyle(n).position !== 'fixed');
		return document.documentElement.scrollWidth + 'px ' + (n ? (n.id || n.className || n.tagName) : '?'); })()`); wide != "" {
		b.t.Errorf("wider than the viewport on %s (%dx%d): %s", state, b.w, b.h, wide)
	}
	if shown := b.str(`[...document.querySelectorAll('body [hidden]')].filter((n) => n.getClientRects().length > 0).slice(0, 5).map((n) => n.id || n.className || n.tagName).join(', ')`); shown != "" {
		b.t.Errorf("elements marked hidden are drawn on %s (%dx%d): %s", state, b.w, b.h, shown)
	}
	b.toastClear(state)
	b.axe(state)
	b.shoot(state)
}

// toastOracle reads the toast as a person sees it: "" when no toast is
// drawn, or when the one drawn neither repeats a message line in view nor
// covers the focused element, a message line in view or a button in view;
// else what is wrong.
const toastOracle = `(() => {
	const t = document.querySelector('#toast');
	if (!t || !t.textContent.trim()) return '';
	const tr = t.getBoundingClientRect();
	if (getComputedStyle(t).visibility === 'hidden' || tr.width < 2 || tr.height < 2) return '';
	const inView = (r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
	const gist = (s) => s.trim().replace(/[.!…\s]+$/, '').toLowerCase();
	const name = (n) => n.id ? '#' + n.id : (n.className || n.tagName) + ' «' + n.textContent.trim().slice(0, 30) + '»';
	const lines = [...document.querySelectorAll('.alert, [role=status], [role=alert]')].filter((n) => n !== t && n.textContent.trim() && inView(n.getBoundingClientRect()));
	const said = lines.find((n) => gist(n.textContent).includes(gist(t.textContent)) || gist(t.textContent).includes(gist(n.textContent)));
	if (said) return 'the toast «' + t.textContent + '» repeats ' + name(said);
	const hit = [...lines, ...document.querySelectorAll('button, .btn'), document.activeElement]
		.filter((n) => n && n !== document.body && !t.contains(n))
		.find((n) => { const r = n.getBoundingClientRect(); return inView(r) && r.left < tr.right && r.right > tr.left && r.top < tr.bottom && r.bottom > tr.top; });
	return hit ? 'the toast «' + t.textContent + '» covers ' + name(hit) + (hit === document.activeElement ? ' (focused)' : '') : '';
})()`

// toastClear fails when a toast repeats a message in view or covers the
// focused element, a message line or a button (issue 24, defect 8).
func (b *browser) toastClear(state string) {
	b.t.Helper()
	if bad := b.str(toastOracle); bad != "" {
		b.t.Errorf("%s (%dx%d): %s", state, b.w, b.h, bad)
	}
}

// float evaluates a JavaScript number.
func (b *browser) float(expr string) float64 {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	f, _ := chromedp.Run(ctx, chromedp.Evaluate[float64](`Number(`+expr+`)`))
	return f
}

// near asserts that sel shows text matching re and lies inside the
// viewport: the answer appears where the person is looking.
func (b *browser) near(sel, re, what string) {
	b.t.Helper()
	b.waitJS(`(() => { const n = document.querySelector('`+sel+`'); if (!n || !new RegExp('`+re+`').test(n.textContent)) return false;
		const r = n.getBoundingClientRect(); return r.height > 0 && r.bottom > 0 && r.top < innerHeight && getComputedStyle(n).visibility !== 'hidden'; })()`, what+" shown in view")
}

// click clicks a selector.
// The element is first scrolled to the middle of the screen, as a person
// does, so the phone's bottom bar never covers it.
func (b *browser) click(sel string) {
	b.t.Helper()
	b.do(chromedp.WaitVisible(css(sel)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+sel+`').scrollIntoView({block: 'center'})`),
		chromedp.Click(css(sel)))
}

// confirm answers the confirmation dialog (yes or no).
func (b *browser) confirm(yes bool) {
	b.t.Helper()
	defer spent("confirm", time.Now())
	b.waitJS(`document.querySelector('dialog.confirm[open]')`, "the confirmation dialog")
	b.axeOn("dialogo-confirmacion", `document.querySelector('dialog.confirm[open]')`)
	v := "no"
	if yes {
		v = "ok"
	}
	b.click(`dialog.confirm[open] button[value=` + v + `]`)
	b.waitJS(`!document.querySelector('dialog.confirm[open]')`, "the dialog closed")
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
	defer spent("visit", time.Now())
	b.consoleErrors() // what the previous page logged is that page's
	b.do(chromedp.Navigate(b.k.URL + path))
	b.waitJS(`document.readyState === 'complete' && document.querySelector('#nav') && document.querySelector('#nav').children.length > 0`, "the header navigation")
}

// waitJS polls a JavaScript condition until it is truthy, or fails with
// what the page shows (see waitFailure); show adds expressions to print on
// failure (e.g. the outerHTML of the node waited for).
//
// The condition is evaluated from the test, every 50 ms, never by a poller
// inside the page: a page poller runs on the page's timers, which do not
// fire while the page's JavaScript is turned off (TestWithoutJavaScript),
// so it saw only the first, half-parsed state of the page and waited out
// its deadline (CI: "signed in, on the publish form with its services"). A
// condition that throws (what it reads is being redrawn) or is interrupted
// by a navigation (the page changed under it) is "not yet", never a failure.
func (b *browser) waitJS(expr, what string, show ...string) {
	b.t.Helper()
	defer spent("waitJS", time.Now())
	probe := `(() => { try { return !!(` + expr + `); } catch (e) { return false; } })()`
	start := time.Now()
	deadline := start.Add(waitLimit)
	var (
		err   error
		polls int
	)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		var ok bool
		ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool](probe))
		cancel()
		polls++
		if err == nil && ok {
			slowWait(b.t, what, start)
			return
		}
		if b.ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err == nil {
		err = fmt.Errorf("still false after %d polls in %s", polls, time.Since(start).Round(time.Millisecond))
	}
	b.t.Fatalf("waiting for %s: %v\n%s", what, err, b.waitFailure(show))
}

// waitLimit is how long waitJS waits for a condition: generous, since the
// machines that run the suite are busy (a condition met sooner returns
// sooner).
const waitLimit = 45 * time.Second

// waitFailure describes the page for a failed wait: where it stands, its
// loading state, requests in flight, scripts on or off, message lines, the
// start of the main text, the JavaScript and console errors, and each
// expression of show with its value.
func (b *browser) waitFailure(show []string) string {
	var w strings.Builder
	fmt.Fprintf(&w, "at %s (readyState %s, requests in flight %s, scripts %s)\n", b.location(),
		b.str(`document.readyState`), b.str(`window.__inflight`), map[bool]string{true: "off", false: "on"}[b.noScripts])
	fmt.Fprintf(&w, "alerts: %s\n", b.str(`JSON.stringify([...document.querySelectorAll('.alert, .field-error, [role=status]')].filter(n => n.textContent.trim()).map(n => '#' + n.id + ': ' + n.textContent.trim().slice(0, 200)))`))
	fmt.Fprintf(&w, "text: %q\n", b.str(`(document.querySelector('main') || document.body || {innerText: ''}).innerText.replace(/\s+/g, ' ').slice(0, 400)`))
	for _, x := range show {
		fmt.Fprintf(&w, "%s: %s\n", x, b.str(`(() => { try { return `+x+`; } catch (e) { return 'throws ' + e; } })()`))
	}
	b.mu.Lock()
	fmt.Fprintf(&w, "JS errors: %v\nconsole errors: %v", b.errs, b.console)
	b.mu.Unlock()
	return w.String()
}

// noJunk fails when the page shows a JavaScript placeholder as text.
func (b *browser) noJunk() {
	b.t.Helper()
	if junk := b.str(`(document.body.innerText.match(/.{0,40}(\b(undefined|null|NaN)\b|\[object Object\]).{0,40}/) || [''])[0]`); junk != "" {
		where := b.str(`(() => { const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); let n;
			while ((n = w.nextNode())) { if (/\b(undefined|null|NaN)\b|\[object Object\]/.test(n.textContent) && n.parentElement.offsetParent !== null) return n.parentElement.outerHTML.slice(0, 300); } return ''; })()`)
		b.t.Errorf("%s shows %q in %s", b.location(), junk, where)
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

// choose picks an option of a <select> from the keyboard, as a person does
// (typing the start of its text), and checks the value it took. A value set
// by script is no input: the layout shift of what the choice shows (a
// series' "Cuántas") would count as if the page had moved by itself.
func (b *browser) choose(sel, typed, want string) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('`+sel+`').scrollIntoView({block: 'center'})`),
		chromedp.SendKeys(css(sel), typed))
	b.waitJS(`document.querySelector('`+sel+`').value === '`+want+`'`, sel+" set to "+want+" from the keyboard")
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

// screenshotDir is where screenshots go ($E2E_SCREENSHOTS, outside git);
// "" when they are not asked for. They are for people to look at, not a
// check: encoding a full page costs the suite time on every state.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("E2E_SCREENSHOTS")
	if dir == "" {
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shoot saves a full-page screenshot of the current page at the current
// viewport ("<name>-phone.png" or "<name>-desktop.png") when
// $E2E_SCREENSHOTS names a directory.
func (b *browser) shoot(name string) {
	b.t.Helper()
	dir := screenshotDir(b.t)
	if dir == "" {
		return
	}
	label := "desktop"
	if b.w < 500 {
		label = "phone"
	}
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) > 0 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s.png", name, label)), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}
