package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ahpls-dev/ahpls"

// root is the module root, two folders up.
var root = filepath.Join("..", "..")

// eachGoFile parses every non-test Go file of the module (testdata,
// node_modules, hidden folders and nested modules left out) with mode and
// calls fn with its folder (slash path relative to the root).
func eachGoFile(t *testing.T, mode parser.Mode, fn func(dir string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // a module of its own (examples/workspace)
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		fn(filepath.ToSlash(rel), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packages maps each package folder of the module (slash path relative to
// the root) to the imports of its non-test files.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	eachGoFile(t, parser.ImportsOnly, func(dir string, _ *token.FileSet, f *ast.File) {
		imps := out[dir]
		for _, s := range f.Imports {
			path, _ := strconv.Unquote(s.Path.Value)
			if !slices.Contains(imps, path) {
				imps = append(imps, path)
			}
		}
		out[dir] = imps
	})
	return out
}

// TestCodeMapListsEveryPackage fails when a package of the module is not
// named in a "### " heading of the code map.
func TestCodeMapListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, codeMap, ok := strings.Cut(string(b), "\n## Code map\n")
	if !ok {
		t.Fatal("docs/architecture.md has no '## Code map' section")
	}
	listed := map[string]bool{}
	tick := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(codeMap, "\n") {
		if strings.HasPrefix(line, "### ") {
			for _, m := range tick.FindAllStringSubmatch(line, -1) {
				listed[m[1]] = true
			}
		}
	}
	pkgs := packages(t)
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	for p := range pkgs {
		if !listed[p] {
			t.Errorf("package %s is not in docs/architecture.md's code map", p)
		}
	}
	for p := range listed {
		if _, ok := pkgs[p]; !ok && !strings.HasPrefix(p, "editors/") {
			t.Errorf("the code map names %s, which is no package", p)
		}
	}
}

// TestImportInvariants checks the "Architecture Invariant:" lines about
// imports.
func TestImportInvariants(t *testing.T) {
	pkgs := packages(t)
	ours := func(p string) []string {
		var out []string
		for _, imp := range pkgs[p] {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				out = append(out, rest)
			}
		}
		return out
	}
	only := func(p string, allowed ...string) {
		for _, imp := range ours(p) {
			ok := false
			for _, a := range allowed {
				ok = ok || imp == a || strings.HasPrefix(imp, a+"/")
			}
			if !ok {
				t.Errorf("%s imports %s (the architecture allows only %v)", p, imp, allowed)
			}
		}
	}
	only("model")
	only("wsfs")
	only("enablement")
	only("diagnostics", "diagnostics", "model", "wsfs")
	// diagnostics' rooms: the core layers import only deeper core layers;
	// a rule package (one per family or consumer) imports only the core,
	// never another rule package nor the root that joins them.
	only("diagnostics/core/syntax", "model")
	only("diagnostics/core", "diagnostics/core/syntax", "model")
	only("diagnostics/core/shared", "diagnostics/core", "model")
	for p := range pkgs {
		if rest, ok := strings.CutPrefix(p, "diagnostics/"); ok && !strings.HasPrefix(rest, "core") {
			only(p, "diagnostics/core", "model")
		}
	}
	only("view", "diagnostics", "model")
	only("ahpclient", "ahpclient")
	only("wsfolder", "diagnostics", "model", "settings", "view", "wsfs")
	for p, imps := range pkgs {
		if (p == "diagnostics" || strings.HasPrefix(p, "diagnostics/")) && slices.Contains(imps, "os") {
			t.Errorf("%s imports os: the rules read the disk only through their file-system interfaces", p)
		}
	}
	for _, imp := range ours("server") {
		for _, ahp := range []string{"ahpclient", "hostlink", "toolexec", "ahpschema", "ahptest", "bridge"} {
			if imp == ahp || strings.HasPrefix(imp, ahp+"/") {
				t.Errorf("server imports %s, an AHP package", imp)
			}
		}
	}
	// The language server reads folders through wsfolder, not through the
	// command line's package.
	if slices.Contains(ours("server"), "check") {
		t.Error("server imports check: folders are read through wsfolder")
	}
	for p, imps := range pkgs {
		for _, imp := range imps {
			if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") && p != "mcpserver" && p != "cmd/ahpls-mcp" {
				t.Errorf("%s imports the MCP SDK (%s)", p, imp)
			}
			if imp == module+"/ahptest" && p != "demo" && p != "editors/vscode/e2e/testhost" {
				t.Errorf("%s imports ahptest outside tests", p)
			}
		}
	}
}
