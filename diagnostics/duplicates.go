package diagnostics

// Name clashes between Markdown files (customization-formats.md §5.2
// skill/name-duplicate, §5.5 ccagent/duplicate). Each file is checked on
// its own, so a clash is found by looking at the other candidates through
// File.FS: a skill looks at the same folder name in the workspace skill
// roots read before its own (Stat and ReadFile on those exact paths); a
// subagent lists its tree through the optional WorkspaceLister. Editors
// re-check open files when another file changes, so both sides stay fresh.

import (
	"bytes"
	"io/fs"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// duplicateRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var duplicateRules = []*Rule{skillNameDuplicate, ccagentDuplicate}

var skillNameDuplicate = &Rule{
	ID:       "skill/name-duplicate",
	Summary:  "A skill an earlier workspace skill root already defines (same folder for VS Code, same 'name' for its agent host); only the first loads.",
	Kinds:    "skill",
	Severity: "Same folder (VS Code ignores case): V SHADOWED · CL SHADOWED · CC ok; same `name` in another folder: VH SHADOWED · CL SHADOWED?; the first root wins (`.github/skills`, `.claude/skills`, `.agents/skills`), and only the skill that loses is reported; an identical copy: Hint [I].",

	NameClash: true,
}

var ccagentDuplicate = &Rule{
	ID:       "ccagent/duplicate",
	Fix:      FixUnsafe,
	FixWhy:   "renames an agent",
	Summary:  "Two subagents of one tree share a 'name'; Claude Code loads only one of them.",
	Kinds:    "ccagent",
	Severity: "CC SHADOWED on the file that loses, WINS on the one that loads (the last in path order); both files are reported.",
	Evidence: []Evidence{
		{"CC", "SHADOWED", "claude-code 2.1.332: loadMarkdownFilesFromDir sorts ripgrep's list of the folder's *.md files (toSorted), and the agent lists are merged into a Map with one set per agentType, so the last file of a name in path order wins"},
	},
	NameClash: true,
}

// WorkspaceLister is an optional extension of WorkspaceFS for rules that
// compare a file with files whose names they cannot guess (two subagents
// sharing a `name`). ReadDir lists a slash-separated folder relative to the
// workspace folder, like os.ReadDir; without it those rules are skipped.
type WorkspaceLister interface {
	ReadDir(rel string) ([]fs.DirEntry, error)
}

// workspaceSkillRoots are the workspace skill folders in the order VS Code
// reads them; the first skill of a name wins.
var workspaceSkillRoots = []string{".github/skills", ".claude/skills", ".agents/skills"}

// skillDuplicate reports a skill that an earlier workspace root already
// has. VS Code loads a skill under its folder name (compared without case),
// the agent host under its `name`; plugins never compete with workspace
// skills. The same folder is found with Stat; other folders of an earlier
// root only through the optional WorkspaceLister.
func (m *mdFile) skillDuplicate() {
	if m.f.FS == nil {
		return
	}
	rd, ok := m.f.FS.(WorkspaceReader)
	if !ok {
		return
	}
	own := -1
	for i, root := range workspaceSkillRoots {
		if rest, ok := strings.CutPrefix(m.f.Path, root+"/"); ok && strings.Count(rest, "/") == 1 {
			own = i
		}
	}
	if own <= 0 || (m.f.Layout != nil && pluginFormatOf(m.f.Path, m.f.Layout) != model.FormatNone) {
		return
	}
	folder, base := m.folder(), path.Base(m.f.Path)
	read := func(rel string) ([]byte, bool) {
		if fi, err := m.f.FS.Stat(rel); err != nil || fi.IsDir() {
			return nil, false
		}
		b, err := rd.ReadFile(rel)
		return b, err == nil && len(b) <= MaxFileSize
	}
	sameFolder := model.V(model.Skip).With(model.Verdicts{model.TargetCopilotCLI: model.Skip, model.TargetClaudeCode: model.OK})
	for _, root := range workspaceSkillRoots[:own] {
		rel := root + "/" + folder + "/" + base
		if b, ok := read(rel); ok {
			m.skillClash(rel, b, sameFolder, "{T} skip{s} this skill: '"+path.Dir(rel)+"' defines skill "+q(folder)+" first.")
			return
		}
	}
	ls, ok := m.f.FS.(WorkspaceLister)
	if !ok {
		return
	}
	name := folder
	if nf := m.field("name"); nf != nil {
		if s, ok := str(nf.v); ok && s != "" {
			name = s
		}
	}
	for _, root := range workspaceSkillRoots[:own] {
		entries, err := ls.ReadDir(root)
		if err != nil {
			continue
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if !e.IsDir() || e.Name() == folder {
				continue
			}
			caseOnly := strings.EqualFold(e.Name(), folder)
			rel := root + "/" + e.Name() + "/SKILL.md"
			b, ok := read(rel)
			if !ok {
				continue
			}
			if caseOnly {
				m.skillClash(rel, b, sameFolder, "{T} skip{s} this skill: '"+path.Dir(rel)+"' is read first and differs only in case.")
				return
			}
			if !bytes.Contains(b, []byte(name)) && e.Name() != name {
				continue
			}
			other, _, ok := headerName(b)
			if !ok || other == "" {
				other = e.Name()
			}
			if other == name {
				m.skillClash(rel, b, model.Verdicts{model.TargetVSCodeAgentHost: model.Skip, model.TargetCopilotCLI: model.Skip.Unverified()},
					"{T} skip{s} this skill: '"+path.Dir(rel)+"' defines a skill named "+q(name)+" first.")
				return
			}
		}
	}
}

// skillClash reports this skill as shadowed by the one at rel.
func (m *mdFile) skillClash(rel string, b []byte, v model.Verdicts, msg string) {
	span := m.header()
	if !m.fm.Present {
		span = line1(m.text)
	}
	if nf := m.field("name"); nf != nil {
		span = nf.valSpan
	}
	winner := model.Related{Path: rel, Span: nameSpanIn(b), Message: "the skill that is loaded"}
	if bytes.Equal(b, m.text) {
		// A deliberate copy or symlink for another consumer: nothing is
		// lost, so only say so quietly.
		if !m.r.has(model.TargetVSCode) && !m.r.has(model.TargetVSCodeAgentHost) && !m.r.has(model.TargetCopilotCLI) {
			return
		}
		m.r.add(model.Diagnostic{Rule: skillNameDuplicate.ID, Severity: model.SeverityHint, Span: span, Related: []model.Related{winner},
			Message: "This skill is an exact copy of '" + rel + "'; agents that read both folders load that one."})
		return
	}
	// The skill loses to the one read first: it is shadowed, not refused.
	shadowed := make(model.Verdicts, len(v))
	for t, r := range v {
		switch r {
		case model.Skip:
			r = model.ShadowedBy
		case model.Skip.Unverified():
			r = model.ShadowedBy.Unverified()
		}
		shadowed[t] = r
	}
	if m.report(skillNameDuplicate, span, shadowed, msg) {
		n := len(m.r.diags) - 1
		m.r.diags[n].Related = append(m.r.diags[n].Related, winner)
	}
}

// nameSpanIn finds the `name` value in another file's header, or the
// first line when it has none we can read.
func nameSpanIn(text []byte) model.Span {
	if _, sp, ok := headerName(text); ok {
		return sp
	}
	return line1(text)
}

// headerName reads the top-level `name` of a Markdown file's header, with
// the Claude Code retry when the header is not strict YAML.
func headerName(text []byte) (string, model.Span, bool) {
	fm := SplitFrontmatter(text)
	if !fm.Present {
		return "", model.Span{}, false
	}
	body := text[fm.Body.Start:fm.Body.End]
	base := fm.Body.Start
	doc, err := parseYAML(body, func(o int) int { return base + o })
	if err != nil {
		res, changed := ccRetry(body)
		if !changed {
			return "", model.Span{}, false
		}
		doc, err = parseYAML(res.src, func(o int) int {
			o = max(0, min(o, len(res.orig)-1))
			return base + res.orig[o]
		})
		if err != nil {
			return "", model.Span{}, false
		}
	}
	root := doc.root
	if root == nil || root.Kind != yaml.MappingNode {
		return "", model.Span{}, false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "name" {
			v := root.Content[i+1]
			s, ok := str(v)
			return s, doc.span(v), ok
		}
	}
	return "", model.Span{}, false
}

// maxTreeFiles bounds how many sibling files a duplicate check reads.
const maxTreeFiles = 500

// agentTree returns the folder whose subagents share one namespace with
// this file: .claude/agents, or a Claude plugin's agents folder.
func (m *mdFile) agentTree() (string, bool) {
	segs := strings.Split(m.f.Path, "/")
	for i := 0; i+1 < len(segs)-1; i++ {
		if segs[i] == ".claude" && segs[i+1] == "agents" {
			return strings.Join(segs[:i+2], "/"), true
		}
	}
	if m.f.Layout != nil {
		if format, root := jPluginOf(m.f); format == model.FormatClaude {
			tree := jJoin(root, "agents")
			if strings.HasPrefix(m.f.Path, tree+"/") {
				return tree, true
			}
		}
	}
	return "", false
}

// ccDuplicate reports another subagent of the same tree with this name.
// Claude Code keeps one of them depending on file order, so both files
// get the diagnostic, each pointing at the other.
func (m *mdFile) ccDuplicate(nf *mdField, name string) {
	if m.f.FS == nil {
		return
	}
	ls, ok1 := m.f.FS.(WorkspaceLister)
	rd, ok2 := m.f.FS.(WorkspaceReader)
	if !ok1 || !ok2 {
		return
	}
	tree, ok := m.agentTree()
	if !ok {
		return
	}
	var others []model.Related
	if tm, ok := m.f.FS.(TreeMemo); ok && tm.AgentTrees() != nil {
		others = tm.AgentTrees().tree(tree, ls, rd).others(m.f.Path, name, m.plugin)
	} else {
		others = walkAgentTree(m.f.Path, m.plugin, tree, name, ls, rd)
	}
	m.ccReport(nf, name, others)
}

// walkAgentTree (self: the subagent's own path; plugin: it is in a plugin) is ccDuplicate's search without a TreeMemo: it lists and
// reads the tree itself (AgentTrees.tree and others do the same once per run).
func walkAgentTree(self string, plugin bool, tree, name string, ls WorkspaceLister, rd WorkspaceReader) []model.Related {
	var others []model.Related
	seen := 0
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := ls.ReadDir(dir)
		if err != nil {
			return
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if seen >= maxTreeFiles {
				return
			}
			rel := dir + "/" + e.Name()
			if e.IsDir() {
				if depth < model.MaxDepth && !model.SkipDir(e.Name()) {
					walk(rel, depth+1)
				}
				continue
			}
			if rel == self || !strings.HasSuffix(e.Name(), ".md") || strings.EqualFold(e.Name(), "README.md") {
				continue
			}
			seen++
			b, err := rd.ReadFile(rel)
			if err != nil || len(b) > MaxFileSize {
				continue
			}
			stem := strings.TrimSuffix(e.Name(), ".md")
			if !bytes.Contains(b, []byte(name)) && !(plugin && stem == name) {
				continue // cannot be named the same: skip the YAML parse
			}
			other, sp, ok := headerName(b)
			if !ok && plugin {
				// A plugin's subagent without a name is named after its file.
				other, sp, ok = stem, line1(b), true
			}
			if ok && other == name {
				others = append(others, model.Related{Path: rel, Span: sp, Message: "also named " + q(name)})
			}
		}
	}
	walk(tree, strings.Count(tree, "/"))
	return others
}

// ccReport reports the subagent as one of several named name.
func (m *mdFile) ccReport(nf *mdField, name string, others []model.Related) {
	if len(others) == 0 {
		return
	}
	newName := kebabOr(m.stem())
	if newName == name || !validSkillName(newName) {
		newName = name + "-2"
	}
	// Claude Code keeps the last agent of a name: its loader sorts the
	// folder's file list by path and sets a Map per agentType over it.
	last := m.f.Path
	for i, o := range others {
		if o.Path > last {
			last = o.Path
			others[0], others[i] = others[i], others[0] // the winner is the first related place
		}
	}
	react := model.ShadowedBy
	msg := "{T} load{s} only one subagent named " + q(name) + ": '" + last + "' (the last in path order) shadows this one."
	if last == m.f.Path {
		react = model.Wins
		msg = "{T} load{s} this subagent and not the other one named " + q(name) + " ('" + others[0].Path + "', earlier in path order)."
	}
	if m.report(ccagentDuplicate, nf.valSpan, model.Verdicts{model.TargetClaudeCode: react}, msg,
		replaceValue("Rename to '"+newName+"'", nf, yamlScalar(newName), true)) {
		n := len(m.r.diags) - 1
		m.r.diags[n].Related = append(m.r.diags[n].Related, others...)
	}
}
