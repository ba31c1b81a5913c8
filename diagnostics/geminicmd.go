package diagnostics

// Gemini CLI custom commands (issue #38): .gemini/commands/**/*.toml and an
// extension's commands/**/*.toml. Evidence: google-gemini/gemini-cli at
// commit 5411f113 (v0.49.0-preview.0-112, packages/cli 0.56.0-nightly),
// packages/cli/src/services/FileCommandLoader.ts: parseAndAdaptFile parses
// the file with @iarna/toml and checks it against TomlCommandDefSchema
// (zod: `prompt` a required string, `description` an optional string);
// either failure skips the file with an error in the debug console.
// TOML is read with github.com/pelletier/go-toml/v2 (decoding for errors,
// its unstable parser for the spans of top-level keys).

import (
	"errors"
	"fmt"
	"unicode/utf8"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ahpls-dev/ahpls/model"
)

// geminiCmdRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var geminiCmdRules = []*Rule{gcmdSyntax, gcmdPrompt, gcmdDescriptionType, gcmdDescriptionLong, gcmdUnknownKey}

// gcLoader names the loading code the Gemini CLI rules cite.
const gcLoader = "google-gemini/gemini-cli@5411f113 packages/cli/src/services/FileCommandLoader.ts parseAndAdaptFile"

var gcmdSyntax = &Rule{
	ID:       "gcmd/syntax",
	Summary:  "The command file is not valid TOML; Gemini CLI skips it.",
	Kinds:    "gcmd",
	Severity: "GC SKIP (Error).",
	Evidence: []Evidence{
		{"GC", "SKIP", gcLoader + ": toml.parse throws, \"Failed to parse TOML file\", return null"},
	},
}

var gcmdPrompt = &Rule{
	ID:       "gcmd/prompt",
	Summary:  "The command has no `prompt`, or its `prompt` is not a string; Gemini CLI skips it.",
	Kinds:    "gcmd",
	Severity: "GC SKIP (Error).",
	Evidence: []Evidence{
		{"GC", "SKIP", gcLoader + ": TomlCommandDefSchema `prompt: z.string({required_error: \"The 'prompt' field is required.\"})`, \"Skipping invalid command file\""},
	},
}

var gcmdDescriptionType = &Rule{
	ID:       "gcmd/description-type",
	Summary:  "`description` is not a string; Gemini CLI skips the whole command.",
	Kinds:    "gcmd",
	Severity: "GC SKIP (Error).",
	Evidence: []Evidence{
		{"GC", "SKIP", gcLoader + ": TomlCommandDefSchema `description: z.string().optional()`; a failed safeParse skips the file"},
	},
}

var gcmdDescriptionLong = &Rule{
	ID:       "gcmd/description-long",
	Summary:  "`description` is over 100 characters; Gemini CLI cuts it in the command list.",
	Kinds:    "gcmd",
	Severity: "GC LOSE, shown to people only (Info).",
	Evidence: []Evidence{
		{"GC", "LOSE", gcLoader + ": `description = sanitizeForDisplay(description, 100)`"},
	},
}

var gcmdUnknownKey = &Rule{
	ID:       "gcmd/unknown-key",
	Summary:  "A key other than `prompt` and `description`; Gemini CLI ignores it.",
	Kinds:    "gcmd",
	Severity: "GC IGN (Hint).",
	Evidence: []Evidence{
		{"GC", "IGN", gcLoader + ": TomlCommandDefSchema is a zod object of prompt and description; other keys are stripped"},
	},
}

// maxGeminiDescription is where FileCommandLoader cuts a description.
const maxGeminiDescription = 100

// tomlKey is one top-level key of a TOML document and its spans.
type tomlKey struct {
	name string
	key  model.Span
}

// topLevelTOMLKeys lists the keys of the root table with their spans
// (dotted keys by their first part, tables by their header), as far as the
// text parses.
func topLevelTOMLKeys(text []byte) []tomlKey {
	var p unstable.Parser
	p.Reset(text)
	var out []tomlKey
	inRoot := true
	for p.NextExpression() && len(out) < maxMDCFields {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			inRoot = false
			it := e.Key()
			if it.Next() {
				r := p.Range(it.Node().Data)
				out = append(out, tomlKey{name: string(it.Node().Data), key: model.Span{Start: int(r.Offset), End: int(r.Offset + r.Length)}})
			}
		case unstable.KeyValue:
			if !inRoot {
				continue
			}
			it := e.Key()
			if it.Next() {
				r := p.Range(it.Node().Data)
				out = append(out, tomlKey{name: string(it.Node().Data), key: model.Span{Start: int(r.Offset), End: int(r.Offset + r.Length)}})
			}
		}
	}
	return out
}

// tomlErrorSpan places a decoding error: the row and column go-toml gives,
// as a byte span of one character.
func tomlErrorSpan(text []byte, err error) (model.Span, string) {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		off := 0
		for i := 1; i < row && off < len(text); i++ {
			_, next := lineAt(text, off)
			off = next
		}
		off += col - 1
		off = min(max(off, 0), len(text))
		end := off
		if end < len(text) {
			_, n := utf8.DecodeRune(text[end:])
			end += n
		}
		return model.Span{Start: off, End: end}, de.Error()
	}
	return model.Span{Start: 0, End: firstLineEnd(text)}, err.Error()
}

func checkGeminiCommand(f File, r *reporter) {
	var doc map[string]any
	if err := toml.Unmarshal(f.Text, &doc); err != nil {
		span, msg := tomlErrorSpan(f.Text, err)
		r.verdict(gcmdSyntax, span, model.Verdicts{model.TargetGeminiCLI: model.Skip},
			"%s skips this command: the file is not valid TOML ("+msg+").")
		return
	}
	keys := map[string]tomlKey{}
	for _, k := range topLevelTOMLKeys(f.Text) {
		keys[k.name] = k
	}
	at := func(name string) model.Span {
		if k, ok := keys[name]; ok {
			return k.key
		}
		return model.Span{Start: 0, End: firstLineEnd(f.Text)}
	}
	switch p, ok := doc["prompt"]; {
	case !ok:
		r.verdict(gcmdPrompt, at(""), model.Verdicts{model.TargetGeminiCLI: model.Skip},
			"%s skips this command: it has no `prompt` (the text the command sends).")
	default:
		if _, s := p.(string); !s {
			r.verdict(gcmdPrompt, at("prompt"), model.Verdicts{model.TargetGeminiCLI: model.Skip},
				fmt.Sprintf("%%s skips this command: `prompt` must be a string, not %s.", tomlType(p)))
		}
	}
	if d, ok := doc["description"]; ok {
		if s, isStr := d.(string); !isStr {
			r.verdict(gcmdDescriptionType, at("description"), model.Verdicts{model.TargetGeminiCLI: model.Skip},
				fmt.Sprintf("%%s skips this command: `description` must be a string, not %s.", tomlType(d)))
		} else if n := utf8.RuneCountInString(s); n > maxGeminiDescription {
			r.verdict(gcmdDescriptionLong, at("description"), model.Verdicts{model.TargetGeminiCLI: model.Spec},
				fmt.Sprintf("Gemini CLI shows the first %d of this description's %d characters in its command list.", maxGeminiDescription, n))
		}
	}
	for name := range doc {
		if name == "prompt" || name == "description" {
			continue
		}
		r.verdict(gcmdUnknownKey, at(name), model.Verdicts{model.TargetGeminiCLI: model.Ignore},
			"Gemini CLI reads `prompt` and `description`; `"+name+"` is ignored.")
	}
}

// tomlType names a decoded TOML value's type for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}
