package shared

// Name clashes between Markdown files (customization-formats.md §5.2
// skill/name-duplicate, §5.5 ccagent/duplicate). Each file is checked on
// its own, so a clash is found by looking at the other candidates through
// File.FS: a skill looks at the same folder name in the workspace skill
// roots read before its own (Stat and ReadFile on those exact paths); a
// subagent lists its tree through the optional WorkspaceLister. Editors
// re-check open files when another file changes, so both sides stay fresh.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// DuplicateRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var DuplicateRules = []*core.Rule{skillNameDuplicate, ccagentDuplicate}

var skillNameDuplicate = &core.Rule{
	ID:       "skill/name-duplicate",
	Summary:  "A skill an earlier workspace skill root already defines (same folder for VS Code, same 'name' for its agent host); only the first loads.",
	Kinds:    "skill",
	Severity: "Same folder (VS Code ignores case): V SHADOWED · CL SHADOWED · CC ok; same `name` in another folder: VH SHADOWED · CL SHADOWED?; the first root wins (`.github/skills`, `.claude/skills`, `.agents/skills`), and only the skill that loses is reported; an identical copy: Hint [I].",

	NameClash: true,
}

var ccagentDuplicate = &core.Rule{
	ID:       "ccagent/duplicate",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames an agent",
	Summary:  "Two subagents of one tree share a 'name'; Claude Code loads only one of them.",
	Kinds:    "ccagent",
	Severity: "CC SHADOWED on the file that loses, WINS on the one that loads (the last in path order); both files are reported.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "SHADOWED", Source: "claude-code 2.1.332: loadMarkdownFilesFromDir sorts ripgrep's list of the folder's *.md files (toSorted), and the agent lists are merged into a Map with one set per agentType, so the last file of a name in path order wins"},
	},
	NameClash: true,
}

// workspaceSkillRoots are the workspace skill folders in the order VS Code
// reads them; the first skill of a name wins.
var workspaceSkillRoots = []string{".github/skills", ".claude/skills", ".agents/skills"}

// SkillDuplicate reports a skill that an earlier workspace root already
// has. VS Code loads a skill under its folder name (compared without case),
// the agent host under its `name`; plugins never compete with workspace
// skills. The same folder is found with Stat; other folders of an earlier
// root only through the optional WorkspaceLister.
func SkillDuplicate(m *core.MDFile) {
	if m.F.FS == nil {
		return
	}
	rd, ok := m.F.FS.(core.WorkspaceReader)
	if !ok {
		return
	}
	own := -1
	for i, root := range workspaceSkillRoots {
		if rest, ok := strings.CutPrefix(m.F.Path, root+"/"); ok && strings.Count(rest, "/") == 1 {
			own = i
		}
	}
	if own <= 0 || (m.F.Layout != nil && core.PluginFormatOf(m.F.Path, m.F.Layout) != model.FormatNone) {
		return
	}
	folder, base := m.Folder(), path.Base(m.F.Path)
	read := func(rel string) ([]byte, bool) {
		if fi, err := m.F.FS.Stat(rel); err != nil || fi.IsDir() {
			return nil, false
		}
		b, err := rd.ReadFile(rel)
		return b, err == nil && len(b) <= core.MaxFileSize
	}
	sameFolder := model.V(model.Skip).With(model.Verdicts{model.TargetCopilotCLI: model.Skip, model.TargetClaudeCode: model.OK})
	for _, root := range workspaceSkillRoots[:own] {
		rel := root + "/" + folder + "/" + base
		if b, ok := read(rel); ok {
			skillClash(m, rel, b, sameFolder, "{T} skip{s} this skill: '"+path.Dir(rel)+"' defines skill "+syntax.Quote(folder)+" first.")
			return
		}
	}
	ls, ok := m.F.FS.(core.WorkspaceLister)
	if !ok {
		return
	}
	name := folder
	if nf := m.Field("name"); nf != nil {
		if s, ok := core.Str(nf.V); ok && s != "" {
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
				skillClash(m, rel, b, sameFolder, "{T} skip{s} this skill: '"+path.Dir(rel)+"' is read first and differs only in case.")
				return
			}
			if !bytes.Contains(b, []byte(name)) && e.Name() != name {
				continue
			}
			other, _, ok := HeaderName(b)
			if !ok || other == "" {
				other = e.Name()
			}
			if other == name {
				skillClash(m, rel, b, model.Verdicts{model.TargetVSCodeAgentHost: model.Skip, model.TargetCopilotCLI: model.Skip.Unverified()},
					"{T} skip{s} this skill: '"+path.Dir(rel)+"' defines a skill named "+syntax.Quote(name)+" first.")
				return
			}
		}
	}
}

// skillClash reports this skill as shadowed by the one at rel.
func skillClash(m *core.MDFile, rel string, b []byte, v model.Verdicts, msg string) {
	span := m.Header()
	if !m.Fm.Present {
		span = core.Line1(m.Text)
	}
	if nf := m.Field("name"); nf != nil {
		span = nf.ValSpan
	}
	winner := model.Related{Path: rel, Span: nameSpanIn(b), Message: "the skill that is loaded"}
	if bytes.Equal(b, m.Text) {
		// A deliberate copy or symlink for another consumer: nothing is
		// lost, so only say so quietly.
		if !m.R.Has(model.TargetVSCode) && !m.R.Has(model.TargetVSCodeAgentHost) && !m.R.Has(model.TargetCopilotCLI) {
			return
		}
		m.R.Add(model.Diagnostic{Rule: skillNameDuplicate.ID, Severity: model.SeverityHint, Span: span, Related: []model.Related{winner},
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
	if m.Report(skillNameDuplicate, span, shadowed, msg) {
		n := len(m.R.Diags) - 1
		m.R.Diags[n].Related = append(m.R.Diags[n].Related, winner)
	}
}

// nameSpanIn finds the `name` value in another file's header, or the
// first line when it has none we can read.
func nameSpanIn(text []byte) model.Span {
	if _, sp, ok := HeaderName(text); ok {
		return sp
	}
	return core.Line1(text)
}

// HeaderName reads the top-level `name` of a Markdown file's header, with
// the Claude Code retry when the header is not strict YAML.
func HeaderName(text []byte) (string, model.Span, bool) {
	fm := syntax.SplitFrontmatter(text)
	if !fm.Present {
		return "", model.Span{}, false
	}
	body := text[fm.Body.Start:fm.Body.End]
	base := fm.Body.Start
	doc, err := syntax.ParseYAML(body, func(o int) int { return base + o })
	if err != nil {
		res, changed := syntax.CCRetry(body)
		if !changed {
			return "", model.Span{}, false
		}
		doc, err = syntax.ParseYAML(res.Src, func(o int) int {
			o = max(0, min(o, len(res.Orig)-1))
			return base + res.Orig[o]
		})
		if err != nil {
			return "", model.Span{}, false
		}
	}
	root := doc.Root
	if root == nil || root.Kind != yaml.MappingNode {
		return "", model.Span{}, false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "name" {
			v := root.Content[i+1]
			s, ok := core.Str(v)
			return s, doc.Span(v), ok
		}
	}
	return "", model.Span{}, false
}

// maxTreeFiles bounds how many sibling files a duplicate check reads.
const maxTreeFiles = 500

// agentTree returns the folder whose subagents share one namespace with
// this file: .claude/agents, or a Claude plugin's agents folder.
func agentTreeOf(m *core.MDFile) (string, bool) {
	segs := strings.Split(m.F.Path, "/")
	for i := 0; i+1 < len(segs)-1; i++ {
		if segs[i] == ".claude" && segs[i+1] == "agents" {
			return strings.Join(segs[:i+2], "/"), true
		}
	}
	if m.F.Layout != nil {
		if format, root := core.JPluginOf(m.F); format == model.FormatClaude {
			tree := core.JJoin(root, "agents")
			if strings.HasPrefix(m.F.Path, tree+"/") {
				return tree, true
			}
		}
	}
	return "", false
}

// CCDuplicate reports another subagent of the same tree with this name.
// Claude Code keeps one of them depending on file order, so both files
// get the diagnostic, each pointing at the other.
func CCDuplicate(m *core.MDFile, nf *core.MDField, name string) {
	if m.F.FS == nil {
		return
	}
	ls, ok1 := m.F.FS.(core.WorkspaceLister)
	rd, ok2 := m.F.FS.(core.WorkspaceReader)
	if !ok1 || !ok2 {
		return
	}
	tree, ok := agentTreeOf(m)
	if !ok {
		return
	}
	var others []model.Related
	if tm, ok := m.F.FS.(TreeMemo); ok && tm.AgentTrees() != nil {
		others = tm.AgentTrees().tree(tree, ls, rd).others(m.F.Path, name, m.Plugin)
	} else {
		others = walkAgentTree(m.F.Path, m.Plugin, tree, name, ls, rd)
	}
	ccReport(m, nf, name, others)
}

// walkAgentTree (self: the subagent's own path; plugin: it is in a plugin) is ccDuplicate's search without a TreeMemo: it lists and
// reads the tree itself (AgentTrees.tree and others do the same once per run).
func walkAgentTree(self string, plugin bool, tree, name string, ls core.WorkspaceLister, rd core.WorkspaceReader) []model.Related {
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
			if err != nil || len(b) > core.MaxFileSize {
				continue
			}
			stem := strings.TrimSuffix(e.Name(), ".md")
			if !bytes.Contains(b, []byte(name)) && !(plugin && stem == name) {
				continue // cannot be named the same: skip the YAML parse
			}
			other, sp, ok := HeaderName(b)
			if !ok && plugin {
				// A plugin's subagent without a name is named after its file.
				other, sp, ok = stem, core.Line1(b), true
			}
			if ok && other == name {
				others = append(others, model.Related{Path: rel, Span: sp, Message: "also named " + syntax.Quote(name)})
			}
		}
	}
	walk(tree, strings.Count(tree, "/"))
	return others
}

// ccReport reports the subagent as one of several named name.
func ccReport(m *core.MDFile, nf *core.MDField, name string, others []model.Related) {
	if len(others) == 0 {
		return
	}
	newName := core.KebabOr(m.Stem())
	if newName == name || !core.ValidSkillName(newName) {
		newName = name + "-2"
	}
	// Claude Code keeps the last agent of a name: its loader sorts the
	// folder's file list by path and sets a Map per agentType over it.
	last := m.F.Path
	for i, o := range others {
		if o.Path > last {
			last = o.Path
			others[0], others[i] = others[i], others[0] // the winner is the first related place
		}
	}
	react := model.ShadowedBy
	msg := "{T} load{s} only one subagent named " + syntax.Quote(name) + ": '" + last + "' (the last in path order) shadows this one."
	if last == m.F.Path {
		react = model.Wins
		msg = "{T} load{s} this subagent and not the other one named " + syntax.Quote(name) + " ('" + others[0].Path + "', earlier in path order)."
	}
	if m.Report(ccagentDuplicate, nf.ValSpan, model.Verdicts{model.TargetClaudeCode: react}, msg,
		core.ReplaceValue("Rename to '"+newName+"'", nf, core.YamlScalar(newName), true)) {
		n := len(m.R.Diags) - 1
		m.R.Diags[n].Related = append(m.R.Diags[n].Related, others...)
	}
}
