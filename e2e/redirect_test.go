package e2e_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"camellos/internal/testkit"
	"camellos/modules/users"

	"github.com/chromedp/chromedp"
)

// hostileNext are ?next= values an attacker would send to the sign-in page
// (issue 21): dot segments that leave "//host" behind once the URL parser
// has normalised the path, protocol-relative and backslash forms, schemes,
// control and format characters, user-info and IP hosts. Each must leave
// the browser on our origin.
var hostileNext = []string{
	"/.//evil.test/pwn", "/..//evil.test/pwn", "/x/../..//evil.test/pwn", "/./..//evil.test", "/%2e//evil.test",
	"/%2E%2E//evil.test", "/.%2e//evil.test", "/x/..//evil.test", "/x/%2e%2e//evil.test", "/a/b/../../..//evil.test",
	"//evil.test", "///evil.test", `/\evil.test`, `/\/evil.test`, `\/evil.test`,
	"https://evil.test", "http://evil.test/", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<script>alert(1)</script>",
	"/\t/evil.test", "/\n/evil.test", "/\r/evil.test", "/\u200b/evil.test", "/\u202e/evil.test",
	"//evil.test@127.0.0.1/", "/@evil.test", "/.@evil.test", "https:evil.test", "https:/evil.test",
	"/https://evil.test", `/..\evil.test`, "/.//evil.test:80/x", "/..//evil.test?x=1#y", "/x/../../..//evil.test",
	"/%2f%2fevil.test", "/%5c%5cevil.test", "/.//%65vil.test", "/..//127.0.0.1:1/", "/.//[::1]/",
	"/..///evil.test", "/.///evil.test", "/././/evil.test", "/x/./..//evil.test", "/..;/..//evil.test",
	" /.//evil.test", "/.//evil.test\x00", "/%00//evil.test", "/.%2F/evil.test", "",
}

// TestSignInRedirectStaysOnOrigin: the sign-in page's ?next= never takes the
// browser to another origin. The reproductions of the issue go through
// the real form; every variant goes through safeNext exactly as the page
// uses it after signing in (location.href = safeNext('/')), in Chromium.
func TestSignInRedirectStaysOnOrigin(t *testing.T) {
	t.Parallel()
	if len(hostileNext) != 50 {
		t.Fatalf("%d variants, want 50", len(hostileNext))
	}
	k := testkit.New(t)
	origin := k.URL + "/"
	u := k.CreateUser(users.RoleClient, testkit.UserOpts{Email: "redir" + testkit.Unique() + "@example.com"})
	// Two parts in parallel, each in a browser of its own: the real form
	// with three variants, then the 50 variants and the same-origin targets
	// through safeNext.
	part := func(name string, walk func(t *testing.T, b *browser, open func(string), landed func(string, string))) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, k)
			landed := func(next, how string) {
				t.Helper()
				b.waitJS(`!window.__fromSignIn && document.readyState === 'complete'`, "the page after "+how+" with next="+next)
				if loc := b.location(); !strings.HasPrefix(loc, origin) {
					t.Errorf("next=%q (%s) landed on %q, not on %s", next, how, loc, origin)
				}
			}
			open := func(next string) {
				t.Helper()
				b.visit("/ingresar.html?next=" + url.QueryEscape(next))
				b.do(chromedp.Evaluate[chromedp.Void](`window.__fromSignIn = true`))
			}
			walk(t, b, open, landed)
		})
	}
	part("formulario", func(t *testing.T, b *browser, open func(string), landed func(string, string)) {
		for _, next := range hostileNext[:3] {
			open(next)
			b.typeIn([][2]string{{"#email", u.Email()}, {"#password", testkit.DefaultPassword}})
			b.click(`#form button[type=submit]`)
			landed(next, "signing in")
		}
	})
	// safeNext is what the page runs after signing in (location.href =
	// safeNext('/')): each variant is put in the address of one loaded
	// sign-in page (history.replaceState, no reload) and the target is
	// resolved against that address exactly as the assignment to
	// location.href resolves it. A target that leaves the origin (another
	// host, or a javascript:/data: URL whose origin is "null") fails.
	part("safeNext", func(t *testing.T, b *browser, open func(string), landed func(string, string)) {
		resolve := func(next string) string {
			t.Helper()
			q, _ := json.Marshal(url.QueryEscape(next))
			ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
			defer cancel()
			got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`history.replaceState(null, '', '/ingresar.html?next=' + `+string(q)+`);
				import('/js/next.js').then((m) => new URL(m.safeNext('/'), location.href).href)`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("safeNext for next=%q: %v", next, err)
			}
			return got
		}
		open("/")
		for _, next := range hostileNext {
			if got := resolve(next); !strings.HasPrefix(got, origin) {
				t.Errorf("next=%q resolves to %q, not on %s", next, got, origin)
			}
		}
		// Same-origin targets keep their path, query and fragment; two of
		// them are then followed for real (signed in: those pages ask for
		// a session).
		b.signIn(u.Id)
		for next, want := range map[string]string{
			"/cuenta.html":                  "/cuenta.html",
			"/trabajos.html?estado=A#lista": "/trabajos.html?estado=A#lista",
			"/x/../cuenta.html":             "/cuenta.html",
			"/.//cuenta.html":               "/cuenta.html",
		} {
			if got := resolve(next); got != k.URL+want {
				t.Errorf("next=%q resolves to %q, want %q", next, got, k.URL+want)
			}
		}
		for _, next := range []string{"/.//cuenta.html", "/trabajos.html?estado=A#lista"} {
			want := resolve(next)
			open(next)
			b.do(chromedp.Evaluate[chromedp.Void](`import('/js/next.js').then((m) => { location.href = m.safeNext('/'); })`))
			landed(next, "safeNext")
			if loc := b.location(); loc != want {
				t.Errorf("next=%q landed on %q, want %q", next, loc, want)
			}
		}
	})
}
