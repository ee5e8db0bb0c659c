package modules_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The record API and the query builder reach a collection without a SQL
// statement: TestOwnersOwnEveryWrite widens the one-owner rule to them.
// Per function it follows which collection a variable holds (a collection
// looked up by name, a record found in a collection or built from one, a
// record from an owner's Find/OfUser/Wrap), then reports:
//   - "new": core.NewRecord of another owner's collection;
//   - "save": Save / SaveNoValidate / Delete of another owner's record;
//   - "read": a query builder From / Join on another owner's table, or
//     RecordQuery of it (reads go through the owner's read functions);
//   - "sprintf": SQL text built with fmt.Sprintf (its table cannot be
//     checked, and its values are not bound).

// readsAllowed are the cross-owner query-builder reads still made, by
// "package table", each with why it stays. Keep it short.
var readsAllowed = map[string]string{
	// The data export lists the user's sessions; session has no read of them.
	"camellos/modules/auth sessions": "export: sessions of the user (issue 22: move to session)",
	// catalog imports camellos (bus: camellos sits below catalog), so the
	// camellos cannot call catalog's reads: service names for the search
	// text, the public index and the summaries are read by table.
	"camellos/modules/camellos services": "catalog sits above camellos in the import graph",
	// The verified badge and the review authors' names, in the listing's
	// and the reviews' queries (projections: the readmodel branch).
	"camellos/modules/camellos users": "badge and review authors joined in the projections' queries",
	// Authors of messages and blocks (name, role) in one query per page.
	"camellos/modules/messages users": "authors' name and role per page (issue 22: users.Names with roles)",
	// search sits below camellos and catalog (camellos imports search):
	// the vocabulary projection reads their tables.
	"camellos/modules/search camellos":   "search is imported by camellos: vocabulary projection",
	"camellos/modules/search categories": "search sits below catalog and camellos: vocabulary projection",
	"camellos/modules/search services":   "search sits below catalog and camellos: vocabulary projection",
	"camellos/modules/search reviews":    "search sits below camellos: the reviews' text projection",
	// The reminder sweep (branch perf's, issue 27) reads what a batch of
	// reminders shows and who gets them in one statement each.
	"camellos/modules/jobs appointments":               "reminder sweep: one statement per batch (issue 27)",
	"camellos/modules/jobs availability":               "reminder sweep: one statement per batch (issue 27)",
	"camellos/modules/jobs camellos":                   "reminder sweep: one statement per batch (issue 27)",
	"camellos/modules/notifications users":             "reminder recipients: one statement per batch (issue 27)",
	"camellos/modules/notifications whatsapp_contacts": "a user's channels: whatsapp sits above notifications",
}

// sprintfAllowed are the packages that may build SQL with fmt.Sprintf,
// each with why.
var sprintfAllowed = map[string]string{
	// The change counters' trigger DDL names each table of the schema (an
	// identifier, not a value: nothing to bind).
	"camellos/internal/readmodel": "trigger DDL per table of the schema",
	// Each connection's TEMP triggers copy a counter trigger's event and
	// name the process's row (DDL: a trigger body takes no bound values).
	"camellos/internal/dbwatch": "TEMP trigger DDL per counter trigger",
}

// writesAllowed are the packages that write other owners' collections with
// the record API, each with why.
var writesAllowed = map[string]string{
	// The demo data CLI (`seed`) builds a whole marketplace in a few
	// transactions, below the routes, on an empty database.
	"camellos/modules/seed": "fixture builder of the seed CLI",
	// The tests' fixture builder creates users, camellos and jobs directly.
	"camellos/internal/testkit": "test fixtures",
}

// collectionLookups return a collection by name (first argument).
var collectionLookups = map[string]bool{"FindCollectionByNameOrId": true, "FindCachedCollectionByNameOrId": true}

// recordLookups return a record (or records) of the collection named by
// their first argument.
var recordLookups = map[string]bool{
	"FindRecordById": true, "FindFirstRecordByData": true, "FindFirstRecordByFilter": true,
	"FindAuthRecordByEmail": true, "FindRecordByViewFile": true, "FindAuthRecordByToken": true,
}

// ownerConstructors return a typed record of their package's collection.
var ownerConstructors = map[string]bool{"Find": true, "OfUser": true, "Wrap": true, "FindJob": true}

var recordWrites = map[string]bool{"Save": true, "SaveNoValidate": true, "Delete": true,
	"SaveWithContext": true, "SaveNoValidateWithContext": true, "DeleteWithContext": true}

var builderReads = map[string]bool{"From": true, "InnerJoin": true, "LeftJoin": true, "RightJoin": true, "Join": true, "RecordQuery": true}

var sqlText = regexp.MustCompile(`(?i)\b(SELECT\b.*\bFROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b`)

// finding is one use of a collection found by recordUses.
type finding struct {
	pkg, kind, table, at string
}

// primaryCollection is the collection an owner package's constant
// Collection names ("" when it has none).
func primaryCollection(p *goPackage) string {
	if p == nil {
		return ""
	}
	return p.consts["Collection"]
}

// tableOf reads a table name out of a builder argument ("jobs j" → jobs).
func tableOf(s string) string {
	s = strings.TrimSpace(strings.Trim(s, "`\"{}"))
	if i := strings.IndexAny(s, " \t"); i > 0 {
		s = s[:i]
	}
	return strings.Trim(s, "`\"{}")
}

// recordUses lists the record-API writes, builder reads and Sprintf SQL of
// package p (other packages in byPath give constants and owners).
func recordUses(p *goPackage, byPath map[string]*goPackage) []finding {
	var out []finding
	for _, f := range p.files {
		imports := importsOf(f)
		at := p.names[f]
		evalArg := func(e ast.Expr) (string, bool) { return eval(e, p, imports, byPath) }
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			cols := map[string]string{} // variable → collection it names
			recs := map[string]string{} // variable → collection of its record
			// tableOfCall is the collection whose record(s) a call returns.
			tableOfCall := func(call *ast.CallExpr) (string, bool) {
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return "", false
				}
				if recordLookups[sel.Sel.Name] && len(call.Args) > 0 {
					return evalArg(call.Args[0])
				}
				if sel.Sel.Name == "NewRecord" && len(call.Args) == 1 {
					if id, ok := call.Args[0].(*ast.Ident); ok && cols[id.Name] != "" {
						return cols[id.Name], true
					}
				}
				if x, ok := sel.X.(*ast.Ident); ok && ownerConstructors[sel.Sel.Name] {
					if t := primaryCollection(byPath[imports[x.Name]]); t != "" {
						return t, true
					}
				}
				if ownerConstructors[sel.Sel.Name] {
					if _, isIdent := sel.X.(*ast.Ident); !isIdent {
						return "", false
					}
				}
				return "", false
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					if len(x.Rhs) != 1 {
						return true
					}
					call, ok := x.Rhs[0].(*ast.CallExpr)
					if !ok || len(x.Lhs) == 0 {
						return true
					}
					id, ok := x.Lhs[0].(*ast.Ident)
					if !ok {
						return true
					}
					// Unqualified owner constructors (Wrap, Find) inside the owner.
					if fid, ok := call.Fun.(*ast.Ident); ok && ownerConstructors[fid.Name] {
						if t := primaryCollection(p); t != "" {
							recs[id.Name] = t
						}
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if collectionLookups[sel.Sel.Name] && len(call.Args) > 0 {
						if t, ok := evalArg(call.Args[0]); ok {
							cols[id.Name] = t
						}
						return true
					}
					if t, ok := tableOfCall(call); ok {
						recs[id.Name] = t
					}
				case *ast.CallExpr:
					sel, ok := x.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					name := sel.Sel.Name
					switch {
					case name == "NewRecord" && len(x.Args) == 1:
						if id, ok := x.Args[0].(*ast.Ident); ok && cols[id.Name] != "" {
							out = append(out, finding{p.path, "new", cols[id.Name], at})
						}
					case recordWrites[name] && len(x.Args) >= 1:
						arg := x.Args[len(x.Args)-1]
						if id, ok := arg.(*ast.Ident); ok && recs[id.Name] != "" {
							out = append(out, finding{p.path, "save", recs[id.Name], at})
						} else if c, ok := arg.(*ast.CallExpr); ok {
							if t, ok := tableOfCall(c); ok {
								out = append(out, finding{p.path, "save", t, at})
							}
						}
					case builderReads[name] && len(x.Args) >= 1 && !isStdlib(sel.X, imports):
						if s, ok := evalArg(x.Args[0]); ok {
							out = append(out, finding{p.path, "read", tableOf(s), at})
						}
					case name == "Sprintf" && len(x.Args) >= 1:
						if pkgID, ok := sel.X.(*ast.Ident); ok && imports[pkgID.Name] == "fmt" {
							s, _ := evalArg(x.Args[0])
							if sqlText.MatchString(s) {
								out = append(out, finding{p.path, "sprintf", "", at})
							}
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// violations are the findings the ownership rule refuses.
func violations(fs []finding) []finding {
	var out []finding
	for _, f := range fs {
		if f.kind == "sprintf" {
			if sprintfAllowed[f.pkg] == "" {
				out = append(out, f)
			}
			continue
		}
		owner, ok := owners[f.table]
		if !ok || owner == f.pkg {
			continue
		}
		if f.kind == "read" && readsAllowed[f.pkg+" "+f.table] != "" {
			continue
		}
		if f.kind != "read" && writesAllowed[f.pkg] != "" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// TestOwnersOwnEveryWrite fails when a package creates, saves or deletes a
// record of a collection it does not own, reads another owner's table with
// the query builder, or builds SQL with fmt.Sprintf.
func TestOwnersOwnEveryWrite(t *testing.T) {
	pkgs := loadPackages(t, repoRoot(t), "modules", "internal")
	byPath := map[string]*goPackage{}
	for _, p := range pkgs {
		byPath[p.path] = p
	}
	var all []finding
	for _, p := range pkgs {
		all = append(all, recordUses(p, byPath)...)
	}
	sqlReads := findSQLReads(pkgs, nil)
	if len(sqlReads) < 50 {
		t.Fatalf("found only %d tables read by raw SQL: the scanner is broken", len(sqlReads))
	}
	all = append(all, sqlReads...)
	kinds := map[string]int{}
	for _, f := range all {
		kinds[f.kind]++
	}
	// The scanner must see the uses we know of (each owner's own).
	for _, k := range []string{"new", "save", "read"} {
		if kinds[k] < 5 {
			t.Fatalf("found only %d %q uses: the scanner is broken (%v)", kinds[k], k, kinds)
		}
	}
	seen := map[string]bool{}
	for _, f := range all {
		seen[f.kind+" "+f.pkg+" "+f.table] = true
	}
	for _, want := range []string{
		"new camellos/modules/camellos camellos", "save camellos/modules/users users",
		"new camellos/modules/jobs jobs", "read camellos/modules/users users",
	} {
		if !seen[want] {
			t.Errorf("scanner missed the known use %q", want)
		}
	}
	v := violations(all)
	sort.Slice(v, func(i, j int) bool { return v[i].at+v[i].table < v[j].at+v[j].table })
	for _, f := range v {
		if f.kind == "sprintf" {
			t.Errorf("%s: SQL built with fmt.Sprintf: bind the values, name the table with the owner's constant", f.at)
			continue
		}
		t.Errorf("%s: %s %s %q, owned by %s: call the owner's function", f.at, f.pkg, verb(f.kind), f.table, owners[f.table])
	}
	for key := range readsAllowed {
		parts := strings.SplitN(key, " ", 2)
		if !seen["read "+key] && len(parts) == 2 {
			t.Errorf("readsAllowed lists %q, which no longer happens: remove it", key)
		}
	}
}

func verb(kind string) string {
	switch kind {
	case "new":
		return "creates a record of"
	case "save":
		return "saves or deletes a record of"
	default:
		return "reads (query builder or raw SQL)"
	}
}

// TestOwnershipScannerSeesEachKind plants one violation of each kind in a
// synthetic package and checks the rule refuses exactly it (and accepts
// the owner doing the same).
func TestOwnershipScannerSeesEachKind(t *testing.T) {
	pkgs := loadPackages(t, repoRoot(t), "modules", "internal")
	cases := []struct {
		name, pkg, body, kind, table string
	}{
		{"new record of another owner", "camellos/modules/planted", `
	col, err := app.FindCachedCollectionByNameOrId(camellos.Collection)
	if err != nil { return err }
	rec := core.NewRecord(col)
	_ = rec
	return nil`, "new", "camellos"},
		{"save of another owner's record", "camellos/modules/planted", `
	rec, err := app.FindRecordById("jobs", "x")
	if err != nil { return err }
	rec.Set("status", "COMPLETADO")
	return app.Save(rec)`, "save", "jobs"},
		{"save of an owner's typed record", "camellos/modules/planted", `
	c, err := camellos.Find(app, "x")
	if err != nil { return err }
	return app.Save(c)`, "save", "camellos"},
		{"delete of another owner's record", "camellos/modules/planted", `
	rec, err := app.FindFirstRecordByData(users.Collection, "email", "a@b.co")
	if err != nil { return err }
	return app.Delete(rec)`, "save", "users"},
		{"builder From on another owner's table", "camellos/modules/planted", `
	var n int
	return app.DB().Select("COUNT(*)").From(camellos.Collection).Row(&n)`, "read", "camellos"},
		{"builder join on another owner's table", "camellos/modules/planted", `
	var n int
	return app.DB().Select("COUNT(*)").LeftJoin(users.Collection+" u", nil).Row(&n)`, "read", "users"},
		{"raw SELECT of another owner's table", "camellos/modules/planted", `
	var n int
	return app.DB().NewQuery("SELECT COUNT(*) FROM " + users.Collection + " WHERE role = 'CLIENTE'").Row(&n)`, "read", "users"},
		{"raw JOIN of another owner's table in a constant", "camellos/modules/planted", `
	const q = "SELECT 1 FROM planted p LEFT JOIN ` + "`camellos`" + ` c ON c.id = p.camello"
	return app.DB().NewQuery(q).Row(new(int))`, "read", "camellos"},
		{"SQL built with Sprintf", "camellos/modules/planted", `
	_, err := app.DB().NewQuery(fmt.Sprintf("UPDATE %s SET status = 'x' WHERE id = '%s'", "jobs", "1")).Execute()
	return err`, "sprintf", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := `package planted

import (
	"fmt"

	"camellos/modules/camellos"
	"camellos/modules/users"

	"github.com/pocketbase/pocketbase/core"
)

var _ = fmt.Sprint
var _ = camellos.Collection
var _ = users.Collection
var _ core.App

func planted(app core.App) error {` + c.body + `
}
`
			got := violations(scanSynthetic(t, pkgs, c.pkg, src))
			if len(got) != 1 || got[0].kind != c.kind || got[0].table != c.table {
				t.Fatalf("want one %q violation on %q, got %+v", c.kind, c.table, got)
			}
			// The owner doing the same is no violation (Sprintf is refused everywhere).
			if c.kind != "sprintf" {
				if owned := violations(scanSynthetic(t, pkgs, owners[c.table], src)); len(owned) != 0 {
					t.Fatalf("the owner %s was refused: %+v", owners[c.table], owned)
				}
			}
		})
	}
}

// scanSynthetic parses src as a file of package pkg (beside the real
// packages, for their constants) and returns its findings.
func scanSynthetic(t *testing.T, pkgs []*goPackage, pkg, src string) []finding {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*goPackage{}
	for _, p := range pkgs {
		byPath[p.path] = p
	}
	p := &goPackage{path: pkg, files: []*ast.File{f}, names: map[*ast.File]string{f: "planted.go"}, consts: map[string]string{}}
	if real := byPath[pkg]; real != nil {
		p.consts = real.consts // the owner's constants (Collection)
	}
	return append(recordUses(p, byPath), findSQLReads([]*goPackage{p}, byPath)...)
}

// isStdlib reports whether x names an imported standard package (strings.Join).
func isStdlib(x ast.Expr, imports map[string]string) bool {
	id, ok := x.(*ast.Ident)
	return ok && imports[id.Name] != "" && !strings.Contains(imports[id.Name], ".")
}

// transactionsAllowed are the packages that may open a transaction with
// RunInTransaction instead of internal/writer, each with why.
var transactionsAllowed = map[string]string{
	"camellos/internal/writer": "the writer itself",
	"camellos/modules/seed":    "the seed CLI, alone on its database, no routes",
	// Post and Reverse take the caller's transaction (txApp) and open a
	// savepoint in it, never a transaction of their own.
	"camellos/modules/ledger": "nested in the caller's transaction",
}

// TestEveryWriteGoesThroughTheWriter fails on a RunInTransaction outside
// the packages above: every route's write transaction is
// writer.Transaction (docs/architecture.md, "Ownership").
func TestEveryWriteGoesThroughTheWriter(t *testing.T) {
	pkgs := loadPackages(t, repoRoot(t), "modules", "internal")
	found := 0
	for _, p := range pkgs {
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "RunInTransaction" {
					return true
				}
				found++
				if transactionsAllowed[p.path] == "" {
					t.Errorf("%s: %s opens a transaction with RunInTransaction: use writer.Transaction", p.names[f], p.path)
				}
				return true
			})
		}
	}
	if found == 0 {
		t.Fatal("no RunInTransaction found at all: the scanner is broken")
	}
}
