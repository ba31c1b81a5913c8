package hostlink

// The folder part of the link: the editor's folders as it publishes
// them, each with its plugin builder, tool registry and enablement store,
// fixed when the link is made; the rules check that gates publication.

import (
	"crypto/sha256"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/enablement"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/settings"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/virtualplugin"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// folderSet holds the folders. Link embeds it.
type folderSet struct {
	cfg *Config
	ed  Editor
	log *slog.Logger

	folders []*folder // fixed by New, sorted by key

	buildMu sync.Mutex // serialises builds (see Link.buildFolder)
	// verdicts hold, under buildMu, the text each file left out of
	// publication was judged on (its exclusion's spans and hash).
	verdicts map[string][]byte
	checks   atomic.Int64 // rules runs of the link's own, see Checks
}

// newFolder prepares one folder. Only the first folder's registry gets the
// built-in editor tools: they cover the whole folderSet, and one copy per
// folder would only produce renamed duplicates.
func (l *folderSet) newFolder(abs, storeDir string, first bool) (*folder, error) {
	f := &folder{abs: abs, uri: virtualplugin.FolderURI(abs), key: virtualplugin.FolderKey(abs)}
	check := func(rel string, kind model.Kind, text []byte) string {
		return l.check(filepath.Join(abs, filepath.FromSlash(rel)), rel, kind, text)
	}
	b, err := virtualplugin.NewBuilder(abs, virtualplugin.Options{Check: check, Overlay: l.ed.Text, Exclude: l.matcher(abs)})
	if err != nil {
		return nil, err
	}
	f.builder = b
	var te tools.Editor
	if first {
		te = l.cfg.ToolsEditor
	}
	reg, err := tools.NewRegistry(tools.Options{Root: abs, Editor: te, Trusted: l.cfg.TrustWorkspaceTools, OnTestDiagnostics: l.cfg.OnTestDiagnostics})
	if err != nil {
		return nil, err
	}
	f.tools = reg
	if len(l.cfg.Tools) > 0 {
		for _, p := range reg.SetSettings(l.cfg.Tools) {
			l.log.Warn("ahpls.tools setting", "problem", p.Message, "path", p.Path)
		}
	}
	f.store = enablement.OpenClientStore(storeDir, f.uri, l.log)
	return f, nil
}

// matcher is a folder's exclusions now: the `ahpls.exclude` globs
// (Config.Excludes, else Config.Exclude) and its .ahpls/config.json.
func (l *folderSet) matcher(abs string) *wsfs.Matcher {
	globs := l.cfg.Exclude
	if l.cfg.Excludes != nil {
		globs = l.cfg.Excludes()
	}
	globs, _ = settings.Settings{Exclude: globs}.FolderExclude(abs) // a bad file was reported by the server
	ex, err := wsfs.NewMatcher(globs)
	if err != nil {
		return nil // invalid globs were reported with the settings; keep the defaults
	}
	return ex
}

// reexclude gives a folder's builder its exclusions now. Under buildMu, so
// of two changes in a row the one applied last read the newest globs.
func (l *folderSet) reexclude(f *folder) {
	l.buildMu.Lock()
	defer l.buildMu.Unlock()
	f.builder.SetExclude(l.matcher(f.abs))
}

// check is the Builder's publication gate: a file with an Error-severity
// finding is left out, with that finding as the reason. The findings come
// from the language server when it has them for this text (Config.Findings);
// only otherwise does the link run the rules itself.
func (l *folderSet) check(abs, rel string, kind model.Kind, text []byte) string {
	var diags []model.Diagnostic
	ok := false
	if l.cfg.Findings != nil {
		diags, ok = l.cfg.Findings(abs, kind, text)
	}
	if !ok {
		opts := l.cfg.RuleOptions
		if l.cfg.Rules != nil {
			opts = l.cfg.Rules()
		}
		diags = diagnostics.Check(diagnostics.File{Path: rel, Kind: kind, Text: text}, opts)
		l.checks.Add(1)
	}
	for _, d := range diags {
		if d.Severity == model.SeverityError {
			l.verdicts[abs] = text // under buildMu, like every Build
			return d.Message
		}
	}
	delete(l.verdicts, abs)
	return ""
}

// Checks is how many times the link ran the rules itself (Config.Findings
// had no answer): a cost meter for tests.
func (l *folderSet) Checks() int64 { return l.checks.Load() }

// ToolRegistry returns the registry that offers a tool under its wire name
// (as of the last publication), for the tool executor.
func (l *folderSet) ToolRegistry(wireName string) (*tools.Registry, bool) {
	for _, f := range l.folders {
		if _, ok := f.tools.Lookup(wireName); ok {
			return f.tools, true
		}
	}
	return nil, false
}

// Registries are the per-folder tool registries, in folder order.
func (l *folderSet) Registries() []*tools.Registry {
	out := make([]*tools.Registry, len(l.folders))
	for i, f := range l.folders {
		out[i] = f.tools
	}
	return out
}

// loadToolConfig installs .ahpls/tools.json from the open buffer or disk.
func (l *folderSet) loadToolConfig(f *folder) {
	abs := filepath.Join(f.abs, filepath.FromSlash(tools.ConfigFile))
	var probs []tools.Problem
	if text, ok := l.ed.Text(abs); ok {
		probs = f.tools.SetWorkspaceConfig(text)
	} else {
		var err error
		probs, err = f.tools.LoadWorkspaceConfig()
		if err != nil {
			l.log.Warn("tool config not loaded", "file", abs, "err", err)
		}
	}
	for _, p := range probs {
		if p.Severity == tools.SeverityError {
			l.log.Info("tool config problem", "file", abs, "problem", p.Message)
		}
	}
}

// readText is a file's current text: the open buffer, else the disk.
func (l *folderSet) readText(abs string) ([]byte, bool) {
	if t, ok := l.ed.Text(abs); ok {
		return t, true
	}
	// The safe reader: regular files only, opened without blocking, so a
	// FIFO in the folderSet cannot stall the link.
	b, err := wsfs.ReadFile(abs, virtualplugin.MaxFileSize+1)
	if err != nil || len(b) > virtualplugin.MaxFileSize {
		return nil, false
	}
	return b, true
}

// scan builds one folder's snapshot and its exclusion diagnostics, each
// with the hash of the text its verdict was made on. Called with buildMu
// held (Link.buildFolder), like every Build: check writes verdicts.
func (l *folderSet) scan(f *folder) (*virtualplugin.Snapshot, map[string][]model.Diagnostic, map[string][32]byte) {
	snap, err := f.builder.Build()
	if err != nil {
		l.log.Warn("workspace folder not scanned", "folder", f.abs, "err", err)
		snap = &virtualplugin.Snapshot{Folder: f.builder.Folder(), Key: f.key}
	}
	excl := map[string][]model.Diagnostic{}
	sums := map[string][32]byte{}
	for _, x := range snap.Exclusions {
		abs := filepath.Join(f.abs, filepath.FromSlash(x.Path))
		// The text the verdict was made on, not whatever the buffer holds
		// by now: the finding is tagged with its hash (SumEditor).
		text, ok := l.verdicts[abs]
		if !ok {
			text, _ = l.readText(abs)
		}
		sums[abs] = sha256.Sum256(text)
		excl[abs] = append(excl[abs], model.Diagnostic{
			Rule:     RuleExcluded,
			Severity: model.SeverityWarning,
			Message:  "Not published to agent sessions: " + x.Reason,
			Span:     firstLine(text),
		})
	}
	return snap, excl, sums
}

// pluginFolder finds the folder whose plugins live under a virtual URI
// (plugin URI or MCP key).
func (l *folderSet) pluginFolder(key string) *folder {
	for _, f := range l.folders {
		if strings.HasPrefix(key, "virtual://ahpls/"+f.key+"/") {
			return f
		}
	}
	return nil
}
