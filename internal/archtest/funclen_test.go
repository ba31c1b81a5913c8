package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"testing"
)

// maxFuncLines bounds the body of a function (the lines between its braces):
// a longer one does several jobs, and the next engineer reads it all to
// change one.
const maxFuncLines = 120

// longFuncs are the functions allowed past maxFuncLines, by slash path and
// name (Type.Method for a method), with why. The test also fails when one
// of them has shrunk back under the limit, so the list stays short.
var longFuncs = map[string]string{}

// TestFunctionLength fails when a function of the module's non-test code
// has a body longer than maxFuncLines lines and is not in longFuncs.
// Tests are not counted: a scenario test reads top to bottom.
func TestFunctionLength(t *testing.T) {
	found := map[string]int{}
	eachGoFile(t, parser.SkipObjectResolution, func(dir string, fset *token.FileSet, f *ast.File) {
		file := path.Join(dir, path.Base(fset.File(f.Pos()).Name()))
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.Body.Rbrace).Line - fset.Position(fd.Body.Lbrace).Line - 1
			if n > maxFuncLines {
				found[file+" "+funcName(fd)] = n
			}
		}
	})
	for fn, n := range found {
		if _, ok := longFuncs[fn]; !ok {
			t.Errorf("%s has a body of %d lines (at most %d): split it, or list it in longFuncs with why", fn, n, maxFuncLines)
		}
	}
	for fn := range longFuncs {
		if _, ok := found[fn]; !ok {
			t.Errorf("%s is in longFuncs but is not longer than %d lines (or is gone): take it off the list", fn, maxFuncLines)
		}
	}
}

// funcName is a declaration's name, Type.Method for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
