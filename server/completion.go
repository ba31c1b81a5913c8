package server

import (
	"bytes"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Completion that knows where it is (#18), for Markdown headers:
//   - at the start of a header line: the keys not yet present, only those
//     a target reading this file reads;
//   - after `key:`: the key's values (booleans, enums, the folder name for
//     a skill's `name`);
//   - on an indented line under `hooks:`: the hook event names of the
//     targets.

// completeMarkdown proposes what fits at byte offset off of a Markdown
// customization's header; outside the header it proposes nothing.
func completeMarkdown(kind model.Kind, rel string, text []byte, off int, targets []model.Target) []protocol.CompletionItem {
	items := []protocol.CompletionItem{}
	fm := diagnostics.SplitFrontmatter(text)
	if !fm.Present || off < fm.Body.Start || off > fm.Body.End {
		return items
	}
	lineStart := bytes.LastIndexByte(text[:off], '\n') + 1
	line := string(text[lineStart:off])
	indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
	if indented {
		if parentKey(text, lineStart, fm.Body.Start) == "hooks" && !strings.Contains(line, ":") {
			return documented(valueItems(hookEventNames(targets), "hook event"), hookEventDoc)
		}
		return items
	}
	if key, _, found := strings.Cut(line, ":"); found {
		return valueCompletions(kind, rel, strings.TrimSpace(key))
	}
	// A key: the ones not present yet (the line being typed does not count).
	present := map[string]bool{}
	if entries, ok := diagnostics.FrontmatterEntries(text); ok {
		lineEnd := bytes.IndexByte(text[off:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text) - off
		}
		for _, e := range entries {
			if e.KeySpan.Start >= lineStart && e.KeySpan.Start <= off+lineEnd {
				continue
			}
			present[e.Key] = true
		}
	}
	for _, it := range keyItems(kind, targets) {
		if present[it.Label] || !readBy(kind, it.Label, targets) {
			continue
		}
		items = append(items, it)
	}
	return items
}

// readBy reports whether a target of the file reads key (keys documented
// for no target in particular count as read by all).
func readBy(kind model.Kind, key string, targets []model.Target) bool {
	f, ok := lookupField(kind, key)
	if !ok || len(f.Targets) == 0 || len(targets) == 0 {
		return true
	}
	for _, t := range f.Targets {
		for _, e := range targets {
			if t == e {
				return true
			}
		}
	}
	return false
}

// valueCompletions proposes values for key.
func valueCompletions(kind model.Kind, rel, key string) []protocol.CompletionItem {
	if key == "name" {
		name := defaultName(kind, rel)
		if name == "" || name == "." {
			return []protocol.CompletionItem{}
		}
		detail := "the file name"
		if kind == model.KindSkill {
			detail = "the folder name (consumers find the skill by it)"
		}
		return documented([]protocol.CompletionItem{{
			Label:     name,
			Kind:      protocol.CompletionItemKindValue,
			Detail:    protocol.NewOptional(detail),
			Preselect: protocol.NewOptional(true),
		}}, valueDoc(kind, key))
	}
	if values := fieldValues(kind, key); len(values) > 0 {
		detail := key
		if boolKeys[key] {
			detail = "boolean"
		}
		return documented(valueItems(values, detail), valueDoc(kind, key))
	}
	return []protocol.CompletionItem{}
}

// parentKey returns the top-level key whose block holds the line starting
// at lineStart: the nearest line above it that starts without indentation.
func parentKey(text []byte, lineStart, bodyStart int) string {
	for end := lineStart - 1; end > bodyStart; {
		start := bytes.LastIndexByte(text[:end], '\n') + 1
		if start < bodyStart {
			start = bodyStart
		}
		l := text[start:end]
		if len(l) > 0 && l[0] != ' ' && l[0] != '\t' && l[0] != '#' {
			k, _, ok := bytes.Cut(l, []byte(":"))
			if !ok {
				return ""
			}
			return string(bytes.TrimSpace(k))
		}
		end = start - 1
	}
	return ""
}

// hookEventDoc says what a hook event is for, for hover.
func hookEventDoc(name string) string {
	var readers []string
	for _, t := range model.AllTargets {
		for _, e := range diagnostics.HookEvents(t) {
			if e == name {
				readers = append(readers, t.DisplayName())
				break
			}
		}
	}
	if len(readers) == 0 {
		return ""
	}
	doc := hookEventDocs[name]
	if doc == "" {
		doc = "A hook event."
	}
	return fmt.Sprintf("**%s** (hook event)\n\n%s\n\nFired by: %s", name, doc, strings.Join(dedupe(readers), ", "))
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// hookEventDocs describes the common hook events (public documentation of
// Claude Code and VS Code hooks, in our words).
var hookEventDocs = map[string]string{
	"PreToolUse":          "Runs before a tool call; can allow, deny or change it.",
	"PostToolUse":         "Runs after a tool call succeeded.",
	"PostToolUseFailure":  "Runs after a tool call failed.",
	"UserPromptSubmit":    "Runs when the user submits a prompt, before the model sees it.",
	"Notification":        "Runs when the agent sends a notification.",
	"Stop":                "Runs when the agent finishes its response.",
	"SubagentStart":       "Runs when a subagent starts.",
	"SubagentStop":        "Runs when a subagent finishes.",
	"PreCompact":          "Runs before the conversation is compacted.",
	"SessionStart":        "Runs when a session starts or resumes.",
	"SessionEnd":          "Runs when a session ends.",
	"PermissionRequest":   "Runs when a permission dialog would be shown.",
	"preToolUse":          "Runs before a tool call; can deny it.",
	"postToolUse":         "Runs after a tool call.",
	"sessionStart":        "Runs when a session starts.",
	"sessionEnd":          "Runs when a session ends.",
	"userPromptSubmitted": "Runs when the user submits a prompt.",
	"errorOccurred":       "Runs when an error occurs.",
}

// hookEventHover documents the hook event name under the cursor: a key of
// a JSON "hooks" object, or an indented key under a Markdown header's
// `hooks:`.
func hookEventHover(kind model.Kind, text []byte, off int) string {
	var name string
	if kind.Markdown() {
		fm := diagnostics.SplitFrontmatter(text)
		if !fm.Present || off < fm.Body.Start || off > fm.Body.End {
			return ""
		}
		lineStart := bytes.LastIndexByte(text[:off], '\n') + 1
		lineEnd := bytes.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text) - lineStart
		}
		line := text[lineStart : lineStart+lineEnd]
		k, _, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(line) == 0 || line[0] != ' ' && line[0] != '\t' || parentKey(text, lineStart, fm.Body.Start) != "hooks" {
			return ""
		}
		if kEnd := lineStart + len(k); off > kEnd {
			return ""
		}
		name = string(bytes.Trim(bytes.TrimSpace(k), `"'`))
	} else {
		k, ok := jsonKeyAt(text, off)
		if !ok {
			return ""
		}
		// The key's opening quote: the object it sits in must be "hooks".
		q := min(off, len(text)-1)
		for q >= 0 && !(text[q] == '"' && bytes.HasPrefix(text[q+1:], []byte(k+`"`))) {
			q--
		}
		if q < 0 || !insideHooksObject(text[:q]) {
			return ""
		}
		name = k
	}
	return hookEventDoc(name)
}

// jsonKeysAround returns the keys already present in the JSON object that
// encloses off (its direct members only), scanning the text tolerantly so
// a half-typed file still answers. The key being typed at off is left out.
func jsonKeysAround(text []byte, off int) map[string]bool {
	keys := map[string]bool{}
	// Back to the enclosing '{'.
	start := -1
	depth := 0
	for i := off - 1; i >= 0 && start < 0; i-- {
		switch text[i] {
		case '}', ']':
			depth++
		case '{', '[':
			if depth == 0 {
				if text[i] == '{' {
					start = i
				} else {
					return keys
				}
			} else {
				depth--
			}
		}
	}
	if start < 0 {
		return keys
	}
	// Forward over the object's direct members.
	depth = 0
	for i := start + 1; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(text) && text[j] != '"' && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) || text[j] != '"' {
				return keys
			}
			if depth == 0 && !(i < off && off <= j) {
				rest := bytes.TrimLeft(text[j+1:], " \t\r\n")
				if len(rest) > 0 && rest[0] == ':' {
					keys[string(text[i+1:j])] = true
				}
			}
			i = j
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return keys
			}
			depth--
		}
	}
	return keys
}

// hookFileKeys are the keys only a hooks file's top level has; groupKeys
// those of a matcher group (Claude form), around its handlers.
var (
	hookFileKeys = map[string]bool{"hooks": true, "version": true, "description": true}
	groupKeys    = map[string]bool{"matcher": true, "hooks": true}
)

// completeHooks completes a key of a hooks file (or of settings' "hooks")
// by its place: in "hooks", event names; in an event's array, a matcher
// group's keys and handler keys (the Copilot and VS Code forms put
// handlers there); in a group's "hooks" array, handler keys; at a hooks
// file's top, its own keys. ok false leaves the cursor to the caller.
func completeHooks(kind model.Kind, pos jsonPos, text []byte, off int, targets []model.Target) ([]protocol.CompletionItem, bool) {
	top, ok := pos.top()
	if !ok || !top.object || !pos.isKey {
		return nil, false
	}
	parent, _ := pos.parent(1)
	grand, _ := pos.parent(2)
	var keep func(string) bool
	switch {
	case top.key == "hooks":
		return documented(valueItems(hookEventNames(targets), "hook event"), hookEventDoc), true
	case !parent.object && grand.object && grand.key == "hooks" && len(pos.path) >= 3:
		keep = func(k string) bool { return groupKeys[k] || !hookFileKeys[k] }
	case !parent.object && parent.key == "hooks" && len(pos.path) >= 3:
		keep = func(k string) bool { return !groupKeys[k] && !hookFileKeys[k] }
	case len(pos.path) == 1 && kind == model.KindHooks:
		keep = func(k string) bool { return hookFileKeys[k] }
	default:
		return nil, false
	}
	present := jsonKeysAround(text, off)
	items := []protocol.CompletionItem{}
	for _, it := range keyItems(model.KindHooks, targets) {
		if keep(it.Label) && !present[it.Label] {
			items = append(items, it)
		}
	}
	return items, true
}
