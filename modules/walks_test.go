package modules_test

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
	"testing"
)

// calls are, per function of our packages (types.Func.FullName), the
// functions of our packages it calls statically, in source order
// (closures in its body count as its own calls). Filled by scanAll.
var calls = map[string][]string{}

// funcPkg is the package of each function in calls.
var funcPkg = map[string]string{}

// hookKey names the hook an expression X of X.BindFunc / X.Trigger is:
// a field of a hooks struct (bus.Of(app).UserChanged) or the function that
// returns it (jobs.OnProviderSet(app)); "" for any other.
func hookKey(x ast.Expr, info *types.Info) string {
	switch e := x.(type) {
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			o := sel.Obj()
			return "hook:" + pkgPath(o.Pkg()) + "." + o.Name() + ":" + o.Type().String()
		}
	case *ast.CallExpr:
		// PocketBase's record hooks of a collection: only its owner saves
		// its records (TestOwnersOwnEveryWrite), so the owner's saves fire them.
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "OnRecord") && len(e.Args) >= 1 {
			if tv, ok := info.Types[e.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				if o := owners[constant.StringVal(tv.Value)]; o != "" {
					return "record:" + o
				}
			}
			return ""
		}
		var id *ast.Ident
		switch f := e.Fun.(type) {
		case *ast.Ident:
			id = f
		case *ast.SelectorExpr:
			id = f.Sel
		}
		if id != nil {
			if fn, ok := info.Uses[id].(*types.Func); ok && fn.Pkg() != nil && isOurs(fn.Pkg().Path()) {
				return "hook:" + fn.FullName()
			}
		}
	}
	return ""
}

// recordCalls adds the static calls of the functions in files to calls;
// a function bound to one of our hooks (X.BindFunc(func…)) is a listener
// node of its own, and X.Trigger(…) calls every listener of X.
func recordCalls(path string, files []*ast.File, info *types.Info) {
	var body func(from string, root ast.Node)
	body = func(from string, root ast.Node) {
		funcPkg[from] = path
		seen := map[string]bool{}
		add := func(to string) {
			if !seen[to] {
				seen[to] = true
				calls[from] = append(calls[from], to)
			}
		}
		ast.Inspect(root, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				switch sel.Sel.Name {
				case "BindFunc", "Bind":
					if key := hookKey(sel.X, info); key != "" && len(call.Args) == 1 {
						if lit, ok := call.Args[0].(*ast.FuncLit); ok {
							listener := fmt.Sprintf("listener %s %s", path, key)
							listener += fmt.Sprintf("#%d", len(calls[key]))
							calls[key] = append(calls[key], listener)
							body(listener, lit.Body)
							return false
						}
					}
				case "Trigger":
					if key := hookKey(sel.X, info); key != "" {
						add(key)
					}
				case "Save", "SaveNoValidate", "Delete", "SaveWithContext", "SaveNoValidateWithContext", "DeleteWithContext":
					if fn, ok := info.Uses[sel.Sel].(*types.Func); ok && pkgPath(fn.Pkg()) == "github.com/pocketbase/pocketbase/core" {
						add("record:" + path) // the record hooks of the package's own collections
					}
				}
			}
			var id *ast.Ident
			switch x := call.Fun.(type) {
			case *ast.Ident:
				id = x
			case *ast.SelectorExpr:
				id = x.Sel
			case *ast.IndexExpr: // generic instantiation
				if s, ok := x.X.(*ast.SelectorExpr); ok {
					id = s.Sel
				} else if i, ok := x.X.(*ast.Ident); ok {
					id = i
				}
			}
			if id == nil {
				return true
			}
			callee, ok := info.Uses[id].(*types.Func)
			if !ok || callee.Pkg() == nil || !isOurs(callee.Pkg().Path()) {
				return true
			}
			if sig, ok := callee.Type().(*types.Signature); ok && sig.Recv() != nil {
				if _, isIface := sig.Recv().Type().Underlying().(*types.Interface); isIface {
					return true // dynamic
				}
			}
			to := callee.Origin().FullName()
			add(to)
			if funcPkg[to] == "" {
				funcPkg[to] = callee.Pkg().Path()
			}
			return true
		})
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if obj, ok := info.Defs[fn.Name].(*types.Func); ok {
				body(obj.FullName(), fn.Body)
			}
		}
	}
}

// walk counts the stops and climbs back of the static call walk from
// root (see docs/architecture.md, "Walks"): a stop is a function of
// modules/ entered on the walk (depth first, each function once); a climb
// back is a call into a module the walk had left on the way down (its
// package is on the current path, below the caller's own). Shared
// infrastructure (internal/) is walked through but not counted.
func walk(root string) (stops, climbs int, climbList []string) {
	visited := map[string]bool{}
	var path []string // packages of the frames on the current path
	var visit func(fn string)
	visit = func(fn string) {
		if visited[fn] {
			return
		}
		visited[fn] = true
		pkg := funcPkg[fn]
		module := strings.HasPrefix(pkg, "camellos/modules/")
		if module {
			stops++
			if n := len(path); n > 0 && path[n-1] != pkg {
				for _, p := range path[:n-1] {
					if p == pkg {
						climbs++
						climbList = append(climbList, path[n-1]+" → "+fn)
						break
					}
				}
			}
			path = append(path, pkg)
		}
		for _, c := range calls[fn] {
			visit(c)
		}
		if module {
			path = path[:len(path)-1]
		}
	}
	visit(root)
	return stops, climbs, climbList
}

// walkLimits are the two walks of issue 22 and the most climbs back each
// may make today (they only go down; issue 22 asks for half its hand
// count of 7 each, i.e. 3).
var walkLimits = []struct {
	name, root string
	climbs     int
}{
	{"quote accept", "camellos/modules/quotes.quoteAccept", 0},
	{"camello registration", "camellos/modules/registration.camelloRegister", 0},
}

// TestWalks counts the two walks of issue 22 on the static call graph.
func TestWalks(t *testing.T) {
	scanAll(t)
	for _, w := range walkLimits {
		if len(calls[w.root]) == 0 {
			t.Fatalf("%s: %s calls nothing: the scanner is broken or the handler moved", w.name, w.root)
		}
		stops, climbs, list := walk(w.root)
		t.Logf("%s: %d stops, %d climbs back", w.name, stops, climbs)
		for _, c := range list {
			t.Logf("  climb back: %s", c)
		}
		if climbs > w.climbs {
			t.Errorf("%s: %d climbs back, at most %d", w.name, climbs, w.climbs)
		}
	}
}
