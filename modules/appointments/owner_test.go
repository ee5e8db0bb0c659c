package appointments_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOnlyTheOwnerWritesAppointments: no other package of modules/ issues
// INSERT, UPDATE or DELETE against the appointments table, nor saves or
// deletes an appointments record itself; they call this package.
func TestOnlyTheOwnerWritesAppointments(t *testing.T) {
	rawWrite := regexp.MustCompile(`(?is)(insert\s+into|update|delete\s+from)\s*("\s*\+\s*)?(appointments\.Collection\b|appointments\b)`)
	recordWrite := regexp.MustCompile(`(?s)NewRecord\([^)]*\)|FindCachedCollectionByNameOrId\((appointments\.Collection|"appointments")\)`)
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(filepath.ToSlash(f), "../appointments/") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(raw)
		checked++
		if m := rawWrite.FindString(src); m != "" {
			t.Errorf("%s writes the appointments table: %q", f, m)
		}
		if strings.Contains(src, `"appointments"`) || strings.Contains(src, "appointments.Collection") {
			for _, m := range recordWrite.FindAllString(src, -1) {
				if strings.Contains(m, "appointments") {
					t.Errorf("%s builds appointments records: %q", f, m)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d files checked", checked)
	}
}
