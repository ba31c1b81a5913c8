package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiagnosticsTool(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644))
	mainURI := "file://" + filepath.Join(root, "main.go")
	ed := &fakeEditor{diags: []Diagnostic{
		{URI: mainURI, Range: Range{Start: Position{Line: 11, Character: 1}}, Severity: "error", Message: "undefined: foo", Source: "compiler", Code: "UndeclaredName"},
		{URI: "file://" + filepath.Join(root, "SKILL.md"), Range: Range{Start: Position{Line: 0, Character: 0}}, Severity: "warning", Message: "missing description"},
	}}
	r, err := NewRegistry(Options{Root: root, Editor: ed})
	require.NoError(t, err)

	res := r.Run(context.Background(), "ahpls_diagnostics", nil, nil)
	require.True(t, res.Success, "%+v", res)
	assert.Equal(t, "Collected 2 diagnostics", res.PastTenseMessage)
	assert.Equal(t, "main.go:12:2: error: undefined: foo (compiler UndeclaredName)\nSKILL.md:1:1: warning: missing description\n", res.Output)
	b, err := json.Marshal(res.Wire().StructuredContent)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"count":2`)

	// One file, by relative path or by URI.
	for _, in := range []string{`{"uri":"main.go"}`, `{"uri":"` + mainURI + `"}`} {
		res = r.Run(context.Background(), "ahpls_diagnostics", []byte(in), nil)
		require.True(t, res.Success, "%+v", res)
		assert.Equal(t, "Collected 1 diagnostic", res.PastTenseMessage, in)
	}
	// Outside the workspace: refused, the editor is not asked.
	for _, in := range []string{`{"uri":"../x.go"}`, `{"uri":"file:///etc/passwd"}`, `{"uri":"/etc/passwd"}`, `{"uri":"http://example.com/x"}`} {
		res = r.Run(context.Background(), "ahpls_diagnostics", []byte(in), nil)
		assert.False(t, res.Success, in)
		assert.Equal(t, CodeInvalidInput, res.ErrorCode, in)
	}
	res = r.Run(context.Background(), "ahpls_diagnostics", []byte(`{"uri":7}`), nil)
	assert.Equal(t, CodeInvalidInput, res.ErrorCode)
}

func TestOpenFileTool(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "pkg", "a.go"), []byte("package pkg\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("x"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "link.txt")))
	ed := &fakeEditor{}
	r, err := NewRegistry(Options{Root: root, Editor: ed})
	require.NoError(t, err)
	want := "file://" + filepath.Join(root, "pkg", "a.go")

	cases := []struct {
		input string
		rng   *Range
	}{
		{`{"uri":"pkg/a.go"}`, nil},
		{`{"uri":"pkg/a.go","startLine":3}`, &Range{Start: Position{2, 0}, End: Position{2, 0}}},
		{`{"uri":"pkg/a.go","startLine":3,"startColumn":5,"endLine":4,"endColumn":2}`, &Range{Start: Position{2, 4}, End: Position{3, 1}}},
		{`{"uri":"pkg/a.go","startLine":5,"endLine":2}`, &Range{Start: Position{4, 0}, End: Position{4, 0}}},
		{`{"uri":"` + want + `","startLine":1}`, &Range{Start: Position{0, 0}, End: Position{0, 0}}},
	}
	for _, c := range cases {
		ed.shown, ed.ranges = nil, nil
		res := r.Run(context.Background(), "ahpls_open_file", []byte(c.input), nil)
		require.True(t, res.Success, "%s: %+v", c.input, res)
		require.Len(t, ed.shown, 1)
		assert.Equal(t, want, ed.shown[0], c.input)
		assert.Equal(t, c.rng, ed.ranges[0], c.input)
	}
	ed.shown = nil
	for _, in := range []string{`{"uri":"../secret.txt"}`, `{"uri":"link.txt"}`, `{"uri":"missing.go"}`, `{}`, `{"uri":"pkg/a.go","startLine":0}`} {
		res := r.Run(context.Background(), "ahpls_open_file", []byte(in), nil)
		assert.False(t, res.Success, in)
		assert.Equal(t, CodeInvalidInput, res.ErrorCode, in)
	}
	assert.Empty(t, ed.shown, "the editor was never asked to open a refused file")
}

type failingEditor struct{}

func (failingEditor) Diagnostics(context.Context, string) ([]Diagnostic, error) {
	return nil, errors.New("client went away")
}
func (failingEditor) ShowDocument(context.Context, string, *Range) error {
	return errors.New("showDocument not supported")
}

func TestEditorErrorsBecomeFailedResults(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a"), nil, 0o644))
	r, err := NewRegistry(Options{Root: root, Editor: failingEditor{}})
	require.NoError(t, err)
	res := r.Run(context.Background(), "ahpls_diagnostics", nil, nil)
	assert.Equal(t, CodeEditor, res.ErrorCode)
	assert.Contains(t, res.ErrorMessage, "client went away")
	res = r.Run(context.Background(), "ahpls_open_file", []byte(`{"uri":"a"}`), nil)
	assert.Equal(t, CodeEditor, res.ErrorCode)
	assert.Contains(t, res.ErrorMessage, "showDocument not supported")
}
