package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// maxMethods bounds the methods declared on one type in non-test code: a
// type with more is a hub that every change passes through. Split it by job
// into parts embedded in it (as ahptest.Host and server.Server are).
const maxMethods = 40

// hubs are the types allowed past maxMethods, by package folder and type
// name, each with the most methods it may have: the ceiling only comes
// down (lower it when a type shrinks).
// (diagnostics' mdFile, 79 methods, was one until the rules of each kind
// moved to their own packages as functions over core.MDFile, #37.)
var hubs = map[string]int{}

// packageMax tightens maxMethods for the packages listed, by package
// folder. In server (#37) the Server keeps lifecycle and LSP wiring and
// each other job is a part embedded in it; no part grows past this.
var packageMax = map[string]int{"server": 25, "check": 25, "bridge": 25, "hostlink": 25, "ahpclient": 25, "view": 25, "settings": 25, "wsfs": 25}

// adapters are exempt from packageMax (not from maxMethods): types whose
// methods are a protocol's requests and notifications, one method each.
var adapters = map[string]bool{
	"server.lspServer": true, // the LSP handler set go.lsp.dev/protocol dispatches to
}

// TestNoHubTypes fails when a type of the module's non-test code declares
// more than maxMethods methods (packageMax in the packages it lists), or a
// listed hub more than its ceiling.
func TestNoHubTypes(t *testing.T) {
	count := map[string]int{}
	eachGoFile(t, parser.SkipObjectResolution, func(dir string, _ *token.FileSet, f *ast.File) {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv != nil {
				if typ, _, ok := strings.Cut(funcName(fd), "."); ok {
					count[dir+"."+typ]++
				}
			}
		}
	})
	if count["ahptest.Host"] == 0 {
		t.Fatal("found no methods of ahptest.Host: the walk is broken")
	}
	for typ, n := range count {
		limit, listed := hubs[typ]
		if !listed {
			limit = maxMethods
			pkg, _, _ := strings.Cut(typ, ".")
			if m, ok := packageMax[pkg]; ok && !adapters[typ] {
				limit = m
			}
		}
		if n > limit {
			t.Errorf("%s declares %d methods (at most %d): split it by job into parts embedded in it", typ, n, limit)
		}
	}
	for typ := range hubs {
		if count[typ] <= maxMethods {
			t.Errorf("%s is in hubs but declares %d methods, within %d: take it off the list", typ, count[typ], maxMethods)
		}
	}
}
