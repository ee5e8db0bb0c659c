package modules_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// owners maps every collection to the one package that owns it: declares
// its name, states, record hooks and every write. A new collection (a new
// migration) adds its line here, next to the package that owns it.
var owners = map[string]string{
	"users":                    "camellos/modules/users",
	"account_tokens":           "camellos/modules/auth",
	"mail_outbox":              "camellos/modules/mail",
	"sessions":                 "camellos/internal/session",
	"categories":               "camellos/modules/catalog",
	"services":                 "camellos/modules/catalog",
	"camellos":                 "camellos/modules/camellos",
	"jobs":                     "camellos/modules/jobs",
	"reviews":                  "camellos/modules/camellos",
	"client_reviews":           "camellos/modules/camellos",
	"appointments":             "camellos/modules/appointments",
	"availability":             "camellos/modules/agenda",
	"calendar_feeds":           "camellos/modules/agenda",
	"quotes":                   "camellos/modules/quotes",
	"messages":                 "camellos/modules/messages",
	"conversation_blocks":      "camellos/modules/messages",
	"notifications":            "camellos/modules/notifications",
	"notification_preferences": "camellos/modules/notifications",
	"push_subscriptions":       "camellos/modules/notifications",
	"push_outbox":              "camellos/modules/notifications",
	"app_kv":                   "camellos/modules/notifications",
	"legal_documents":          "camellos/modules/legal",
	"legal_document_versions":  "camellos/modules/legal",
	"legal_acceptances":        "camellos/modules/legal",
	"ledger_transactions":      "camellos/modules/ledger",
	"ledger_entries":           "camellos/modules/ledger",
	"payments":                 "camellos/modules/payments",
	"camello_policies":         "camellos/modules/payments",
	"payouts":                  "camellos/modules/payments",
	"file_quarantine":          "camellos/modules/files",
	"whatsapp_contacts":        "camellos/modules/whatsapp",
	"whatsapp_outbox":          "camellos/modules/whatsapp",
	"places":                   "camellos/modules/places",
}

// alsoDeclaredBy lists the packages that still declare a collection name
// they do not own, each with the issue that removes it. Keep it empty.
var alsoDeclaredBy = map[string]string{}

// sqlWrite finds the table of a raw INSERT / UPDATE / DELETE statement.
var sqlWrite = regexp.MustCompile(`\b(?:INSERT(?:\s+OR\s+[A-Z]+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+[\x60"']?([A-Za-z_][A-Za-z0-9_]*)`)

// builderWrites are the dbx query-builder methods whose first argument is
// the table written.
var builderWrites = map[string]bool{"Insert": true, "Update": true, "Delete": true, "Upsert": true}

type goPackage struct {
	path   string
	files  []*ast.File
	names  map[*ast.File]string // file paths relative to the repository
	consts map[string]string    // string constants, evaluated
}

type write struct {
	pkg, table, at string
}

// TestOneOwnerPerCollection fails when a package other than a table's
// owner writes it with raw SQL (a statement string or a dbx builder call),
// when a collection of the schema has no owner, or when a package declares
// a collection name it does not own.
func TestOneOwnerPerCollection(t *testing.T) {
	root := repoRoot(t)
	for _, name := range schemaCollections(t, root) {
		if owners[name] == "" {
			t.Errorf("collection %q has no owner: add it to owners in modules/ownership_test.go", name)
		}
	}
	pkgs := loadPackages(t, root, "modules", "internal")
	writes := findWrites(pkgs)
	if len(writes) < 10 {
		t.Fatalf("found only %d raw writes: the scanner is broken", len(writes))
	}
	seen := map[string]bool{}
	for _, w := range writes {
		seen[w.pkg+" "+w.table] = true
		owner, ok := owners[w.table]
		if !ok {
			continue // not a collection (e.g. a SQLite table of PocketBase)
		}
		if w.pkg != owner {
			t.Errorf("%s: %s writes %q, owned by %s: call the owner's function", w.at, w.pkg, w.table, owner)
		}
	}
	// The scanner must see the fast paths we know of.
	for _, want := range []string{
		"camellos/modules/jobs jobs", "camellos/modules/notifications notifications",
		"camellos/internal/session sessions", "camellos/modules/camellos camellos",
	} {
		if !seen[want] {
			t.Errorf("scanner missed the known write %q", want)
		}
	}
	// Collection names are declared by their owner only.
	for _, p := range pkgs {
		for name, v := range p.consts {
			owner, ok := owners[v]
			if !ok || owner == p.path || alsoDeclaredBy[v] == p.path || !isCollectionConst(name) {
				continue
			}
			t.Errorf("%s declares the collection name %q (%s), owned by %s", p.path, v, name, owner)
		}
	}
}

// isCollectionConst tells a constant naming a collection from one that
// happens to share its text (a JSON key, a field name).
func isCollectionConst(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "collection") || strings.HasPrefix(n, "col") || strings.HasPrefix(n, "table")
}

func repoRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd) // this file lives in modules/
}

// schemaCollections are the collections the migrations create, plus
// PocketBase's users.
func schemaCollections(t *testing.T, root string) []string {
	re := regexp.MustCompile(`New(?:Base|Auth|View)Collection\("([a-z_]+)"`)
	files, _ := filepath.Glob(filepath.Join(root, "pb_migrations", "*.go"))
	names := map[string]bool{"users": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(raw), -1) {
			names[m[1]] = true
		}
	}
	if len(names) < 10 {
		t.Fatalf("found only %d collections in pb_migrations", len(names))
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// loadPackages parses the non-test Go files under dirs, one package per
// directory, and evaluates their string constants (across packages).
func loadPackages(t *testing.T, root string, dirs ...string) []*goPackage {
	fset := token.NewFileSet()
	byPath := map[string]*goPackage{}
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, de os.DirEntry, err error) error {
			if err != nil || de.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			ip := "camellos/" + filepath.ToSlash(rel)
			p := byPath[ip]
			if p == nil {
				p = &goPackage{path: ip, names: map[*ast.File]string{}, consts: map[string]string{}}
				byPath[ip] = p
			}
			p.files = append(p.files, f)
			p.names[f], _ = filepath.Rel(root, path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Constants may use constants of other packages: evaluate to a fixpoint.
	for changed := true; changed; {
		changed = false
		for _, p := range byPath {
			for _, f := range p.files {
				imports := importsOf(f)
				for _, decl := range f.Decls {
					g, ok := decl.(*ast.GenDecl)
					if !ok || g.Tok != token.CONST {
						continue
					}
					for _, spec := range g.Specs {
						vs := spec.(*ast.ValueSpec)
						for i, name := range vs.Names {
							if i >= len(vs.Values) {
								continue
							}
							if _, done := p.consts[name.Name]; done {
								continue
							}
							if v, ok := eval(vs.Values[i], p, imports, byPath); ok {
								p.consts[name.Name] = v
								changed = true
							}
						}
					}
				}
			}
		}
	}
	out := make([]*goPackage, 0, len(byPath))
	for _, p := range byPath {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func importsOf(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = path
	}
	return m
}

// eval evaluates a string expression made of literals, constants and +;
// ok is false when a part is not a known constant.
func eval(e ast.Expr, p *goPackage, imports map[string]string, byPath map[string]*goPackage) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.ParenExpr:
		return eval(x.X, p, imports, byPath)
	case *ast.Ident:
		v, ok := p.consts[x.Name]
		return v, ok
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		q := byPath[imports[id.Name]]
		if q == nil {
			return "", false
		}
		v, ok := q.consts[x.Sel.Name]
		return v, ok
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := eval(x.X, p, imports, byPath)
		b, ok2 := eval(x.Y, p, imports, byPath)
		if !ok1 {
			a = " ? "
		}
		if !ok2 {
			b = " ? "
		}
		return a + b, ok1 && ok2
	}
	return "", false
}

// findWrites lists the raw writes of every package: SQL statements in
// string expressions (unknown parts read as "?") and dbx builder calls.
func findWrites(pkgs []*goPackage) []write {
	var out []write
	walkSQL(pkgs, nil, func(p *goPackage, file, s string) {
		for _, m := range sqlWrite.FindAllStringSubmatch(s, -1) {
			out = append(out, write{pkg: p.path, table: m[1], at: file})
		}
	}, func(p *goPackage, file string, call *ast.CallExpr, eval func(ast.Expr) (string, bool)) {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !builderWrites[sel.Sel.Name] || len(call.Args) < 2 {
			return
		}
		if table, ok := eval(call.Args[0]); ok {
			out = append(out, write{pkg: p.path, table: table, at: file})
		}
	})
	return out
}

// walkSQL hands every maximal string expression of pkgs to str, evaluated
// (unknown parts read as "?"; its parts are not handed again), and every
// call to call (nil: none). Constants of other packages come from byPath
// (nil: pkgs).
func walkSQL(pkgs []*goPackage, byPath map[string]*goPackage, str func(p *goPackage, file, s string),
	call func(p *goPackage, file string, c *ast.CallExpr, eval func(ast.Expr) (string, bool))) {
	if byPath == nil {
		byPath = map[string]*goPackage{}
		for _, p := range pkgs {
			byPath[p.path] = p
		}
	}
	for _, p := range pkgs {
		for _, f := range p.files {
			imports := importsOf(f)
			ev := func(e ast.Expr) (string, bool) { return eval(e, p, imports, byPath) }
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BinaryExpr, *ast.BasicLit:
					s, _ := ev(x.(ast.Expr))
					str(p, p.names[f], s)
					return false
				case *ast.CallExpr:
					if call != nil {
						call(p, p.names[f], x, ev)
					}
				}
				return true
			})
		}
	}
}

// sqlRead finds the tables a raw SELECT reads: its FROM and JOIN clauses
// (a subquery's FROM "(" names none; its own FROM is found in turn).
var sqlRead = regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+[\x60"']?([A-Za-z_][A-Za-z0-9_]*)`)

// findSQLReads lists the tables read by the raw SQL text of every package
// (a string expression holding a SELECT: a query's text, a constant, a
// fragment), as "read" findings: a raw read of another owner's table is
// refused as a query-builder read is (TestOwnersOwnEveryWrite).
// Constants of other packages come from byPath (nil: pkgs).
func findSQLReads(pkgs []*goPackage, byPath map[string]*goPackage) []finding {
	var out []finding
	walkSQL(pkgs, byPath, func(p *goPackage, file, s string) {
		if !strings.Contains(strings.ToUpper(s), "SELECT") {
			return
		}
		for _, m := range sqlRead.FindAllStringSubmatch(s, -1) {
			out = append(out, finding{p.path, "read", m[1], file})
		}
	}, nil)
	return out
}
