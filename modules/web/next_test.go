package web_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSafeNextAllowsSameOriginPathsOnly runs the web front's safeNext (the
// ?next= target after sign-in and sign-up, pb_public/js/next.js) in node
// against open-redirect tricks: only same-origin paths pass, anything else
// falls back.
func TestSafeNextAllowsSameOriginPathsOnly(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: safeNext not exercised")
	}
	_, here, _, _ := runtime.Caller(0)
	appJS := filepath.Join(filepath.Dir(here), "..", "..", "pb_public", "js", "next.js")
	cases := map[string]string{
		"/":                        "/",
		"/trabajos.html":           "/trabajos.html",
		"/camello.html?id=abc#top": "/camello.html?id=abc#top",
		"/agenda.html?a=b/c":       "/agenda.html?a=b/c",
		"":                         "/fallback",
		"//evil.example/x":         "/fallback",
		`/\evil.example/x`:         "/fallback",
		`/\/evil.example/x`:        "/fallback",
		"/\t/evil.example/":        "/fallback",
		"/\n/evil.example/":        "/fallback",
		"/\r/evil.example/":        "/fallback",
		"/\x00x":                   "/fallback",
		"/%09/evil.example/":       "/%09/evil.example/", // stays a path on this origin
		"https://evil.example/":    "/fallback",
		"http:/evil.example":       "/fallback",
		"javascript:alert(1)":      "/fallback",
		" /x":                      "/fallback",
		"x/y":                      "/fallback",
		"/\u202e/x":                "/fallback",
		"/\u200b/x":                "/fallback",
	}
	raw, _ := json.Marshal(cases)
	script := `
const cases = JSON.parse(process.argv[1]);
const out = {};
const { safeNext } = await import(process.argv[2]);
for (const next of Object.keys(cases)) {
  globalThis.location = new URL('http://127.0.0.1:8090/ingresar.html?' + new URLSearchParams({ next }));
  const got = safeNext('/fallback');
  // What the browser would do with it: it must stay on this origin.
  const landed = new URL(got, 'http://127.0.0.1:8090/ingresar.html');
  out[next] = { got, origin: landed.origin };
}
console.log(JSON.stringify(out));
`
	cmd := exec.Command(node, "--input-type=module", "-e", script, string(raw), "file://"+appJS)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v %s", err, stdout)
	}
	var got map[string]struct {
		Got    string `json:"got"`
		Origin string `json:"origin"`
	}
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("node output %q: %v", stdout, err)
	}
	for next, want := range cases {
		g := got[next]
		if g.Got != want || g.Origin != "http://127.0.0.1:8090" {
			t.Errorf("safeNext(%q) = %q (lands on %s), want %q", next, g.Got, g.Origin, want)
		}
	}
}
