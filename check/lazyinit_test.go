package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoRegexpCompiledAtInit keeps #30's start-up budget: every package of
// this module that the ahpls binary links compiles its regular
// expressions on first use (sync.OnceValue), not in a package-level var
// that every process, even `ahpls version`, pays for at init. A call
// inside a function literal is lazy and allowed.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", "../cmd/ahpls").Output()
	require.NoError(t, err)
	dirs := strings.Fields(string(out))
	require.Greater(t, len(dirs), 10, "go list found the module's packages")
	checked := 0
	fset := token.NewFileSet()
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
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
						ast.Inspect(v, func(n ast.Node) bool {
							switch n := n.(type) {
							case *ast.FuncLit:
								return false // runs when called, not at init
							case *ast.CallExpr:
								if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "MustCompile" {
									assert.Fail(t, "a regular expression compiled at init", "%s (wrap it in sync.OnceValue)", fset.Position(n.Pos()))
								}
							}
							return true
						})
					}
				}
			}
		}
	}
	require.Greater(t, checked, 100)
}
