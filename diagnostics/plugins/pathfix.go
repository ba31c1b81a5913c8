package plugins

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"path"
	"strings"

	"github.com/ahpls-dev/ahpls/model"
)

// Quick fixes of a component path that does not exist (market/path-missing,
// plugin/path-missing), most often left behind when a skill's folder was
// renamed or moved: point the entry at the folder that now holds that
// skill, or remove the entry. Both change what the consumer loads, so both
// are unsafe fixes: offered in the editor, never applied by `ahpls check
// --fix` alone.

// missingPathFixes are the fixes of v, a component path of key that does
// not exist at rel (workspace-relative). list is the array holding v, nil
// when v is the member's whole value (member then names it).
func missingPathFixes(f core.File, text []byte, key string, v *core.JSONValue, rel string, list *core.JSONValue, member *core.JSONMember) []model.Fix {
	var fixes []model.Fix
	if key == "skills" {
		if moved, ok := movedSkill(f, rel); ok {
			fixes = append(fixes, core.JReplace("Point at '"+moved+"', the folder that now holds this skill", v.Span, core.JQuote(withLastSegment(v.Str, moved))))
		}
	}
	var remove model.Span
	switch {
	case list != nil:
		remove = jListItemSpan(text, v.Span)
	case member != nil:
		remove = jListItemSpan(text, model.Span{Start: member.KeySpan.Start, End: v.Span.End})
	default:
		return fixes
	}
	fix := model.Fix{Title: "Remove this " + strings.TrimSuffix(key, "s") + " entry", Edits: []model.Edit{{Span: remove}}}
	return append(fixes, fix)
}

// movedSkill finds the one sibling folder of the missing skill folder rel
// whose SKILL.md carries the missing folder's name, in any case (the name
// a folder move leaves behind): its folder name, ok false when none or several.
func movedSkill(f core.File, rel string) (string, bool) {
	lister, ok := f.FS.(core.WorkspaceLister)
	if !ok {
		return "", false
	}
	reader, ok := f.FS.(core.WorkspaceReader)
	if !ok {
		return "", false
	}
	rel = strings.TrimSuffix(rel, "/")
	want, parent := path.Base(rel), path.Dir(rel)
	entries, err := lister.ReadDir(parent)
	if err != nil {
		return "", false
	}
	found := ""
	for i, e := range entries {
		if i >= maxSiblingScan {
			break
		}
		if !e.IsDir() || e.Name() == want {
			continue
		}
		text, err := reader.ReadFile(path.Join(parent, e.Name(), "SKILL.md"))
		if err != nil {
			continue
		}
		fm, ok := syntax.FrontmatterEntries(text)
		if !ok {
			continue
		}
		for _, x := range fm {
			if x.Key == "name" && x.Scalar && strings.EqualFold(x.Value, want) {
				if found != "" {
					return "", false // two candidates: no guess
				}
				found = e.Name()
			}
		}
	}
	return found, found != ""
}

// maxSiblingScan bounds the folders read for one missing path.
const maxSiblingScan = 200

// withLastSegment replaces the last segment of a path as written, keeping
// its prefix ("./") and a trailing slash.
func withLastSegment(p, seg string) string {
	trail := ""
	if strings.HasSuffix(p, "/") {
		trail, p = "/", strings.TrimSuffix(p, "/")
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1] + seg + trail
	}
	return seg + trail
}

// jListItemSpan is what removing one element of a list (an array item, an
// object member) takes with it: the comma after it and the space up to the
// next element, or, for the last, the comma before it.
func jListItemSpan(text []byte, sp model.Span) model.Span {
	end := sp.End
	for end < len(text) && isJSONSpace(text[end]) {
		end++
	}
	if end < len(text) && text[end] == ',' {
		end++
		for end < len(text) && isJSONSpace(text[end]) {
			end++
		}
		return model.Span{Start: sp.Start, End: end}
	}
	start := sp.Start
	for start > 0 && isJSONSpace(text[start-1]) {
		start--
	}
	if start > 0 && text[start-1] == ',' {
		return model.Span{Start: start - 1, End: sp.End}
	}
	return sp
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
