package modules_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"camellos/internal/testkit"
)

// recordKeyMethods are the string-keyed accessors of *core.Record.
var recordKeyMethods = map[string]bool{
	"Get": true, "GetRaw": true, "GetString": true, "GetBool": true, "GetInt": true, "GetFloat": true,
	"GetDateTime": true, "GetStringSlice": true, "GetGeoPoint": true, "GetUploadedFiles": true,
	"GetUnsavedFiles": true, "Set": true, "SetRaw": true, "UnmarshalJSONField": true,
}

// keyBudget is, per owner package, how many string-keyed record accesses
// with a literal key (record.GetString("city"), record.Set("status", …))
// its production code may still make, on its own records. The owner's
// field constants and typed accessors replace them; the numbers only go
// down. A package may use string keys only on records of the collections
// it owns (TestStringKeyedRecordAccessOnlyByTheOwner).
var keyBudget = map[string]int{
	"camellos/internal/session":      8,
	"camellos/modules/agenda":        37,
	"camellos/modules/appointments":  26,
	"camellos/modules/auth":          4,
	"camellos/modules/camellos":      96,
	"camellos/modules/catalog":       23,
	"camellos/modules/files":         6,
	"camellos/modules/jobs":          85,
	"camellos/modules/legal":         31,
	"camellos/modules/mail":          11,
	"camellos/modules/messages":      42,
	"camellos/modules/notifications": 40,
	"camellos/modules/payments":      42,
	"camellos/modules/quotes":        28,
	"camellos/modules/users":         14,
	"camellos/modules/whatsapp":      23,
	"camellos/modules/ledger":        0,
	"camellos/modules/seed":          13,
	"camellos/internal/testkit":      0,
}

// keyExceptions are the packages that may use string keys on records of
// collections they do not own, each with why. Keep it short.
var keyExceptions = map[string]string{
	// The demo-data CLI builds a whole marketplace on an empty database,
	// below the owners' commands (which check sessions, quotas and
	// transitions a fixture has no use for).
	"camellos/modules/seed": "fixture builder of the seed CLI",
	// The tests' fixture builder creates users, camellos and jobs in any
	// state a test needs, below the owners' commands.
	"camellos/internal/testkit": "test fixtures",
}

// keyUse is one call of a string-keyed accessor of *core.Record.
type keyUse struct {
	pkg, at, method string
	key             string // the key's constant value ("" when not constant)
	constant        bool   // the key is a constant expression
	literal         bool   // the key is a string literal
	origin          string // the owner package the record comes from ("" unknown)
	typed           string // the typed record the call goes through ("pkg.Type"), if any
}

// typedRecord is a type of an owner package embedding core.BaseRecordProxy
// or *core.Record.
type typedRecord struct {
	pkg, name string
}

// scan holds the type-checker's view of our packages.
type scan struct {
	fset    *token.FileSet
	imp     types.Importer
	exports map[string]string
	ours    map[string][2]string // import path → dir, files
}

var (
	scanOnce   sync.Once
	scanShared *scan
	scanErr    error
)

func loadScan(t *testing.T, root string) *scan {
	t.Helper()
	scanOnce.Do(func() {
		cmd := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}}\t{{.Export}}\t{{.Dir}}\t{{join .GoFiles \",\"}}", "./modules/...", "./internal/...")
		cmd.Dir = root
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			scanErr = fmt.Errorf("go list: %v", err)
			return
		}
		s := &scan{fset: token.NewFileSet(), exports: map[string]string{}, ours: map[string][2]string{}}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			parts := strings.Split(sc.Text(), "\t")
			if len(parts) < 4 {
				continue
			}
			s.exports[parts[0]] = parts[1]
			if strings.HasPrefix(parts[0], "camellos/modules") || strings.HasPrefix(parts[0], "camellos/internal") {
				s.ours[parts[0]] = [2]string{parts[2], parts[3]}
			}
		}
		s.imp = importer.ForCompiler(s.fset, "gc", func(path string) (io.ReadCloser, error) {
			f := s.exports[path]
			if f == "" {
				return nil, fmt.Errorf("no export data for %s", path)
			}
			return os.Open(f)
		})
		scanShared = s
	})
	if scanErr != nil {
		t.Fatal(scanErr)
	}
	return scanShared
}

// ownedBy is the set of packages that own a collection.
func ownedBy() map[string][]string {
	out := map[string][]string{}
	for col, p := range owners {
		out[p] = append(out[p], col)
	}
	return out
}

// isOurs reports whether path is a package of this repository.
func isOurs(path string) bool {
	return strings.HasPrefix(path, "camellos/modules") || strings.HasPrefix(path, "camellos/internal")
}

// check type-checks the files of package path and returns its string-keyed
// accesses and typed records.
func (s *scan) check(t *testing.T, path string, files []*ast.File) ([]keyUse, []typedRecord) {
	uses, typed, _ := s.checkAll(t, path, files)
	return uses, typed
}

// fieldConst is an exported string constant whose name says it is a
// field name (FieldStatus, PayoutFieldAmount).
type fieldConst struct {
	pkg, name, value string
}

// checkAll is check, with the package's field-name constants.
func (s *scan) checkAll(t *testing.T, path string, files []*ast.File) ([]keyUse, []typedRecord, []fieldConst) {
	t.Helper()
	info := &types.Info{
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
	}
	conf := types.Config{Importer: s.imp, Error: func(error) {}}
	pkg, err := conf.Check(path, s.fset, files, info)
	if err != nil {
		t.Fatalf("type-checking %s: %v", path, err)
	}
	owning := ownedBy()
	ownerPkg := func(p *types.Package) string {
		if p == nil || p.Path() == path || len(owning[p.Path()]) == 0 {
			return ""
		}
		return p.Path()
	}
	// origins: variable → owner package its record came from.
	origins := map[types.Object]string{}
	var originOf func(e ast.Expr) string
	originOf = func(e ast.Expr) string {
		switch x := e.(type) {
		case *ast.ParenExpr:
			return originOf(x.X)
		case *ast.StarExpr:
			return originOf(x.X)
		case *ast.UnaryExpr:
			return originOf(x.X)
		case *ast.IndexExpr:
			return originOf(x.X)
		case *ast.Ident:
			if o := info.Uses[x]; o != nil {
				return origins[o]
			}
		case *ast.SelectorExpr:
			if sel := info.Selections[x]; sel != nil {
				if sel.Kind() == types.FieldVal {
					if named := namedOf(sel.Recv()); named != nil {
						if o := ownerPkg(named.Obj().Pkg()); o != "" {
							return o // a field of another owner's type
						}
					}
					return originOf(x.X)
				}
				if sel.Kind() == types.MethodVal {
					return ""
				}
			}
		case *ast.CallExpr:
			var fn types.Object
			switch f := x.Fun.(type) {
			case *ast.Ident:
				fn = info.Uses[f]
			case *ast.SelectorExpr:
				fn = info.Uses[f.Sel]
				if recordLookups[f.Sel.Name] && len(x.Args) > 0 {
					if tv, ok := info.Types[x.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
						if o := owners[constant.StringVal(tv.Value)]; o != "" {
							if o == path {
								return "" // a record of the package's own collection
							}
							return o
						}
					}
				}
			}
			if f, ok := x.Fun.(*ast.SelectorExpr); ok {
				if sel := info.Selections[f]; sel != nil && sel.Kind() == types.MethodVal && holdsRecord(info.TypeOf(x)) && holdsRecord(info.TypeOf(f.X)) {
					if o := originOf(f.X); o != "" {
						return o // c.ProxyRecord(), rec.Original(), rec.Fresh()…
					}
				}
			}
			if fn != nil && isOurs(pkgPath(fn.Pkg())) {
				if o := ownerPkg(fn.Pkg()); o != "" && holdsRecord(info.TypeOf(x)) {
					return o
				}
			}
		}
		// The static type: another owner's typed record.
		if named := namedOf(info.TypeOf(e)); named != nil && isTypedRecord(named) {
			return ownerPkg(named.Obj().Pkg())
		}
		return ""
	}
	assign := func(lhs []ast.Expr, rhs []ast.Expr) {
		for i, l := range lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				continue
			}
			obj := info.Defs[id]
			if obj == nil {
				obj = info.Uses[id]
			}
			if obj == nil || !holdsRecord(obj.Type()) {
				continue
			}
			var r ast.Expr
			switch {
			case len(rhs) == len(lhs):
				r = rhs[i]
			case len(rhs) == 1:
				r = rhs[0]
			default:
				continue
			}
			if o := originOf(r); o != "" {
				origins[obj] = o
			}
		}
	}
	// Two passes: a variable assigned from another may come before it.
	for pass := 0; pass < 2; pass++ {
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					assign(x.Lhs, x.Rhs)
				case *ast.ValueSpec:
					lhs := make([]ast.Expr, len(x.Names))
					for i, n := range x.Names {
						lhs[i] = n
					}
					assign(lhs, x.Values)
				case *ast.RangeStmt:
					if x.Value != nil {
						assign([]ast.Expr{x.Value}, []ast.Expr{x.X})
					}
				}
				return true
			})
		}
	}
	var uses []keyUse
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !recordKeyMethods[sel.Sel.Name] {
				return true
			}
			chosen := info.Selections[sel]
			if chosen == nil || !isCoreRecord(chosen.Obj()) {
				return true
			}
			u := keyUse{pkg: path, at: s.relPos(call.Pos()), method: sel.Sel.Name}
			if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				u.key, u.constant = constant.StringVal(tv.Value), true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				u.literal = true
			}
			if named := namedOf(info.TypeOf(sel.X)); named != nil && isTypedRecord(named) {
				u.typed = pkgPath(named.Obj().Pkg()) + "." + named.Obj().Name()
			}
			u.origin = originOf(sel.X)
			uses = append(uses, u)
			return true
		})
	}
	recordCalls(path, files, info)
	var typed []typedRecord
	var consts []fieldConst
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok && c.Exported() && strings.Contains(name, "Field") &&
			c.Val().Kind() == constant.String {
			consts = append(consts, fieldConst{path, name, constant.StringVal(c.Val())})
		}
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		if named, ok := tn.Type().(*types.Named); ok && isTypedRecord(named) {
			typed = append(typed, typedRecord{path, name})
		}
	}
	return uses, typed, consts
}

// relPos is p as a path relative to the repository and a line.
func (s *scan) relPos(p token.Pos) string {
	pos := s.fset.Position(p)
	if i := strings.Index(pos.Filename, "/modules/"); i >= 0 {
		return fmt.Sprintf("%s:%d", pos.Filename[i+1:], pos.Line)
	}
	if i := strings.Index(pos.Filename, "/internal/"); i >= 0 {
		return fmt.Sprintf("%s:%d", pos.Filename[i+1:], pos.Line)
	}
	return fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
}

func pkgPath(p *types.Package) string {
	if p == nil {
		return ""
	}
	return p.Path()
}

// namedOf is the named type of t (through one pointer, a slice or a map).
func namedOf(t types.Type) *types.Named {
	for i := 0; i < 3 && t != nil; i++ {
		switch x := t.(type) {
		case *types.Named:
			return x
		case *types.Pointer:
			t = x.Elem()
		case *types.Slice:
			t = x.Elem()
		case *types.Alias:
			t = types.Unalias(x)
		default:
			return nil
		}
	}
	return nil
}

// holdsRecord reports whether t is a record, a typed record or a slice of
// them.
func holdsRecord(t types.Type) bool {
	if tup, ok := t.(*types.Tuple); ok {
		for i := 0; i < tup.Len(); i++ {
			if holdsRecord(tup.At(i).Type()) {
				return true
			}
		}
		return false
	}
	named := namedOf(t)
	if named == nil {
		return false
	}
	if named.Obj().Name() == "Record" && pkgPath(named.Obj().Pkg()) == "github.com/pocketbase/pocketbase/core" {
		return true
	}
	return isTypedRecord(named)
}

// isTypedRecord reports whether named is a struct of our packages that
// embeds core.BaseRecordProxy or *core.Record.
func isTypedRecord(named *types.Named) bool {
	if !isOurs(pkgPath(named.Obj().Pkg())) {
		return false
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		if n := namedOf(f.Type()); n != nil && pkgPath(n.Obj().Pkg()) == "github.com/pocketbase/pocketbase/core" &&
			(n.Obj().Name() == "BaseRecordProxy" || n.Obj().Name() == "Record") {
			return true
		}
		if n := namedOf(f.Type()); n != nil && n != named && isTypedRecord(n) {
			return true // a typed record embedding another (camellos.ClientReview)
		}
	}
	return false
}

// scanAll type-checks every package of modules/ and internal/ (cached).
func scanAll(t *testing.T) ([]keyUse, []typedRecord) {
	t.Helper()
	allOnce.Do(func() {
		s := loadScan(t, repoRoot(t))
		paths := make([]string, 0, len(s.ours))
		for p := range s.ours {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, path := range paths {
			pf := s.ours[path]
			if pf[1] == "" {
				continue
			}
			var files []*ast.File
			for _, name := range strings.Split(pf[1], ",") {
				f, err := parser.ParseFile(s.fset, filepath.Join(pf[0], name), nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
			u, tr, fc := s.checkAll(t, path, files)
			allUses = append(allUses, u...)
			allTyped = append(allTyped, tr...)
			allConsts = append(allConsts, fc...)
		}
	})
	return allUses, allTyped
}

var (
	allOnce   sync.Once
	allUses   []keyUse
	allTyped  []typedRecord
	allConsts []fieldConst
)

// isCoreRecord reports whether obj is a method declared on core.Record.
func isCoreRecord(obj types.Object) bool {
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Name() == "Record" && named.Obj().Pkg() != nil &&
		named.Obj().Pkg().Path() == "github.com/pocketbase/pocketbase/core"
}

// schemaOf is every collection's fields and their types, as the
// migrations build them.
func schemaOf(t *testing.T) map[string]map[string]string {
	t.Helper()
	schemaOnce.Do(func() {
		k := testkit.New(t)
		cols, err := k.App.FindAllCollections()
		if err != nil {
			t.Fatal(err)
		}
		schema = map[string]map[string]string{}
		for _, c := range cols {
			fs := map[string]string{}
			for _, f := range c.Fields {
				fs[f.GetName()] = f.Type()
			}
			schema[c.Name] = fs
		}
	})
	if schema == nil {
		t.Fatal("no schema")
	}
	return schema
}

var (
	schemaOnce sync.Once
	schema     map[string]map[string]string
)

// keyRefusal says why use u breaks the ownership of record fields ("" when
// it does not).
func keyRefusal(u keyUse, schema map[string]map[string]string) string {
	if keyExceptions[u.pkg] != "" {
		return ""
	}
	own := ownedBy()[u.pkg]
	if u.origin != "" && u.origin != u.pkg {
		return fmt.Sprintf("%s(%q) on a record of %s: call its typed accessors or commands", u.method, u.key, u.origin)
	}
	if len(own) == 0 {
		return fmt.Sprintf("%s(%q): %s owns no collection: call the owner's typed accessors or commands", u.method, u.key, u.pkg)
	}
	if !u.constant {
		return "" // generic code of an owner over its own records
	}
	for _, c := range own {
		if _, ok := schema[c][u.key]; ok {
			return ""
		}
	}
	return fmt.Sprintf("%s(%q): no collection of %s has that field: it is another owner's (call its typed accessors)", u.method, u.key, u.pkg)
}

// TestStringKeyedRecordAccessOnlyByTheOwner refuses a string-keyed record
// access (record.GetString(key), record.Set(key, …)) outside the package
// that owns the record's collection: the record comes from another owner
// (its typed record, a field of its types, its functions, or a lookup of
// its collection by name), or the key names no field of the package's own
// collections. `go test ./modules -run TestStringKeyedRecordAccess -v`
// prints the counts.
func TestStringKeyedRecordAccessOnlyByTheOwner(t *testing.T) {
	uses, _ := scanAll(t)
	schema := schemaOf(t)
	if len(uses) < 100 {
		t.Fatalf("found only %d string-keyed accesses: the scanner is broken", len(uses))
	}
	for _, u := range uses {
		if why := keyRefusal(u, schema); why != "" {
			t.Errorf("%s: %s", u.at, why)
		}
	}
	for p, why := range keyExceptions {
		if why == "" {
			t.Errorf("%s: an exception needs its reason", p)
		}
	}
}

// TestStringKeyedRecordAccess holds every owner to its budget of literal
// keys (the field constants and typed accessors replace them) and prints
// the total.
func TestStringKeyedRecordAccess(t *testing.T) {
	uses, _ := scanAll(t)
	counts := map[string]int{}
	total := 0
	for _, u := range uses {
		if u.literal {
			counts[u.pkg]++
			total++
		}
	}
	paths := make([]string, 0, len(counts))
	for p := range counts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		n := counts[p]
		t.Logf("%-40s %4d", p, n)
		budget, listed := keyBudget[p]
		switch {
		case !listed:
			t.Errorf("%s: %d string-keyed accesses with a literal key and no budget in keyBudget: use the field constants", p, n)
		case n > budget:
			t.Errorf("%s: %d string-keyed accesses with a literal key, over its budget of %d: use the field constants", p, n, budget)
		case n < budget:
			t.Logf("%s: %d, under its budget of %d: lower keyBudget", p, n, budget)
		}
	}
	t.Logf("total string-keyed record accesses with a literal key outside tests: %d", total)
}

// TestStringKeyedScannerSeesEachKind plants one string-keyed access of
// each refused kind and checks the rule refuses exactly it, and accepts
// the owner doing the same.
func TestStringKeyedScannerSeesEachKind(t *testing.T) {
	s := loadScan(t, repoRoot(t))
	schema := schemaOf(t)
	cases := []struct {
		name, pkg, owner, body string
	}{
		{"another owner's typed record", "camellos/modules/jobs", "camellos/modules/camellos", `
	c, err := camellos.Find(app, "x")
	if err != nil { return "" }
	return c.GetString("status")`},
		{"a lookup of another owner's collection", "camellos/modules/jobs", "camellos/modules/camellos", `
	rec, err := app.FindRecordById(camellos.Collection, "x")
	if err != nil { return "" }
	return rec.GetString("status")`},
		{"a record from another owner's function", "camellos/modules/quotes", "camellos/modules/jobs", `
	rec, _, err := jobs.VisibleJob(nil)
	if err != nil { return "" }
	return rec.GetString("status")`},
		// (messages.Access.Job is a jobs record: not even messages reads it by key.)
		{"a field of another owner's type", "camellos/modules/quotes", "", `
	var a messages.Access
	return a.Job.GetString("status")`},
		{"a key of no own collection", "camellos/modules/jobs", "camellos/modules/camellos", `
	return rec.GetString("ratingAvg")`},
		{"a package owning nothing", "camellos/modules/planted", "camellos/modules/jobs", `
	return rec.GetString("title")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := `package planted

import (
	"camellos/modules/camellos"
	"camellos/modules/jobs"
	"camellos/modules/messages"

	"github.com/pocketbase/pocketbase/core"
)

var _ = camellos.Collection
var _ = jobs.Collection
var _ messages.Access

func planted(app core.App, rec *core.Record) string {` + c.body + `
}
`
			refused := func(pkg string) []string {
				f, err := parser.ParseFile(s.fset, "planted.go", src, 0)
				if err != nil {
					t.Fatal(err)
				}
				uses, _ := s.check(t, pkg, []*ast.File{f})
				var out []string
				for _, u := range uses {
					if why := keyRefusal(u, schema); why != "" {
						out = append(out, why)
					}
				}
				return out
			}
			if got := refused(c.pkg); len(got) != 1 {
				t.Fatalf("in %s: want one refusal, got %q", c.pkg, got)
			}
			if c.owner == "" {
				return
			}
			if got := refused(c.owner); len(got) != 0 {
				t.Fatalf("the owner %s was refused: %q", c.owner, got)
			}
		})
	}
}
