package appointments_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// TestRawWritesSignalTheirChange: inside this package, every raw write of
// the table (an SQL string holding INSERT, UPDATE or DELETE, or a query
// builder Insert/Update/Delete) sits in update, which fires Changed, or is
// the reminder claim (claimListed: reminderSentAt changes no slot). A new raw
// write elsewhere here would forget its event (issue 22, leak 1).
func TestRawWritesSignalTheirChange(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sqlWrite := regexp.MustCompile(`(?i)^\s*(insert|update|delete)\b`)
	builderWrite := map[string]bool{"Insert": true, "Update": true, "Delete": true, "Upsert": true}
	allowed := map[string]bool{"update": true, "claimListed": true}
	found := map[string]int{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			name := ""
			switch d := decl.(type) {
			case *ast.FuncDecl:
				name = d.Name.Name
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if v, ok := spec.(*ast.ValueSpec); ok && len(v.Names) > 0 {
						name = v.Names[0].Name
					}
				}
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BasicLit:
					if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && sqlWrite.MatchString(s) {
						found[name]++
						if !allowed[name] {
							t.Errorf("%s: %s writes the table with %q without update's event", fset.Position(x.Pos()), name, s)
						}
					}
				case *ast.SelectorExpr:
					if builderWrite[x.Sel.Name] {
						if id, ok := x.X.(*ast.CallExpr); ok {
							if sel, ok := id.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "DB" {
								t.Errorf("%s: %s writes with the query builder (%s) without update's event", fset.Position(x.Pos()), name, x.Sel.Name)
							}
						}
					}
				}
				return true
			})
		}
	}
	// positive control: the two allowed writes are seen
	if found["update"] != 1 || found["claimListed"] != 1 {
		t.Fatalf("raw writes seen: %v (want update and claimListed once each)", found)
	}
}
