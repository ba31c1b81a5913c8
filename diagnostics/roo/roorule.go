package roo

// Roo Code rules (issue #38): .roo/rules/ and .roo/rules-<mode>/ of the
// workspace, and the legacy root .roorules. Roo Code is open source; every
// reaction here is read from RooCodeInc/Roo-Code@cb836567 (2026-04-14),
// src/core/prompts/sections/custom-instructions.ts:
//   - loadRuleFiles reads .roo/rules of the global (~/.roo) and the
//     project folder with readTextFilesFromDirectory (a recursive readdir,
//     every file but cache and system files, symlinks followed); only when
//     none holds a file does it read .roorules, then .clinerules;
//   - addCustomInstructions does the same for a mode: .roo/rules-<mode>/,
//     else .roorules-<mode>, else .clinerules-<mode>;
//   - safeReadFile returns the file's trimmed text: no header is parsed,
//     so a `---` block reaches the model as text and none of its fields
//     (globs, paths, alwaysApply, …) scopes the rule.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"bytes"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// RooRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var RooRules = []*core.Rule{rooShadowed, rooHeader}

// rooInstructions is Roo Code's loader of rules at the pinned commit.
const rooInstructions = "RooCodeInc/Roo-Code@cb836567 src/core/prompts/sections/custom-instructions.ts"

var rooShadowed = &core.Rule{
	ID:        "roo/legacy-shadowed",
	NameClash: true,
	Summary:   "A legacy .roorules beside a .roo/rules folder that holds a file: Roo Code reads the folder and not .roorules.",
	Kinds:     "roo",
	Severity:  "RO SHADOWED (Warning).",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "SHADOWED", Source: rooInstructions + " loadRuleFiles: \"If we found rules in .roo/rules/ directories, return them\"; .roorules and .clinerules are read only as the fallback"},
	},
}

var rooHeader = &core.Rule{
	ID:       "roo/header",
	Summary:  "A `---` header in a Roo Code rule: Roo Code reads no header, so its lines reach the model as text and none of its fields (globs, paths, alwaysApply) scopes the rule.",
	Kinds:    "roo",
	Severity: "RO IGN (Hint).",
	Evidence: []core.Evidence{
		{Consumer: "RO", Reaction: "IGN", Source: rooInstructions + " readTextFilesFromDirectory and safeReadFile: the file's trimmed text, with no frontmatter parsing; every file of the folder is added for every task"},
	},
}

func CheckRooRule(f core.File, r *core.Reporter) {
	first := model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	if f.Path == model.RooRules {
		if by := rooRulesFile(f); by != "" && r.Verdict(rooShadowed, first, model.Verdicts{model.TargetRoo: model.ShadowedBy},
			"Roo Code reads .roo/rules/ ("+by+") and not this .roorules: it reads .roorules only when no .roo/rules folder holds a file.") {
			n := len(r.Diags) - 1
			r.Diags[n].Related = append(r.Diags[n].Related, model.Related{Path: by, Message: "the rule Roo Code reads instead"})
		}
	}
	text := bytes.TrimPrefix(f.Text, []byte("\uFEFF"))
	if end, _ := syntax.LineAt(text, 0); bytes.Equal(bytes.TrimRight(text[:end], " \t\r"), []byte("---")) {
		off := len(f.Text) - len(text)
		r.Verdict(rooHeader, model.Span{Start: off, End: off + end}, model.Verdicts{model.TargetRoo: model.Ignore},
			"Roo Code reads no header: these lines reach the model as text, and no field here limits when the rule applies.")
	}
}

// rooRulesFile names a file Roo Code would read in the workspace's
// .roo/rules (any depth, at most 4 folders and 256 entries looked at), or
// "". Without a workspace that lists files it finds none.
func rooRulesFile(f core.File) string {
	ls, ok := f.FS.(core.WorkspaceLister)
	if !ok {
		return ""
	}
	budget := 256
	var walk func(dir string, depth int) string
	walk = func(dir string, depth int) string {
		entries, err := ls.ReadDir(dir)
		if err != nil {
			return ""
		}
		for _, e := range entries {
			if budget--; budget < 0 {
				return ""
			}
			rel := dir + "/" + e.Name()
			switch {
			case e.IsDir() && depth < 4:
				if got := walk(rel, depth+1); got != "" {
					return got
				}
			case e.Type().IsRegular() && !rooSkipsFile(e.Name()):
				return rel
			}
		}
		return ""
	}
	return walk(".roo/rules", 0)
}

// rooSkipsFile is Roo Code's shouldIncludeRuleFile, negated: cache and
// system files it leaves out of the rules.
func rooSkipsFile(name string) bool {
	if name == "Thumbs.db" {
		return true
	}
	for _, ext := range []string{".DS_Store", ".bak", ".cache", ".crdownload", ".db", ".dmp", ".dump", ".eslintcache",
		".lock", ".log", ".old", ".part", ".partial", ".pyc", ".pyo", ".stackdump", ".swo", ".swp", ".temp", ".tmp"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
