package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Position is a zero-based LSP position. Character is passed through
// unchanged: converting it to the negotiated position encoding is the
// Editor's job, because only the server has the document text.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range, End exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Diagnostic is one current diagnostic as the editor tools report it.
// Severity is "error", "warning", "information" or "hint".
type Diagnostic struct {
	URI      string `json:"uri"`
	Range    Range  `json:"range"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source,omitempty"`
	Code     string `json:"code,omitempty"`
}

// Editor is what the language server provides to the built-in tools.
type Editor interface {
	// Diagnostics returns the current diagnostics of one document, or of
	// the whole workspace when uri is "".
	Diagnostics(ctx context.Context, uri string) ([]Diagnostic, error)
	// ShowDocument asks the editor to open uri (window/showDocument),
	// selecting rng when it is not nil.
	ShowDocument(ctx context.Context, uri string, rng *Range) error
}

type builtinFunc func(ctx context.Context, r *Registry, d *Definition, input map[string]any, onProgress ProgressFunc) Result

// Names of the built-in editor tools (before Prefix).
const (
	BuiltinDiagnostics = "diagnostics"
	BuiltinOpenFile    = "open_file"
)

// maxStructuredDiagnostics bounds structuredContent; the text output is
// bounded by DefaultMaxOutputBytes like any tool output.
const maxStructuredDiagnostics = 200

const uriProperty = `"uri":{"type":"string","minLength":1,"description":"A file:// URI or a path relative to the workspace root."}`

func builtinDefinitions() []*Definition {
	t, f := true, false
	defs := []*Definition{
		{
			Name:        BuiltinDiagnostics,
			Title:       "Workspace diagnostics",
			Description: "Lists the current errors and warnings the editor shows for one file, or for the whole workspace when uri is omitted. Lines and columns in the text are 1-based.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + uriProperty + `},"additionalProperties":false}`),
			Annotations: &Annotations{Title: "Workspace diagnostics", ReadOnlyHint: &t, DestructiveHint: &f, IdempotentHint: &t, OpenWorldHint: &f},
			Source:      SourceBuiltin,
			builtin:     runDiagnostics,
		},
		{
			Name:        BuiltinOpenFile,
			Title:       "Open file in editor",
			Description: "Opens a workspace file in the user's editor and optionally selects a range. Lines and columns are 1-based; endLine/endColumn default to the start.",
			InputSchema: json.RawMessage(`{"type":"object","required":["uri"],"properties":{` + uriProperty +
				`,"startLine":{"type":"integer","minimum":1},"startColumn":{"type":"integer","minimum":1}` +
				`,"endLine":{"type":"integer","minimum":1},"endColumn":{"type":"integer","minimum":1}},"additionalProperties":false}`),
			Annotations: &Annotations{Title: "Open file in editor", ReadOnlyHint: &t, DestructiveHint: &f, IdempotentHint: &t, OpenWorldHint: &f},
			Source:      SourceBuiltin,
			builtin:     runOpenFile,
		},
	}
	for _, d := range defs {
		if err := d.compileInputSchema(); err != nil {
			panic("built-in tool " + d.Name + ": " + err.Error())
		}
	}
	return defs
}

// workspaceURI maps a model-supplied file URI or workspace-relative path to
// a file URI inside the workspace, and the path relative to the root for
// display. Files that do not exist are allowed unless mustExist; existing
// ones must resolve (after symlinks) inside the workspace.
func (r *Registry) workspaceURI(s string, mustExist bool) (uri, rel string, err error) {
	var abs string
	if strings.Contains(s, "://") || strings.HasPrefix(s, "file:") {
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) {
			return "", "", fmt.Errorf("%q is not a file URI or workspace-relative path", s)
		}
		abs = filepath.Clean(u.Path)
		rel, err = filepath.Rel(r.root, abs)
		if err != nil || !within(r.root, abs) {
			// The URI may use the symlink-free spelling of the root.
			if rel2, err2 := filepath.Rel(r.realRoot, abs); err2 == nil && within(r.realRoot, abs) {
				rel = rel2
			} else {
				return "", "", fmt.Errorf("%q: %w", s, ErrOutsideWorkspace)
			}
		}
	} else {
		if err := checkRelative(s); err != nil {
			return "", "", err
		}
		rel = filepath.Clean(s)
	}
	if _, err := resolveInside(r.realRoot, rel); err != nil {
		if mustExist || errors.Is(err, ErrOutsideWorkspace) {
			return "", "", err
		}
	}
	return (&url.URL{Scheme: "file", Path: filepath.Join(r.root, rel)}).String(), rel, nil
}

func runDiagnostics(ctx context.Context, r *Registry, d *Definition, input map[string]any, _ ProgressFunc) Result {
	uri := ""
	if s, _ := input["uri"].(string); s != "" {
		u, _, err := r.workspaceURI(s, false)
		if err != nil {
			return failure(CodeInvalidInput, "Could not collect diagnostics: "+err.Error())
		}
		uri = u
	}
	diags, err := r.editor.Diagnostics(ctx, uri)
	if err != nil {
		return failure(CodeEditor, "Could not collect diagnostics: "+err.Error())
	}
	buf := newOutBuf(DefaultMaxOutputBytes)
	for _, dg := range diags {
		where := dg.URI
		if u, err := url.Parse(dg.URI); err == nil && u.Scheme == "file" {
			if rel, err := filepath.Rel(r.root, u.Path); err == nil && within(r.root, filepath.Clean(u.Path)) {
				where = rel
			}
		}
		line := fmt.Sprintf("%s:%d:%d: %s: %s", where, dg.Range.Start.Line+1, dg.Range.Start.Character+1, dg.Severity, dg.Message)
		if dg.Source != "" || dg.Code != "" {
			line += " (" + strings.TrimSpace(dg.Source+" "+dg.Code) + ")"
		}
		buf.Write([]byte(line + "\n"))
	}
	text, cut := buf.Text()
	shown := diags
	if len(shown) > maxStructuredDiagnostics {
		shown = shown[:maxStructuredDiagnostics]
	}
	if shown == nil {
		shown = []Diagnostic{}
	}
	msg := fmt.Sprintf("Collected %d %s", len(diags), plural("diagnostic", len(diags)))
	if len(diags) == 0 {
		text = "No diagnostics.\n"
	}
	return Result{
		Success: true, PastTenseMessage: msg, Output: text, TotalBytes: buf.total, CutBytes: cut,
		Structured: map[string]any{"count": len(diags), "diagnostics": shown, "truncated": len(shown) < len(diags)},
	}
}

func runOpenFile(ctx context.Context, r *Registry, d *Definition, input map[string]any, _ ProgressFunc) Result {
	s, _ := input["uri"].(string)
	uri, rel, err := r.workspaceURI(s, true)
	if err != nil {
		return failure(CodeInvalidInput, "Did not open the file: "+err.Error())
	}
	var rng *Range
	if sl, ok := intInput(input, "startLine"); ok {
		sc, _ := intInput(input, "startColumn")
		sc = max(sc, 1)
		el, ok := intInput(input, "endLine")
		if !ok {
			el = sl
		}
		ec, ok := intInput(input, "endColumn")
		if !ok {
			ec = sc
		}
		start := Position{Line: sl - 1, Character: sc - 1}
		end := Position{Line: el - 1, Character: max(ec, 1) - 1}
		if end.Line < start.Line || (end.Line == start.Line && end.Character < start.Character) {
			end = start
		}
		rng = &Range{Start: start, End: end}
	}
	if err := r.editor.ShowDocument(ctx, uri, rng); err != nil {
		return failure(CodeEditor, "Could not open "+rel+": "+err.Error())
	}
	msg := "Opened " + rel
	if rng != nil {
		msg += fmt.Sprintf(" at line %d", rng.Start.Line+1)
	}
	return Result{Success: true, PastTenseMessage: msg, ExitCode: 0}
}

// intInput reads an integer input validated by the schema.
func intInput(input map[string]any, name string) (int, bool) {
	v, ok := input[name]
	if !ok || v == nil {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		f, ferr := n.Float64() // 3.0 is an integer to JSON Schema
		if ferr != nil {
			return 0, false
		}
		i = int64(f)
	}
	const maxLine = 1 << 30
	return int(min(max(i, 0), maxLine)), true
}
