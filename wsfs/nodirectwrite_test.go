package wsfs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directWrite are the calls that change the file system by path, without
// the writer's checks (a held root, no symlink out, the planned text).
var directWrite = regexp.MustCompile(`\b(os\.WriteFile|os\.Rename|os\.Create|os\.CreateTemp|os\.Remove|os\.RemoveAll|os\.Chmod|os\.Chown|os\.Truncate|ioutil\.WriteFile)\(`)

// writeAllowed are the non-test sources that may make them, with why: none
// of their paths is in a workspace.
var writeAllowed = map[string]string{
	"enablement/store.go":                          "ahpls's own state directory",
	"ahpclient/clientid.go":                        "ahpls's own state directory",
	"editors/vscode/internal/rulesettings/main.go": "go generate: the extension's own package.json in this repository",
	"internal/rulesdoc/main.go":                    "go generate: writes docs/rules.md of this repository",
	"scripts/agree/main.go":                        "a development tool over a corpus, not part of ahpls",
	"scripts/agree/judged.go":                      "a development tool over a corpus, not part of ahpls",
	"scripts/agree/list.go":                        "a development tool over a corpus, not part of ahpls",
	"scripts/agree/metrics.go":                     "a development tool over a corpus, not part of ahpls",
	"scripts/scanbench/main.go":                    "a development benchmark driver writing the logs it was asked for, not part of ahpls",
	"internal/perfgate/main.go":                    "the CI perf gate writing its generated inputs into its own temp folder, not part of ahpls",
	"scripts/synthskills/main.go":                  "a development tool that writes a new synthetic tree, not part of ahpls",
	"tools/testrun.go":                             "a temporary report file of a test run, in the temp folder",
	"tools/testrun_node.go":                        "a temporary report file of a test run, in the temp folder",
	"tools/testrun_jsreport.go":                    "a temporary report file of a test run, in the temp folder",
	"tools/testdata/helper/main.go":                "a test helper program",
	"demo/steps.go":                                "the demo's own state folder",
}

// TestNoDirectWritesOfWorkspacePaths keeps #26's rule: every write of a
// workspace file goes through Writer. A new direct call fails here; write
// through Writer, or add the file above (or a `// wsfs:ok <why>` comment on
// the line) if the path is not a workspace's.
func TestNoDirectWritesOfWorkspacePaths(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	var bad []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "wsfs/") {
			return nil
		}
		if _, ok := writeAllowed[rel]; ok {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if directWrite.MatchString(line) && !strings.Contains(line, "wsfs:ok") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				bad = append(bad, rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, bad, "write workspace files through wsfs.Writer")
}
