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

// direct are the calls that read or walk a path without the safe reader's
// checks (a FIFO blocks them, /dev/zero never ends, links lead anywhere).
var direct = regexp.MustCompile(`\b(os\.ReadFile|os\.ReadDir|os\.Open|os\.OpenFile|ioutil\.ReadFile|filepath\.WalkDir|filepath\.Walk|fs\.WalkDir)\(`)

// allowed are the non-test sources that may call them, with why: none of
// these paths is in a workspace.
var allowed = map[string]string{
	"wsfs/open_unix.go":                            "the safe reader itself",
	"wsfs/open_other.go":                           "the safe reader itself",
	"wsfs/read.go":                                 "the safe reader itself (Root.ReadDir)",
	"wsfs/list_other.go":                           "the safe walker itself",
	"wsfs/write.go":                                "the confined writer itself (its case-folding test seam lists the parent it resolved)",
	"ahpclient/clientid.go":                        "ahpls's own state directory",
	"enablement/store.go":                          "ahpls's own state directory",
	"editors/vscode/internal/rulesettings/main.go": "go generate: the extension's own package.json in this repository",
	"internal/rulesdoc/main.go":                    "go generate: reads the repository's own golden fixtures",
	"scripts/agree/main.go":                        "a development tool over a corpus of public repositories, not part of ahpls",
	"scripts/agree/judged.go":                      "a development tool over a corpus of public repositories, not part of ahpls",
	"scripts/agree/list.go":                        "a development tool over a corpus of public repositories, not part of ahpls",
	"scripts/agree/metrics.go":                     "a development tool over a corpus of public repositories, not part of ahpls",
	"scripts/scanbench/main.go":                    "a development benchmark driver over a synthetic tree it made, not part of ahpls",
}

// notWorkspace marks a line whose path is not the workspace's: a literal
// /proc path, or a `wsfs:ok <why>` comment on the line.
var notWorkspace = regexp.MustCompile(`\("/proc|wsfs:ok`)

// TestNoDirectReadsOfWorkspacePaths keeps #16's rule: every read of a
// workspace file goes through this package. A new direct call fails here;
// route it through ReadIn/ReadFile/Walk, or add the file above (or a
// `// wsfs:ok <why>` comment on the line) if the path is not a workspace's.
func TestNoDirectReadsOfWorkspacePaths(t *testing.T) {
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
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if direct.MatchString(line) && !notWorkspace.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				if _, ok := allowed[rel]; !ok {
					bad = append(bad, rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, bad, "read workspace files through package wsfs")
}
