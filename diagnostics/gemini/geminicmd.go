package gemini

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
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/diagnostics/core/syntax"

	"errors"
	"fmt"
	"unicode/utf8"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ahpls-dev/ahpls/model"
)

// GeminiCmdRules are the rules this file reports; Rules() lists them from ruleTable (rules.go).
var GeminiCmdRules = []*core.Rule{gcmdSyntax, gcmdPrompt, gcmdDescriptionType, gcmdDescriptionLong, gcmdUnknownKey}

// gcLoader names the loading code the Gemini CLI rules cite.
const gcLoader = "google-gemini/gemini-cli@5411f113 packages/cli/src/services/FileCommandLoader.ts parseAndAdaptFile"

var gcmdSyntax = &core.Rule{
	ID:       "gcmd/syntax",
	Summary:  "The command file is not valid TOML; Gemini CLI skips it.",
	Kinds:    "gcmd",
	Severity: "GC SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "SKIP", Source: gcLoader + ": toml.parse throws, \"Failed to parse TOML file\", return null"},
	},
}

var gcmdPrompt = &core.Rule{
	ID:       "gcmd/prompt",
	Summary:  "The command has no `prompt`, or its `prompt` is not a string; Gemini CLI skips it.",
	Kinds:    "gcmd",
	Severity: "GC SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "SKIP", Source: gcLoader + ": TomlCommandDefSchema `prompt: z.string({required_error: \"The 'prompt' field is required.\"})`, \"Skipping invalid command file\""},
	},
}

var gcmdDescriptionType = &core.Rule{
	ID:       "gcmd/description-type",
	Summary:  "`description` is not a string; Gemini CLI skips the whole command.",
	Kinds:    "gcmd",
	Severity: "GC SKIP (Error).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "SKIP", Source: gcLoader + ": TomlCommandDefSchema `description: z.string().optional()`; a failed safeParse skips the file"},
	},
}

var gcmdDescriptionLong = &core.Rule{
	ID:       "gcmd/description-long",
	Summary:  "`description` is over 100 characters; Gemini CLI cuts it in the command list.",
	Kinds:    "gcmd",
	Severity: "GC LOSE, shown to people only (Info).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "LOSE", Source: gcLoader + ": `description = sanitizeForDisplay(description, 100)`"},
	},
}

var gcmdUnknownKey = &core.Rule{
	ID:       "gcmd/unknown-key",
	Summary:  "A key other than `prompt` and `description`; Gemini CLI ignores it.",
	Kinds:    "gcmd",
	Severity: "GC IGN (Hint).",
	Evidence: []core.Evidence{
		{Consumer: "GC", Reaction: "IGN", Source: gcLoader + ": TomlCommandDefSchema is a zod object of prompt and description; other keys are stripped"},
	},
}

// maxGeminiDescription is where FileCommandLoader cuts a description.
const maxGeminiDescription = 100

// tomlKey is one top-level key of a TOML document and its spans.
type tomlKey struct {
	name string
	Key  model.Span
}

// TopLevelTOMLKeys lists the keys of the root table with their spans
// (dotted keys by their first part, tables by their header), as far as the
// text parses.
func TopLevelTOMLKeys(text []byte) []tomlKey {
	var p unstable.Parser
	p.Reset(text)
	var out []tomlKey
	inRoot := true
	for p.NextExpression() && len(out) < syntax.MaxMDCFields {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			inRoot = false
			it := e.Key()
			if it.Next() {
				r := p.Range(it.Node().Data)
				out = append(out, tomlKey{name: string(it.Node().Data), Key: model.Span{Start: int(r.Offset), End: int(r.Offset + r.Length)}})
			}
		case unstable.KeyValue:
			if !inRoot {
				continue
			}
			it := e.Key()
			if it.Next() {
				r := p.Range(it.Node().Data)
				out = append(out, tomlKey{name: string(it.Node().Data), Key: model.Span{Start: int(r.Offset), End: int(r.Offset + r.Length)}})
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
			_, next := syntax.LineAt(text, off)
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
	return model.Span{Start: 0, End: core.FirstLineEnd(text)}, err.Error()
}

func CheckGeminiCommand(f core.File, r *core.Reporter) {
	var doc map[string]any
	if err := toml.Unmarshal(f.Text, &doc); err != nil {
		span, msg := tomlErrorSpan(f.Text, err)
		r.Verdict(gcmdSyntax, span, model.Verdicts{model.TargetGeminiCLI: model.Skip},
			"%s skips this command: the file is not valid TOML ("+msg+").")
		return
	}
	keys := map[string]tomlKey{}
	for _, k := range TopLevelTOMLKeys(f.Text) {
		keys[k.name] = k
	}
	at := func(name string) model.Span {
		if k, ok := keys[name]; ok {
			return k.Key
		}
		return model.Span{Start: 0, End: core.FirstLineEnd(f.Text)}
	}
	switch p, ok := doc["prompt"]; {
	case !ok:
		r.Verdict(gcmdPrompt, at(""), model.Verdicts{model.TargetGeminiCLI: model.Skip},
			"%s skips this command: it has no `prompt` (the text the command sends).")
	default:
		if _, s := p.(string); !s {
			r.Verdict(gcmdPrompt, at("prompt"), model.Verdicts{model.TargetGeminiCLI: model.Skip},
				fmt.Sprintf("%%s skips this command: `prompt` must be a string, not %s.", tomlType(p)))
		}
	}
	if d, ok := doc["description"]; ok {
		if s, isStr := d.(string); !isStr {
			r.Verdict(gcmdDescriptionType, at("description"), model.Verdicts{model.TargetGeminiCLI: model.Skip},
				fmt.Sprintf("%%s skips this command: `description` must be a string, not %s.", tomlType(d)))
		} else if n := utf8.RuneCountInString(s); n > maxGeminiDescription {
			r.Verdict(gcmdDescriptionLong, at("description"), model.Verdicts{model.TargetGeminiCLI: model.Spec},
				fmt.Sprintf("Gemini CLI shows the first %d of this description's %d characters in its command list.", maxGeminiDescription, n))
		}
	}
	for name := range doc {
		if name == "prompt" || name == "description" {
			continue
		}
		r.Verdict(gcmdUnknownKey, at(name), model.Verdicts{model.TargetGeminiCLI: model.Ignore},
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
