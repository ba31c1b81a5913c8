package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoRegexpCompiledAtInit keeps #30's start-up budget: the packages
// `ahpls check` links compile their regular expressions on first use
// (sync.OnceValue), not in a package-level var that every process, even
// `ahpls version`, pays for at init.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	checked := 0
	fset := token.NewFileSet()
	for _, pkg := range []string{"check", "diagnostics", "model", "tools", "wsfs", "settings", "ahpclient"} {
		files, err := filepath.Glob(filepath.Join("..", pkg, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			require.NoError(t, err)
			checked++
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					for _, v := range s.(*ast.ValueSpec).Values {
						if c, ok := v.(*ast.CallExpr); ok {
							if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "MustCompile" {
								assert.Fail(t, "a regular expression compiled at init", "%s (wrap it in sync.OnceValue)", fset.Position(v.Pos()))
							}
						}
					}
				}
			}
		}
	}
	require.Greater(t, checked, 50)
}
