package apitest_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"camellos/modules/whatsapp"
)

// Every template is listed in docs/whatsapp-templates.md in the form Meta
// reviews it (name, category, language, body, one example per parameter),
// exactly as the service sends it; and every body obeys Meta's rules: its
// parameters numbered 1..n in order, none at the start or the end, and no
// more than 1,024 characters.
func TestTemplatesDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../docs/whatsapp-templates.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	param := regexp.MustCompile(`\{\{(\d+)\}\}`)
	for _, tp := range whatsapp.Templates {
		t.Run(tp.Name, func(t *testing.T) {
			i := strings.Index(doc, "### `"+tp.Name+"`")
			if i < 0 {
				t.Fatalf("%s is not in the document", tp.Name)
			}
			section := doc[i:]
			if j := strings.Index(section[4:], "\n### "); j >= 0 {
				section = section[:j+4]
			}
			for _, want := range []string{"Category: **" + tp.Category + "**", "Language: **Spanish (`" + whatsapp.Language + "`)**",
				"```\n" + tp.Body + "\n```"} {
				if !strings.Contains(section, want) {
					t.Errorf("the section does not say %q", want)
				}
			}
			for n, ex := range tp.Example {
				if !strings.Contains(section, "| `{{"+strconv.Itoa(n+1)+"}}` | "+ex+" |") {
					t.Errorf("example of {{%d}} (%q) missing", n+1, ex)
				}
			}
			found := param.FindAllStringSubmatch(tp.Body, -1)
			if len(found) != tp.Params() {
				t.Fatalf("%d parameters in the body, %d examples", len(found), tp.Params())
			}
			for n, m := range found {
				if m[1] != strconv.Itoa(n+1) {
					t.Errorf("parameter %s where {{%d}} was due", m[0], n+1)
				}
			}
			if tp.Category != whatsapp.CategoryAuthentication {
				if strings.HasPrefix(tp.Body, "{{") || strings.HasSuffix(strings.TrimSpace(tp.Body), "}}") {
					t.Error("the body starts or ends with a parameter (Meta refuses it)")
				}
				if len(tp.Kinds) == 0 {
					t.Error("a notice template without a kind")
				}
			}
			if n := len([]rune(tp.Body)); n > 1024 {
				t.Errorf("body of %d characters", n)
			}
		})
	}
}
