// Package e2e holds the browser tests of the web front: Chromium, driven by
// chromedp, against the whole service booted by internal/testkit. They skip
// with a loud message when no Chromium is installed, and fail instead when
// the environment variable CI is set. Screenshots of the main pages at phone
// and desktop widths go to $E2E_SCREENSHOTS when it is set (e.g.
// E2E_SCREENSHOTS=screenshots: e2e/screenshots, which git ignores).
package e2e
