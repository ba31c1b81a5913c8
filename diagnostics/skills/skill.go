package skills

// SKILL.md rules (customization-formats.md §5.2).

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ahpls-dev/ahpls/model"
)

// SkillRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var SkillRules = []*core.Rule{
	skillNameMissing, skillNameCharset, skillNameHyphens, skillNameLength, skillNameDir,
	skillNameReserved, skillDescMissing, skillDescEmpty, skillDescLength, skillListingLength,
	skillDescXml, skillCompat, skillMetadata, skillAllowedTools, skillEnum, skillFileName,
	SkillNested, skillCatalog, skillBodyLines,
}

var skillNameMissing = &core.Rule{
	ID:       "skill/name-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed name",
	Summary:  "The skill has no 'name'; consumers fall back to the folder name and VS Code warns.",
	Kinds:    "skill",
	Severity: "VS WARN (folder name used) · VH ok (folder name) · CC ok · CL ? · AS WARN (required; clients warn and load under the folder name) · OC SKIP (no folder-name fallback) · RO SKIP.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "SKIP", Source: "RooCodeInc/Roo-Code@cb836567 src/services/skills/SkillsManager.ts loadSkillMetadata: `if (!frontmatter.name || typeof frontmatter.name !== \"string\")` logs \"missing required 'name' field\" and returns: the skill is not loaded"},
		{Consumer: "VS", Reaction: "WARN", Source: "`src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/promptValidator.ts` validateSkillAttributes: 'promptValidator.skillNameMissing' \"Skill should provide a name.\" at MarkerSeverity.Warning"},
		{Consumer: "VH", Reaction: "ok", Source: "the agent host's skill parser falls back to the folder name (issue #13, repro 6)"},
		{Consumer: "AS", Reaction: "WARN", Source: "specification.mdx, `name`: \"Yes\" (required); skills-ref \"Missing required field in frontmatter: name\"; client guide (adding-skills-support.mdx, Lenient validation): \"Warn on issues but still load the skill when possible\"; its note: the lenient approach relaxes the spec's constraints on `name` (parent directory, character set, max length)"},
		{Consumer: "CX", Reaction: "ok", Source: "openai/codex@c9d127cf codex-rs/core-skills/src/loader.rs parse_skill_file: `unwrap_or_else(|| default_skill_name(path))`, the folder name"},
		{Consumer: "GC", Reaction: "SKIP", Source: "google-gemini/gemini-cli@5411f113 packages/core/src/skills/skillLoader.ts loadSkillFromFile: parseFrontmatter returns null unless `name` and `description` are both strings, and the file is not loaded"},
		{Consumer: "OC", Reaction: "SKIP", Source: "opencode-ai 1.18.33 skill loader: `function mA(j){return BA(j)&&typeof j.name===\"string\"&&…}`, `if(!mA(z.data))return;` (no folder-name fallback); `opencode debug skill` does not list a .opencode/skills skill without `name`"},
	},
}

var skillNameCharset = &core.Rule{
	ID:       "skill/name-charset",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the skill",
	Summary:  "The skill name uses characters other than a-z, 0-9 and '-'.",
	Kinds:    "skill",
	Severity: "VS WARN (validator Error marker; loads under the folder name) · VH, CC SPEC (load it anyway) · CL ? · AS WARN (Unicode lower case allowed) · UP REJ.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "`src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/promptValidator.ts` validateSkillAttributes: 'promptValidator.skillNameInvalidChars' \"Skill name may only contain lowercase letters, numbers, and hyphens.\" (an editor marker; the regex is used by the validator and installers, not by skill loading, as far as traced)"},
		{Consumer: "VH", Reaction: "ok", Source: "the agent host's skill parser takes `name` as written, else the folder name (issue #13, repro 6)"},
		{Consumer: "CC", Reaction: "ok", Source: "`claude plugin validate` 2.1.332 on a plugin with `name: PDF Helper` in skills/pdf-helper: success, provides \"p1:pdf-helper\" (the folder name)"},
		{Consumer: "AS", Reaction: "WARN", Source: "specification.mdx: \"May only contain unicode lowercase alphanumeric characters\"; skills-ref _validate_name: \"must be lowercase\", \"contains invalid characters\"; client guide (adding-skills-support.mdx, Lenient validation): \"Warn on issues but still load the skill when possible\"; its note: the lenient approach relaxes the spec's constraints on `name` (parent directory, character set, max length)"},
		{Consumer: "UP", Reaction: "REJ", Source: "anthropics/skills skill-creator/scripts/quick_validate.py: \"Name '{name}' should be kebab-case (lowercase letters, digits, and hyphens only)\""},
	},
}

var skillNameHyphens = &core.Rule{
	ID:       "skill/name-hyphens",
	Fix:      core.FixUnsafe,
	FixWhy:   "renames the skill",
	Summary:  "The skill name starts or ends with '-' or holds '--'.",
	Kinds:    "skill",
	Severity: "V ok · AS WARN · UP REJ.",
	Evidence: []core.Evidence{
		{Consumer: "AS", Reaction: "WARN", Source: "specification.mdx: name \"Must not start or end with a hyphen\"; skills-ref \"cannot contain consecutive hyphens\"; client guide (adding-skills-support.mdx, Lenient validation): \"Warn on issues but still load the skill when possible\"; its note: the lenient approach relaxes the spec's constraints on `name` (parent directory, character set, max length)"},
	},
}

var skillNameLength = &core.Rule{
	ID:       "skill/name-length",
	Summary:  "The skill name is longer than 64 characters.",
	Kinds:    "skill",
	Severity: "V LOSE (cut to 64, then the folder name) · AS WARN · UP REJ.",
	Evidence: []core.Evidence{
		{Consumer: "AS", Reaction: "WARN", Source: "specification.mdx: name \"Must be 1-64 characters\"; client guide (adding-skills-support.mdx, Lenient validation): \"Name exceeds 64 characters → warn, load anyway\""},
	},
}

var skillNameDir = &core.Rule{
	ID:       "skill/name-dir",
	Fix:      core.FixUnsafe,
	FixWhy:   "the agent host and Claude Code load the skill under 'name', so setting it to the folder name renames it for them",
	Summary:  "The skill name differs from its folder name.",
	Kinds:    "skill",
	Severity: "VS WARN (loads under the folder name) · VH, CC SPEC (load it under `name`) · CL ? · AS WARN · RO SKIP.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "SKIP", Source: "RooCodeInc/Roo-Code@cb836567 src/services/skills/SkillsManager.ts loadSkillMetadata: `if (frontmatter.name !== effectiveSkillName)` (the folder name) logs \"doesn't match directory\" and returns: the skill is not loaded"},
		{Consumer: "VS", Reaction: "WARN", Source: "`src/vs/workbench/contrib/chat/common/promptSyntax/languageProviders/promptValidator.ts`: 'promptValidator.skillNameFolderMismatch' \"The skill name '{0}' should match the folder name '{1}'.\" at MarkerSeverity.Warning"},
		{Consumer: "VH", Reaction: "ok", Source: "the agent host's skill parser takes `name` as written (issue #13, repro 6)"},
		{Consumer: "AS", Reaction: "WARN", Source: "specification.mdx: \"Must match the parent directory name\"; the client guide (adding-skills-support.mdx, Lenient validation): \"Name doesn't match the parent directory name → warn, load anyway\""},
	},
}

var skillNameReserved = &core.Rule{
	ID:       "skill/name-reserved",
	Summary:  "The skill name holds a reserved word, or the folder name is reserved.",
	Kinds:    "skill",
	Severity: "`claude`/`anthropic` in the name: UP REJ; folder `synced`: CC SKIP?.",
}

var skillDescMissing = &core.Rule{
	ID:       "skill/desc-missing",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed description",
	Summary:  "The skill has no 'description', which agents need to decide when to use it.",
	Kinds:    "skill",
	Severity: "VS WARN · VH LOSE? (nothing tells the model when to use it) · AS SKIP · CC WARN (first paragraph used) · CL ? · OC LOSE (loads, left out of the skills list the model sees) · RO SKIP.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "SKIP", Source: "RooCodeInc/Roo-Code@cb836567 src/services/skills/SkillsManager.ts loadSkillMetadata: `if (!frontmatter.description || typeof frontmatter.description !== \"string\")` logs \"missing required 'description' field\" and returns: the skill is not loaded"},
		{Consumer: "VS", Reaction: "WARN", Source: "VS Code promptValidator.ts validateSkillAttributes: 'promptValidator.skillDescriptionMissing' \"Skill should provide a description.\" (Warning)"},
		{Consumer: "AS", Reaction: "SKIP", Source: "client guide (adding-skills-support.mdx, Lenient validation): \"Description is missing or empty → skip the skill\""},
		{Consumer: "CX", Reaction: "SKIP", Source: "openai/codex@c9d127cf codex-rs/core-skills/src/loader.rs parse_skill_file: validate_len(description) \"missing field `description`\", a skill load error"},
		{Consumer: "GC", Reaction: "SKIP", Source: "google-gemini/gemini-cli@5411f113 packages/core/src/skills/skillLoader.ts loadSkillFromFile: parseFrontmatter returns null without a `description` string"},
		{Consumer: "OC", Reaction: "LOSE", Source: "opencode-ai 1.18.33: the skill loads (`opencode debug skill` lists it) but the list shown to the model keeps only skills with one, `let K=j.filter((z)=>z.description!==void 0)`"},
	},
}

var skillDescEmpty = &core.Rule{
	ID:       "skill/desc-empty",
	Fix:      core.FixUnsafe,
	FixWhy:   "writes a guessed description",
	Summary:  "The skill's 'description' is empty or blank; VS Code rejects the skill.",
	Kinds:    "skill",
	Severity: "VS WARN (validator Error marker; the file loads without the value) · VH LOSE? (value dropped) · AS SKIP (client guide: skip a skill whose description is empty).",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "VS Code promptValidator.ts validateDescription: 'promptValidator.descriptionShouldNotBeEmpty' (Error)"},
		{Consumer: "AS", Reaction: "SKIP", Source: "client guide (adding-skills-support.mdx, Lenient validation): \"Description is missing or empty → skip the skill\""},
		{Consumer: "CX", Reaction: "SKIP", Source: "openai/codex@c9d127cf codex-rs/core-skills/src/loader.rs parse_skill_file: validate_len rejects an empty (whitespace-only) description, \"missing field `description`\""},
	},
}

var skillDescLength = &core.Rule{
	ID:       "skill/desc-length",
	Summary:  "The skill's 'description' is longer than 1024 characters.",
	Kinds:    "skill",
	Severity: "V LOSE (cut) · RO SKIP · AS SPEC · UP REJ.",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "SKIP", Source: "RooCodeInc/Roo-Code@cb836567 src/services/skills/SkillsManager.ts loadSkillMetadata: the trimmed description's length (UTF-16 units) must be 1-1024, else \"has an invalid description length\" and the skill is not loaded"},
		{Consumer: "AS", Reaction: "SPEC", Source: "specification.mdx: description \"Max 1024 characters\"; skills-ref \"Description exceeds 1024 character limit\""},
		{Consumer: "V", Reaction: "LOSE", Source: "customization-formats.md §5.2 [VS] (cut at 1024); not re-traced this session"},
	},
}

var skillListingLength = &core.Rule{
	ID:       "skill/listing-length",
	Summary:  "'description' plus 'when_to_use' exceed Claude Code's 1536-character listing.",
	Kinds:    "skill",
	Severity: "CC LOSE (listing cut).",
}

var skillDescXml = &core.Rule{
	ID:       "skill/desc-xml",
	Summary:  "Angle brackets or XML tags in a skill's name or description.",
	Kinds:    "skill",
	Severity: "V IGN (stripped) · UP REJ.",
}

var skillCompat = &core.Rule{
	ID:       "skill/compat",
	Summary:  "'compatibility' is not a string of at most 500 characters.",
	Kinds:    "skill",
	Severity: "AS SPEC · UP REJ.",
	Evidence: []core.Evidence{
		{Consumer: "AS", Reaction: "SPEC", Source: "specification.mdx: compatibility max 500 characters; skills-ref \"Compatibility exceeds 500 character limit\""},
	},
}

var skillMetadata = &core.Rule{
	ID:       "skill/metadata",
	Fix:      core.FixSafe,
	FixWhy:   "quotes the value so it stays the text that was written",
	Summary:  "'metadata' is not a map of strings.",
	Kinds:    "skill",
	Severity: "not a map: CC LOSE, AS SPEC; a non-string value: AS SPEC.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "LOSE", Source: "`claude plugin validate` 2.1.332: \"'metadata' must be a mapping (key: value pairs); got string. It is dropped at load time.\" (warning)"},
	},
}

var skillAllowedTools = &core.Rule{
	ID:       "skill/allowed-tools",
	Fix:      core.FixSafe,
	FixWhy:   "writes the same tools as the one string the consumers read, when Claude Code (2.1.332: split at commas and blanks outside parentheses, each list item too) and the Agent Skills spec (split at blanks) read the same tools from it",
	Summary:  "'allowed-tools' is not a space-separated string (Claude Code also takes a list).",
	Kinds:    "skill, cmd",
	Severity: "not a string or list: CC REJ; a list: AS SPEC.",
	Evidence: []core.Evidence{
		{Consumer: "CC", Reaction: "REJ", Source: "`claude plugin validate` 2.1.332: \"allowed-tools must be a string or array of strings, got number.\" (error, success false)"},
	},
}

var skillEnum = &core.Rule{
	ID:       "skill/enum",
	Fix:      core.FixUnsafe,
	FixWhy:   "guesses the value",
	Summary:  "'shell', 'effort' or 'context' has a value the consumer does not know.",
	Kinds:    "skill, cmd",
	Severity: "`shell`: CC REJ · `effort`: CC LOSE · `context`: V REJ?, CC LOSE.",
	Evidence: []core.Evidence{
		{Consumer: "VS", Reaction: "WARN", Source: "VS Code promptValidator.ts: 'promptValidator.contextForkNotSupported' (Warning) for `context: fork` without the skill tool"},
	},
}

var skillFileName = &core.Rule{
	ID:       "skill/file-name",
	Summary:  "The skill file is not named exactly SKILL.md.",
	Kinds:    "skill",
	Severity: "V ok · CC ? · CL ? · AS SPEC.",
}

var SkillNested = &core.Rule{
	ID:       "skill/nested",
	Summary:  "A SKILL.md below a folder that holds another SKILL.md, which no consumer discovers on its own.",
	Kinds:    "skill",
	Severity: "Never discovered: UNDISC (Warning); LINKED (Info) when the enclosing skill mentions it. Only with a real enclosing SKILL.md; it is the file's one finding: no rule that says what a consumer does with the file runs.",
	Evidence: []core.Evidence{
		{Consumer: "AS", Reaction: "SKIP", Source: "client guide (adding-skills-support.mdx, What to scan for): skills are subdirectories of a skills directory holding SKILL.md; a skill's own subfolders are its resources"},
		{Consumer: "CX", Reaction: "ok", Source: "openai/codex@c9d127cf codex-rs/core-skills/src/loader.rs discover_skills_under_root: walks every non-hidden folder below a skill root down to MAX_SCAN_DEPTH 6 and parses each SKILL.md it meets, a nested one included; not reported when Codex is the only consumer named"},
		{Consumer: "GC", Reaction: "SKIP", Source: "google-gemini/gemini-cli@5411f113 packages/core/src/skills/skillLoader.ts loadSkillsFromDir: globs only SKILL.md and */SKILL.md below a skills folder"},
	},
}

var skillCatalog = &core.Rule{
	ID:       "skill/catalog",
	Summary:  "A SKILL.md two or more folders below a 'skills' folder (a catalog such as skills/<category>/<skill>/), with no SKILL.md in between.",
	Kinds:    "skill",
	Severity: "Info [I]: discovery depends on where a skills location points; every skill rule still runs.",
	Evidence: []core.Evidence{
		{Consumer: "AS", Reaction: "?", Source: "client guide (adding-skills-support.mdx): scan subdirectories of each skills directory, \"max depth of 4-6 levels\" is left to the client"},
		{Consumer: "CX", Reaction: "ok", Source: "openai/codex@c9d127cf codex-rs/core-skills/src/loader.rs discover_skills_under_root: finds a SKILL.md down to MAX_SCAN_DEPTH 6 below a skill root; not reported when Codex is the only consumer named"},
	},
}

var skillBodyLines = &core.Rule{
	ID:       "skill/body-lines",
	Summary:  "The skill body is longer than 500 lines.",
	Kinds:    "skill",
	Severity: "AS SHOULD.",
}

const (
	maxSkillName = 64
	maxSkillDesc = 1024
	maxListing   = 1536
	maxCompat    = 500
	maxSkillBody = 500
)

// openCodeFindsNested reports a skill OpenCode discovers though it sits
// inside another skill's folder: OpenCode, when targeted, globs its skill
// folders with `skills/**/SKILL.md` and `{skill,skills}/**/SKILL.md`
// (opencode-ai 1.18.33; `opencode debug skill` lists
// .claude/skills/game-development/2d-games/SKILL.md beside
// .claude/skills/game-development/SKILL.md, GrupoUS/gpus), so the file is
// not undiscovered and its other rules run.
func openCodeFindsNested(rel string, r *core.Reporter) bool {
	if !r.Has(model.TargetOpenCode) {
		return false
	}
	spec, _ := model.TargetOpenCode.Spec()
	for _, root := range spec.SkillRoots {
		if strings.HasPrefix(rel, root+"/") || strings.Contains(rel, "/"+root+"/") {
			return true
		}
	}
	return false
}

func CheckSkill(f core.File, r *core.Reporter) {
	m := core.NewMD(f, r)
	// Nested means a real enclosing SKILL.md; a catalog folder
	// (skills/<category>/<skill>/SKILL.md) is not a skill. A nested file
	// gets one verdict (issue #40): no consumer discovers it, so no rule
	// that says what a consumer does with it runs.
	undiscovered := skillUndiscovered(r, f)
	if parent, rel, ok := parentSkill(m); ok && undiscovered && !openCodeFindsNested(f.Path, r) {
		d := model.Diagnostic{Rule: SkillNested.ID, Consequence: model.NotDiscovered, Span: core.Line1(m.Text),
			Message: "No agent discovers this SKILL.md: it sits inside the skill folder '" + path.Dir(parent) + "'; link it from that skill instead."}
		if mentions(m, parent, rel) {
			d.Consequence = model.Referenced
			d.Message = "No agent discovers this SKILL.md on its own; the skill in '" + path.Dir(parent) + "' links to it."
		}
		d.Severity = d.Consequence.Level(true)
		r.Add(d)
		return
	} else if undiscovered && deepSkill(f.Path) {
		r.Add(model.Diagnostic{Rule: skillCatalog.ID, Severity: model.SeverityInfo, Span: core.Line1(m.Text),
			Message: "Agents look for skills one folder below a 'skills' folder; they find this one only where a skills location points at '" + path.Dir(path.Dir(f.Path)) + "'."})
	}
	if base := path.Base(f.Path); base != "SKILL.md" {
		m.Report(skillFileName, core.Line1(m.Text),
			model.Verdicts{model.TargetClaudeCode: model.Unknown, model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Spec},
			"{T} may not discover "+syntax.Quote(base)+": skill files are named exactly 'SKILL.md'.||{T} require{s} the file name 'SKILL.md', not "+syntax.Quote(base)+".")
	}
	if m.Folder() == "synced" {
		m.Report(skillNameReserved, core.Line1(m.Text), model.Verdicts{model.TargetClaudeCode: model.Skip.Unverified()},
			"{T} may skip this skill: the folder name 'synced' is reserved.")
	}
	if !m.CheckHeader() {
		v := model.V(model.Lose).With(model.Verdicts{model.TargetAgentSkills: model.Skip, model.TargetClaudeCode: model.Lose})
		m.Report(core.FmMissing, core.Line1(m.Text), v,
			"{T} cannot read a name or description: this skill has no '---' frontmatter header.",
			model.Fix{Title: "Add a header with name and description", Preferred: true, Edits: []model.Edit{
				m.InsertKeys("name: "+core.YamlScalar(core.KebabOr(m.Folder())), "description: "+core.YamlScalar(m.FirstSentence()))}})
	} else if m.Mapping {
		skillName(m)
		skillDesc(m)
		skillOther(m, f.Kind)
		shared.CheckSharedFields(m, nil)
	}
	shared.SkillDuplicate(m)
	bodyLines(m)
	shared.CheckLinks(m)
}

// skillUndiscovered reports whether skill/nested and skill/catalog speak for
// some effective target: one whose skill walk is not modelled, or one that
// reads this folder but only one level below a skills root. A target that
// never reads the folder (model.SkillUnread) is left out, and so is one
// whose walk goes deep enough to find the file on its own: Codex descends
// into every non-hidden folder below a skill root down to its SkillDepth
// (openai/codex@c9d127cf codex-rs/core-skills/src/loader.rs
// discover_skills_under_root, MAX_SCAN_DEPTH 6) and parses each SKILL.md it
// meets, a nested one included.
func skillUndiscovered(r *core.Reporter, f core.File) bool {
	if len(r.Effective) == 0 {
		return true
	}
	depth := skillDepthBelowRoot(f.Path)
	for _, t := range r.Effective {
		spec, ok := t.Spec()
		if !ok || len(spec.SkillRoots) == 0 {
			return true
		}
		if model.SkillUnread(t, f.Path, f.Layout) {
			continue
		}
		if depth > 0 && depth <= spec.SkillDepth {
			continue
		}
		return true
	}
	return false
}

// skillDepthBelowRoot is how many folders lie between the nearest 'skills'
// folder above rel and its SKILL.md (1: skills/<name>/SKILL.md), 0 when no
// folder above is named 'skills'.
func skillDepthBelowRoot(rel string) int {
	segs := strings.Split(rel, "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if segs[i] == "skills" {
			return len(segs) - 2 - i
		}
	}
	return 0
}

// deepSkill reports a SKILL.md more than one folder below a skills/ root,
// where no agent's skill discovery looks.
func deepSkill(rel string) bool {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		if s == "skills" {
			return len(segs) > i+3
		}
	}
	return false
}

func skillName(m *core.MDFile) {
	folder := m.Folder()
	nf := m.Field("name")
	if nf == nil {
		m.Report(skillNameMissing, m.Header(),
			model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: model.OK, model.TargetClaudeCode: model.OK,
				model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Warn, model.TargetCodex: model.OK},
			"{T} warn{s}: this skill has no 'name', so the folder name "+syntax.Quote(folder)+" is used.||{T} require{s} a 'name' in every skill.",
			model.Fix{Title: "Add 'name: " + core.KebabOr(folder) + "'", Preferred: true, Edits: []model.Edit{m.InsertKeys("name: " + core.YamlScalar(core.KebabOr(folder)))}})
		// Gemini CLI does not fall back to the folder: its own finding,
		// worded for what it does.
		m.Report(skillNameMissing, m.Header(), model.Verdicts{model.TargetGeminiCLI: model.Skip, model.TargetOpenCode: model.Skip, model.TargetRoo: model.Skip},
			"{T} {does} not load this skill: it reads only skills with a 'name'.",
			model.Fix{Title: "Add 'name: " + core.KebabOr(folder) + "'", Preferred: true, Edits: []model.Edit{m.InsertKeys("name: " + core.YamlScalar(core.KebabOr(folder)))}})
		return
	}
	name, ok := core.Str(nf.V)
	if !ok || strings.TrimSpace(name) == "" {
		return // field/type, field/empty
	}
	if reservedWord := reservedIn(name); reservedWord >= 0 {
		w := "claude"
		if strings.HasPrefix(strings.ToLower(name[reservedWord:]), "anthropic") {
			w = "anthropic"
		}
		from := utf8.RuneCountInString(name[:reservedWord])
		m.Report(skillNameReserved, m.RuneSpan(nf, from, from+len(w)), model.Verdicts{model.TargetClaudeUpload: model.Reject},
			"{T} reject{s} skill names containing "+syntax.Quote(w)+".")
	}
	switch {
	case !core.ValidSkillName(name):
		nameCharset(m, nf, name, folder)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--"):
		// The whole value, which the quick fix replaces (#18).
		span := nf.ValSpan
		fixed := core.Kebab(name)
		m.Report(skillNameHyphens, span,
			model.Verdicts{model.TargetAgentSkills: model.Warn, model.TargetClaudeUpload: model.Reject},
			"{T} reject{s} skill name "+syntax.Quote(name)+": no leading, trailing or double '-'.||{T} forbid{s} a leading, trailing or double '-' in skill names; no agent enforces it.",
			core.ReplaceValue("Change to '"+fixed+"'", nf, fixed, true))
	case utf8.RuneCountInString(name) > maxSkillName:
		m.Report(skillNameLength, m.RuneSpan(nf, maxSkillName, -1),
			model.V(model.Lose).With(model.Verdicts{model.TargetAgentSkills: model.Warn, model.TargetClaudeUpload: model.Reject}),
			"{T} cut{s} this "+strconv.Itoa(utf8.RuneCountInString(name))+"-character skill name to 64 and then use{s} the folder name.||{T} limit{s} skill names to 64 characters; this one has "+strconv.Itoa(utf8.RuneCountInString(name))+".")
	case name != folder && folder != ".":
		// A SKILL.md at the workspace root sits in the workspace folder,
		// whose name the rules do not know (#25 corpus P10).
		m.Report(skillNameDir, nf.ValSpan,
			// The spec's MUST, which its client guide says to warn about:
			// Warning for agent-skills; Info for consumers that load the
			// skill anyway (the agent host and Claude Code take `name`).
			model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: model.Spec, model.TargetClaudeCode: model.Spec,
				model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: model.Warn},
			"{T} warn{s}: skill name "+syntax.Quote(name)+" differs from its folder name "+syntax.Quote(folder)+".||The Agent Skills spec requires the skill name "+syntax.Quote(name)+" to equal its folder name "+syntax.Quote(folder)+".",
			nameDirFixes(nf, folder)...)
		m.Report(skillNameDir, nf.ValSpan, model.Verdicts{model.TargetRoo: model.Skip},
			"{T} {does} not load this skill: its name "+syntax.Quote(name)+" differs from its folder name "+syntax.Quote(folder)+".",
			nameDirFixes(nf, folder)...)
	}
}

// nameDirFixes offers the folder's name as the skill's name only when the
// name rules accept it: a fix must not trade one finding for a worse one.
func nameDirFixes(nf *core.MDField, folder string) []model.Fix {
	if !core.ValidSkillName(folder) {
		return nil
	}
	return []model.Fix{core.ReplaceValue("Set the name to '"+folder+"'", nf, core.YamlScalar(folder), true)}
}

// reservedIn returns the byte offset of "claude" or "anthropic" in name, or -1.
func reservedIn(name string) int {
	l := strings.ToLower(name)
	i, j := strings.Index(l, "claude"), strings.Index(l, "anthropic")
	switch {
	case i < 0:
		return j
	case j < 0:
		return i
	}
	return min(i, j)
}

func nameCharset(m *core.MDFile, nf *core.MDField, name, folder string) {
	// The marker covers the whole value: every quick fix below replaces it
	// (#18: `name: DB Migrate` underlined only `DB M`).
	span := nf.ValSpan
	prefixEnd := strings.LastIndexAny(name, "/:")
	// Agent Skills allows Unicode lower-case letters.
	as := model.OK
	for _, r := range name {
		if !(unicode.IsLower(r) || unicode.IsDigit(r) || r == '-') {
			as = model.Warn // the spec's MUST; its client guide says warn and load
		}
	}
	// VS Code's validator marks the name but the skill still loads (under
	// its folder name); the agent host and Claude Code take it as written.
	// The agent host and Claude Code load it anyway: Info when only they
	// are targeted.
	loads := model.Reaction(model.Spec)
	if as == model.OK {
		loads = model.OK
	}
	v := model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: loads, model.TargetClaudeCode: loads,
		model.TargetCopilotCLI: model.Unknown, model.TargetAgentSkills: as, model.TargetClaudeUpload: model.Reject}
	var fixes []model.Fix
	seen := map[string]bool{name: true, "": true}
	addFix := func(title, value string) {
		if seen[value] || !core.ValidSkillName(value) {
			return
		}
		seen[value] = true
		fixes = append(fixes, core.ReplaceValue(title, nf, value, false))
	}
	if prefixEnd >= 0 {
		rest := name[prefixEnd+1:]
		if !core.ValidSkillName(rest) {
			rest = core.Kebab(rest)
		}
		addFix("Drop the prefix '"+name[:prefixEnd+1]+"'", rest)
	}
	addFix("Convert to kebab-case '"+core.Kebab(name)+"'", core.Kebab(name))
	addFix("Set the name to the folder name '"+folder+"'", folder)
	for i := range fixes {
		if fixes[i].Edits[0].NewText == folder {
			fixes[i].Preferred = true
		}
	}
	if len(fixes) > 0 && !anyPreferred(fixes) {
		fixes[0].Preferred = true
	}
	hard := "{T} flag{s} skill name " + syntax.Quote(name) + " (only a–z, 0–9 and '-') and load{s} the skill under its folder name " + syntax.Quote(folder) + "."
	if m.R.Has(model.TargetClaudeUpload) {
		hard = "{T} reject{s} skill name " + syntax.Quote(name) + ": it may use only a–z, 0–9 and '-'."
	}
	m.Report(skillNameCharset, span, v,
		hard+"||The Agent Skills spec allows only lower-case letters, digits and '-' in skill names: "+syntax.Quote(name)+".",
		fixes...)
}

func anyPreferred(fs []model.Fix) bool {
	for _, f := range fs {
		if f.Preferred {
			return true
		}
	}
	return false
}

func skillDesc(m *core.MDFile) {
	df := m.Field("description")
	if df == nil {
		m.Report(skillDescMissing, m.Header(),
			model.Verdicts{model.TargetVSCode: model.Warn, model.TargetVSCodeAgentHost: model.Lose.Unverified(), model.TargetAgentSkills: model.Skip,
				model.TargetClaudeCode: model.Warn, model.TargetCopilotCLI: model.Unknown, model.TargetCodex: model.Skip, model.TargetGeminiCLI: model.Skip,
				model.TargetOpenCode: model.Lose, model.TargetRoo: model.Skip},
			"{T} need{s} a 'description' to know when to use this skill; it has none.",
			model.Fix{Title: "Add a description", Preferred: true, Edits: []model.Edit{m.InsertKeys("description: " + core.YamlScalar(m.FirstSentence()))}})
		return
	}
	desc, ok := core.Str(df.V)
	if syntax.IsNull(df.V) || (ok && strings.TrimSpace(desc) == "") {
		span := df.ValSpan
		if span.Empty() {
			span = df.KeySpan
		}
		newText := core.YamlScalar(m.FirstSentence())
		if df.ValSpan.Empty() {
			newText = " " + newText
		}
		m.Report(skillDescEmpty, span, core.VsMarked().With(model.Verdicts{model.TargetAgentSkills: model.Skip, model.TargetCodex: model.Skip}),
			"{T} cannot tell when to use this skill: its 'description' is empty.",
			core.ReplaceValue("Fill in the description", df, newText, true))
		return
	}
	if !ok {
		return // field/type
	}
	n := utf8.RuneCountInString(desc)
	if n > maxSkillDesc {
		m.Report(skillDescLength, m.RuneSpan(df, maxSkillDesc, -1),
			model.V(model.Lose).With(model.Verdicts{model.TargetAgentSkills: model.Spec, model.TargetClaudeUpload: model.Reject}),
			"{T} cut{s} this "+strconv.Itoa(n)+"-character description at 1024 characters.||{T} limit{s} descriptions to 1024 characters; this one has "+strconv.Itoa(n)+".")
	}
	// Roo Code skips the skill instead, measuring the trimmed description
	// in UTF-16 units (JavaScript's length).
	if n16 := syntax.UTF16Len(strings.TrimSpace(desc)); n16 > maxSkillDesc {
		span := df.ValSpan
		if n > maxSkillDesc {
			span = m.RuneSpan(df, maxSkillDesc, -1)
		}
		m.Report(skillDescLength, span, model.Verdicts{model.TargetRoo: model.Skip},
			"{T} skip{s} this skill: its description has "+strconv.Itoa(n16)+" characters, more than 1024.")
	}
	if wf := m.Field("when_to_use"); n > maxListing {
		m.Report(skillListingLength, m.RuneSpan(df, maxListing, -1), model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} cut{s} this skill's listing text at 1536 characters.")
	} else if w, ok := core.Str(fieldNode(wf)); ok && n+utf8.RuneCountInString(w) > maxListing {
		m.Report(skillListingLength, m.RuneSpan(wf, maxListing-n, -1), model.Verdicts{model.TargetClaudeCode: model.Lose},
			"{T} cut{s} this skill's listing text ('description' plus 'when_to_use') at 1536 characters.")
	}
	for _, key := range []string{"name", "description"} {
		f := m.Field(key)
		s, ok := core.Str(fieldNode(f))
		if !ok {
			continue
		}
		angleBrackets(m, f, s)
	}
}

func fieldNode(f *core.MDField) *yaml.Node {
	if f == nil {
		return nil
	}
	return f.V
}

// angleBrackets reports each XML tag or stray angle bracket in a value.
func angleBrackets(m *core.MDFile, f *core.MDField, s string) {
	if !strings.ContainsAny(s, "<>") {
		return // nearly every description: no rune slice needed
	}
	rs := []rune(s)
	count := 0
	for i := 0; i < len(rs) && count < 5; i++ {
		if rs[i] != '<' && rs[i] != '>' {
			continue
		}
		j := i + 1
		if rs[i] == '<' {
			for k := i + 1; k < len(rs) && k < i+64; k++ {
				if rs[k] == '>' {
					j = k + 1
					break
				}
				if rs[k] == '<' {
					break
				}
			}
		}
		count++
		m.Report(skillDescXml, m.RuneSpan(f, i, j),
			model.V(model.Ignore).With(model.Verdicts{model.TargetClaudeUpload: model.Reject}),
			"{T} strip{s} "+syntax.Quote(string(rs[i:j]))+" from the skill's "+f.Key+".||{T} reject{s} angle brackets in a skill's "+f.Key+".")
		i = j - 1
	}
}

// skillOther covers compatibility, metadata, allowed-tools and the enums
// (the last two also for commands).
func skillOther(m *core.MDFile, kind model.Kind) {
	if kind == model.KindSkill {
		if cf := m.Field("compatibility"); cf != nil {
			if s, ok := core.Str(cf.V); !ok {
				m.Report(skillCompat, cf.ValSpan, model.Verdicts{model.TargetAgentSkills: model.Spec, model.TargetClaudeUpload: model.Reject},
					"{T} require{s} 'compatibility' to be a string, not "+core.NodeWhat(cf.V)+".")
			} else if n := utf8.RuneCountInString(s); n > maxCompat {
				m.Report(skillCompat, m.RuneSpan(cf, maxCompat, -1), model.Verdicts{model.TargetAgentSkills: model.Spec, model.TargetClaudeUpload: model.Reject},
					"{T} limit{s} 'compatibility' to 500 characters; this one has "+strconv.Itoa(n)+".")
			}
		}
		if mf := m.Field("metadata"); mf != nil {
			if mf.V.Kind != yaml.MappingNode {
				m.Report(skillMetadata, mf.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Lose, model.TargetAgentSkills: model.Spec},
					"{T} drop{s} 'metadata': it must be a map of keys to strings, not "+core.NodeWhat(mf.V)+".||{T} require{s} 'metadata' to be a map of keys to strings, not "+core.NodeWhat(mf.V)+".")
			} else {
				for i := 1; i < len(mf.V.Content); i += 2 {
					c := mf.V.Content[i]
					if c.Kind == yaml.ScalarNode && c.Tag == "!!str" {
						continue
					}
					// Inside `{a: 1}` the value is `1`, not `1}`: the
					// quotes go round the scalar, never the rest of the flow.
					span := m.Doc.SpanIn(c, mf.V)
					var fixes []model.Fix
					// An empty value (`k:`) has no text to quote: '' would
					// be a value nobody wrote.
					if c.Kind == yaml.ScalarNode && !(c.Tag == "!!null" && c.Value == "") {
						fixes = append(fixes, model.Fix{Title: "Quote the value", Preferred: true, Edits: []model.Edit{{Span: span, NewText: "'" + strings.ReplaceAll(m.SrcOf(span), "'", "''") + "'"}}})
					}
					m.Report(skillMetadata, span, model.Verdicts{model.TargetAgentSkills: model.Spec},
						"{T} require{s} string values in 'metadata'; "+syntax.Quote(mf.V.Content[i-1].Value)+" is "+core.NodeWhat(c)+".", fixes...)
				}
			}
		}
	}
	if af := m.Field("allowed-tools"); af != nil {
		switch {
		case af.V.Kind == yaml.ScalarNode && af.V.Tag == "!!str":
		case af.V.Kind == yaml.SequenceNode && core.AllStrings(af.V):
			var names []string
			for _, c := range af.V.Content {
				names = append(names, c.Value)
			}
			m.Report(skillAllowedTools, af.ValSpan, model.Verdicts{model.TargetAgentSkills: model.Spec},
				"{T} define{s} 'allowed-tools' as one space-separated string, not a list; Claude Code accepts both.",
				m.ReplaceScalarValue("Write as one string", af, core.YamlScalar(strings.Join(names, " ")), true))
		default:
			m.Report(skillAllowedTools, af.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Reject},
				"{T} reject{s} 'allowed-tools' that is "+core.NodeWhat(af.V)+"; write a string or a list of tool names.")
		}
	}
	if sf := m.Field("shell"); sf != nil {
		if s, ok := core.Str(sf.V); !ok || (s != "bash" && s != "powershell") {
			m.Report(skillEnum, sf.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Reject},
				"{T} reject{s} 'shell: "+m.ValueText(sf)+"': use 'bash' or 'powershell'.", core.EnumFix(sf, s, []string{"bash", "powershell"}, 4)...)
		}
	}
	if ef := m.Field("effort"); ef != nil {
		allowed := []string{"low", "medium", "high", "xhigh", "max"}
		if s, ok := core.Str(ef.V); !ok || !core.Contains(allowed, s) {
			m.Report(skillEnum, ef.ValSpan, model.Verdicts{model.TargetClaudeCode: model.Lose},
				"{T} ignore{s} 'effort: "+m.ValueText(ef)+"': use low, medium, high, xhigh or max.", core.EnumFix(ef, s, allowed, 3)...)
		}
	}
	if cf := m.Field("context"); cf != nil {
		if s, ok := core.Str(cf.V); !ok || s != "fork" {
			m.Report(skillEnum, cf.ValSpan, model.V(model.Reject.Unverified()).With(model.Verdicts{model.TargetClaudeCode: model.Lose}),
				"{T} ignore{s} 'context: "+m.ValueText(cf)+"': the only value is 'fork'.", core.EnumFix(cf, s, []string{"fork"}, 3)...)
		}
	}
}

// bodyLines reports a skill body over 500 lines at line 501.
func bodyLines(m *core.MDFile) {
	md := m.Fm.Markdown
	if body := m.Text[md.Start:md.End]; len(body) > 0 && bytes.IndexByte(body, '\r') < 0 {
		// Without CRs the line count is a vectorised count of line feeds;
		// only a body over the limit needs the walk below for its span.
		lines := bytes.Count(body, []byte{'\n'})
		if body[len(body)-1] != '\n' {
			lines++
		}
		if lines <= maxSkillBody {
			return
		}
	}
	pos, line := md.Start, 0
	for pos < md.End {
		e, n := syntax.LineAt(m.Text, pos)
		line++
		if line == maxSkillBody+1 {
			total := line
			for p := n; p < md.End; {
				_, nn := syntax.LineAt(m.Text, p)
				total++
				p = nn
			}
			m.Report(skillBodyLines, model.Span{Start: pos, End: e}, model.Verdicts{model.TargetAgentSkills: model.Should},
				"{T} recommend{s} at most 500 lines in SKILL.md; this body has "+strconv.Itoa(total)+": move detail into referenced files.")
			return
		}
		pos = n
	}
}

// parentSkill finds the nearest enclosing SKILL.md of a nested skill and
// this file's path relative to that skill's folder.
func parentSkill(m *core.MDFile) (parent, rel string, ok bool) {
	if m.F.FS == nil {
		return "", "", false
	}
	for dir := path.Dir(path.Dir(m.F.Path)); dir != "." && dir != "/" && path.Base(dir) != "skills"; dir = path.Dir(dir) {
		p := dir + "/SKILL.md"
		if _, err := m.F.FS.Stat(p); err == nil {
			return p, strings.TrimPrefix(m.F.Path, dir+"/"), true
		}
	}
	return "", "", false
}

// mentions reports whether the parent skill names rel or its folder; an
// unreadable parent does not (the plain Warning stands).
func mentions(m *core.MDFile, parent, rel string) bool {
	b, ok := m.ReadFile(parent)
	if !ok {
		return false
	}
	return strings.Contains(string(b), rel) || strings.Contains(string(b), path.Dir(rel)+"/")
}
