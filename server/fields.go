package server

import (
	"bytes"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// fieldsOf returns the field catalogue of a kind from the rule rooms:
// frontmatter keys for Markdown kinds, keys at every level for JSON kinds.
func fieldsOf(kind model.Kind) []diagnostics.FieldInfo {
	if kind.Markdown() {
		return diagnostics.Fields(kind)
	}
	return diagnostics.JSONFields(kind)
}

func lookupField(kind model.Kind, key string) (diagnostics.FieldInfo, bool) {
	for _, f := range fieldsOf(kind) {
		if f.Key == key {
			return f, true
		}
	}
	return diagnostics.FieldInfo{}, false
}

func readers(ts []model.Target) string {
	names := make([]string, 0, len(ts))
	seen := map[string]bool{}
	for _, t := range ts {
		n := t.DisplayName()
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

func fieldDoc(f diagnostics.FieldInfo) string {
	var b strings.Builder
	b.WriteString(f.Doc)
	if len(f.Values) > 0 {
		fmt.Fprintf(&b, "\n\nValues: `%s`", strings.Join(f.Values, "`, `"))
	}
	if len(f.Targets) > 0 {
		fmt.Fprintf(&b, "\n\nRead by: %s", readers(f.Targets))
	}
	return b.String()
}

// keyDetail is a key's one-line completion detail: where it goes and who
// reads it.
func keyDetail(kind model.Kind, f diagnostics.FieldInfo) string {
	where := "JSON key"
	if kind.Markdown() {
		where = "frontmatter key"
	}
	if len(f.Targets) == 0 {
		return where
	}
	return where + " · " + readers(f.Targets)
}

// keyItems offers the kind's keys; keys an effective target reads sort first.
func keyItems(kind model.Kind, targets []model.Target) []protocol.CompletionItem {
	eff := map[model.Target]bool{}
	for _, t := range targets {
		eff[t] = true
	}
	seen := map[string]bool{}
	out := []protocol.CompletionItem{}
	for i, f := range fieldsOf(kind) {
		if seen[f.Key] {
			continue
		}
		seen[f.Key] = true
		rank := "1"
		for _, t := range f.Targets {
			if eff[t] {
				rank = "0"
				break
			}
		}
		item := protocol.CompletionItem{
			Label:         f.Key,
			Kind:          protocol.CompletionItemKindProperty,
			Detail:        protocol.NewOptional(keyDetail(kind, f)),
			Documentation: &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: fieldDoc(f)},
			SortText:      protocol.NewOptional(fmt.Sprintf("%s%04d", rank, i)),
		}
		if kind.Markdown() {
			item.InsertText = protocol.NewOptional(f.Key + ": ")
		}
		out = append(out, item)
	}
	return out
}

// fieldValues lists the enumerated values of a key (booleans included).
func fieldValues(kind model.Kind, key string) []string {
	if f, ok := lookupField(kind, key); ok && len(f.Values) > 0 {
		return f.Values
	}
	if boolKeys[key] {
		return []string{"true", "false"}
	}
	return nil
}

// fieldHover documents the key under the cursor (or whose value holds it).
func fieldHover(fs *fileState, off int) string {
	text := fs.snap.Text
	var key string
	if fs.kind.Markdown() {
		k, _, _, ok := diagnostics.KeyAt(text, off)
		if !ok {
			return ""
		}
		key = k
	} else {
		k, ok := jsonKeyAt(text, off)
		if !ok {
			return ""
		}
		key = k
		if fs.kind == model.KindConfig {
			if doc, ok := diagnostics.ConfigRuleDoc(key); ok {
				return doc // a rule id in an override's "rules"
			}
		}
	}
	f, ok := lookupField(fs.kind, key)
	if !ok {
		return ""
	}
	return fmt.Sprintf("**%s**\n\n%s", f.Key, fieldDoc(f))
}

// jsonKeyAt finds the JSON object key whose quoted string holds off. It
// scans the line only: keys never span lines in the files we read.
func jsonKeyAt(text []byte, off int) (string, bool) {
	if off < 0 || off > len(text) {
		return "", false
	}
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	end := len(text)
	if i := bytes.IndexByte(text[off:], '\n'); i >= 0 {
		end = off + i
	}
	line := text[start:end]
	// Walk the line's strings; report the one around off if a ':' follows.
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return "", false
		}
		if start+i <= off && off <= start+j {
			rest := bytes.TrimLeft(line[j+1:], " \t")
			if len(rest) > 0 && rest[0] == ':' {
				return string(line[i+1 : j]), true
			}
			return "", false
		}
		i = j
	}
	return "", false
}
