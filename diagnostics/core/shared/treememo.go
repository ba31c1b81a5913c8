package shared

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/model"
)

// TreeMemo is an optional part of a File's FS (WorkspaceFS): a store, shared
// by every file of one run over an unchanging folder, in which the subagent
// duplicate check (ccDuplicate) keeps each agent tree's files as it read
// them. With it, a tree of n subagents is listed and read once and each
// header parsed once for the whole run, not once per subagent (n² reads);
// without it every check lists and reads the tree itself.
type TreeMemo interface {
	AgentTrees() *AgentTrees
}

// AgentTrees holds the agent trees one run has read. Safe for concurrent use.
type AgentTrees struct {
	mu    sync.Mutex
	trees map[string]*agentTree
}

// NewAgentTrees returns an empty store; make one per run, and a new one when
// the folder may have changed.
func NewAgentTrees() *AgentTrees { return &AgentTrees{trees: map[string]*agentTree{}} }

// agentTree is one tree's candidate files in walk order (the order
// ccDuplicate walks them), at most maxTreeFiles+1 of them: the check of a
// file of the tree skips itself and looks at the first maxTreeFiles others.
type agentTree struct {
	files  []*treeFile
	byName map[string][]int // header name → indexes in files
	byStem map[string][]int // file stem of a file without a readable name → indexes
}

type treeFile struct {
	rel, stem string
	text      []byte
	name      string
	span      model.Span
	named     bool // headerName found a name
	readable  bool
}

// tree returns the tree at dir, reading it on first use.
func (a *AgentTrees) tree(dir string, ls core.WorkspaceLister, rd core.WorkspaceReader) *agentTree {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.trees[dir]; ok {
		return t
	}
	t := &agentTree{byName: map[string][]int{}, byStem: map[string][]int{}}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := ls.ReadDir(dir)
		if err != nil {
			return
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if len(t.files) > maxTreeFiles {
				return
			}
			rel := dir + "/" + e.Name()
			if e.IsDir() {
				if depth < model.MaxDepth && !model.SkipDir(e.Name()) {
					walk(rel, depth+1)
				}
				continue
			}
			if !strings.HasSuffix(e.Name(), ".md") || strings.EqualFold(e.Name(), "README.md") {
				continue
			}
			f := &treeFile{rel: rel, stem: strings.TrimSuffix(e.Name(), ".md")}
			if b, err := rd.ReadFile(rel); err == nil && len(b) <= core.MaxFileSize {
				f.text, f.readable = b, true
				f.name, f.span, f.named = HeaderName(b)
			}
			i := len(t.files)
			t.files = append(t.files, f)
			switch {
			case !f.readable:
			case f.named:
				t.byName[f.name] = append(t.byName[f.name], i)
			default:
				t.byStem[f.stem] = append(t.byStem[f.stem], i)
			}
		}
	}
	walk(dir, strings.Count(dir, "/"))
	a.trees[dir] = t
	return t
}

// others is what ccDuplicate's walk finds for the file at self named
// name: the other files of the tree with that name, in walk order.
func (t *agentTree) others(self, name string, plugin bool) []model.Related {
	selfAt := len(t.files)
	for i, f := range t.files {
		if f.rel == self {
			selfAt = i
			break
		}
	}
	// The walk looks at the first maxTreeFiles files other than self.
	looked := func(i int) bool {
		if i > selfAt {
			i--
		}
		return i < maxTreeFiles
	}
	var idx []int
	for _, i := range t.byName[name] {
		f := t.files[i]
		// The walk parses only a file that holds the name's bytes (or,
		// in a plugin, is named after it).
		if i != selfAt && looked(i) && (bytes.Contains(f.text, []byte(name)) || plugin && f.stem == name) {
			idx = append(idx, i)
		}
	}
	if plugin {
		// A plugin's subagent without a name is named after its file.
		for _, i := range t.byStem[name] {
			if i != selfAt && looked(i) {
				idx = append(idx, i)
			}
		}
	}
	sort.Ints(idx)
	var out []model.Related
	for _, i := range idx {
		f := t.files[i]
		sp := f.span
		if !f.named {
			sp = core.Line1(f.text)
		}
		out = append(out, model.Related{Path: f.rel, Span: sp, Message: "also named " + syntax.Quote(name)})
	}
	return out
}
