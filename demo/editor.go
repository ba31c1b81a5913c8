package demo

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/tools"
)

// headlessEditor stands in for VS Code or Neovim: it is the hostlink.Editor
// and tools.Editor of the demo, remembering what an editor would show.
type headlessEditor struct {
	ws  string
	say func(step, text string, data map[string]any)

	mu     sync.Mutex
	diags  map[string][]model.Diagnostic
	status string
}

func newHeadlessEditor(ws string, say func(string, string, map[string]any)) *headlessEditor {
	return &headlessEditor{ws: ws, say: say, diags: map[string][]model.Diagnostic{}}
}

func (e *headlessEditor) Folders() []string          { return []string{e.ws} }
func (e *headlessEditor) Text(string) ([]byte, bool) { return nil, false }
func (e *headlessEditor) Log(string)                 {}
func (e *headlessEditor) HostStatus(state, message string) {
	e.mu.Lock()
	e.status = state
	e.mu.Unlock()
}

func (e *headlessEditor) PublishDiagnostics(absPath string, diags []model.Diagnostic) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(diags) == 0 {
		delete(e.diags, absPath)
		return
	}
	e.diags[absPath] = append([]model.Diagnostic(nil), diags...)
}

// exclusions are the files the link left out of publication, with why.
func (e *headlessEditor) exclusions() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for p, ds := range e.diags {
		for _, d := range ds {
			if d.Rule == "publish/excluded" {
				rel, _ := filepath.Rel(e.ws, p)
				out = append(out, fmt.Sprintf("%s (%s)", filepath.ToSlash(rel), strings.TrimPrefix(d.Message, "Not published to agent sessions: ")))
			}
		}
	}
	sort.Strings(out)
	return out
}

// Diagnostics backs the built-in ahpls_diagnostics tool with the same
// rules `ahpls check` runs.
func (e *headlessEditor) Diagnostics(ctx context.Context, uri string) ([]tools.Diagnostic, error) {
	findings, err := check.Run([]string{e.ws}, diagnostics.Options{Checkers: []diagnostics.Checker{tools.Checker()}})
	if err != nil {
		return nil, err
	}
	var out []tools.Diagnostic
	for _, f := range findings {
		u := "file://" + filepath.ToSlash(filepath.Join(e.ws, filepath.FromSlash(f.Rel)))
		if uri != "" && uri != u {
			continue
		}
		out = append(out, tools.Diagnostic{
			URI:      u,
			Range:    tools.Range{Start: tools.Position{Line: f.Line - 1, Character: f.Column - 1}, End: tools.Position{Line: f.EndLine - 1, Character: f.EndColumn - 1}},
			Severity: f.Level, Message: f.Message, Source: "ahpls", Code: f.Rule,
		})
	}
	return out, nil
}

// ShowDocument is where an editor would open the file; the demo says so.
func (e *headlessEditor) ShowDocument(ctx context.Context, uri string, rng *tools.Range) error {
	e.say("editor", "the editor would open "+uri, map[string]any{"uri": uri})
	return nil
}
