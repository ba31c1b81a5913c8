// Package settings is the one place ahpls's settings are defined and
// decoded: the editor's `ahpls` section (rule keys, exclusions and the
// agent-host keys) and each workspace folder's .ahpls/config.json. The
// language server parses the section once per change and everyone reads
// that one value; the CLI and the host link read a folder's file through
// the same accessor (Settings.FolderExclude).
//
// Where to start: Specs (spec.go: every setting written once — name, JSON
// schema with type, default and enum, one line of doc — and the client-only
// ones; VS Code's package.json block and the README tables are generated
// from it), Settings and Parse (settings.go), Host (host.go, the keys the
// agent-host bridge follows), WorkspaceConfig (workspace.go). A new
// setting: its Spec, its field and case in Parse, its use; then go
// generate in editors/vscode/internal/rulesettings.
package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Settings is the parsed `ahpls` settings section (customization-formats.md
// §1): the one settings type of the process. The language server decodes
// it once per change (Parse) and hands the same value to whoever needs a
// part of it: the rule keys to the rule engine (Options), the host keys
// (Host) to the agent-host bridge. Raw keeps the whole section for keys
// nobody decodes.
type Settings struct {
	Targets        []model.Target
	ImpliedTargets bool
	Rules          map[string]model.Severity

	// Host are the agent-host keys (host.go).
	Host Host
	// Exclude are `ahpls.exclude` globs (wsfs.Matcher syntax): matching
	// files get no diagnostics and are not scanned or published. The
	// workspace's .ahpls/config.json adds its own.
	Exclude []string
	// FileWatcher is when the language server watches the workspace
	// folders itself: FileWatcherOn (the default), FileWatcherFallback or
	// FileWatcherOff.
	FileWatcher string

	Raw json.RawMessage
}

// The values of `ahpls.fileWatcher`.
const (
	// FileWatcherOn: the server watches the workspace folders itself,
	// beside the editor's watcher (a change both report is checked once).
	FileWatcherOn = "on"
	// FileWatcherFallback: only when the editor cannot watch files.
	FileWatcherFallback = "fallback"
	// FileWatcherOff: never; changes on disk reach the server only
	// through the editor.
	FileWatcherOff = "off"
)

// Specs are ahpls' settings (spec.go), in the order the VS Code settings
// editor lists them; a new setting is its Spec here, its field above and
// its line in Parse. `rules` is generated from the rule table and `targets`' enum
// and default from model.Consumers, so neither is written here. Built on
// first use: `ahpls version` and `ahpls check` do not pay for it (#42).
var Specs = sync.OnceValue(func() []Spec {
	return []Spec{
		{Key: "path", Client: "vscode", Doc: "path of the `ahpls` binary (`~` and `${workspaceFolder}` expanded)",
			Schema: Schema{Type: "string", Default: js(`""`), Scope: "machine-overridable",
				MarkdownDescription: "Path of the `ahpls` binary. Empty: the binary bundled in the extension's `bin/` folder, else `ahpls` on `PATH`. `~` and `${workspaceFolder}` are expanded."}},
		{Key: "host", Doc: "agent host WebSocket URL (`ws://…`/`wss://…`); also `AHPLS_HOST`; empty: no host",
			Schema: Schema{Type: "string", Default: js(`""`), Pattern: "^$|^wss?://",
				MarkdownDescription: "WebSocket URL of the agent host (`ws://…` or `wss://…`). Empty: do not connect."}},
		{Key: "hostHeaders", Doc: "headers sent with the WebSocket upgrade, e.g. `{\"Authorization\": \"Bearer …\"}`; `AHPLS_HOST_AUTHORIZATION` sets `Authorization` when none is given",
			Schema: Schema{Type: "object", Default: js(`{}`), AdditionalProperties: &Schema{Type: "string"}, Scope: "machine-overridable",
				MarkdownDescription: "Headers sent with the WebSocket upgrade to `#ahpls.host#`, e.g. `{ \"X-Team\": \"docs\" }`. For a token use **ahpls: Set Agent Host Token…** (kept in the secret storage) instead of writing it here."}},
		{Key: "sessions", Doc: "`\"auto\"` (every session whose working directories cover a workspace folder) or a list of session URIs",
			Schema: Schema{AnyOf: []Schema{{Type: "string", Enum: []string{"auto"}}, {Type: "array", Items: &Schema{Type: "string"}}}, Default: js(`"auto"`),
				MarkdownDescription: "Agent-host sessions to publish customizations to: `\"auto\"` (every session of this workspace) or a list of session URIs."}},
		{Key: "trustWorkspaceTools", Doc: "let the host run the command tools of `.ahpls/tools.json` (only in a trusted workspace)",
			Schema: Schema{Type: "boolean", Default: js(`false`),
				MarkdownDescription: "Let the agent host run this workspace's client tools through ahpls. Takes effect only in a trusted workspace."}},
		{Key: "targets", Doc: "consumers whose reactions decide severities: " + targetList(),
			Schema: Schema{Type: "array", Items: &Schema{Type: "string", Enum: ids(model.AllTargets)}, UniqueItems: true, Default: jsonOf(ids(model.DefaultTargets)),
				MarkdownDescription: "Consumers whose behaviour decides what is reported and how severely. An empty list means the default."}},
		{Key: "impliedTargets", Doc: "a file only one family reads adds that family (`.claude/**` → `claude-code`)",
			Schema: Schema{Type: "boolean", Default: js(`true`),
				MarkdownDescription: "Add the consumer a file belongs to (e.g. `claude-code` for `.claude/**`) to `#ahpls.targets#` for that file."}},
		{Key: "rules", Doc: "rule id → `off`, `error`, `warning`, `info`, `hint` (every rule id is offered with its summary)",
			Schema: Schema{Type: "object", Default: js(`{}`)}},
		{Key: "exclude", Doc: "globs of files and folders that get no diagnostics and are not published (see [Excluding files](#excluding-files)); `.ahpls/config.json` adds its own",
			Schema: Schema{Type: "array", Items: &Schema{Type: "string"}, UniqueItems: true, Default: js(`[]`), Scope: "resource",
				MarkdownDescription: "Globs of files and folders (relative to the workspace folder) that get no diagnostics and are not published, e.g. `[\"test/fixtures\", \"**/testdata/**\", \"*.draft.md\"]`. `*` stays within one path segment, `**` spans any number. The workspace's `.ahpls/config.json` adds its own."}},
		{Key: "tools", Doc: "more command tools, same shape as `.ahpls/tools.json` (`{\"tools\": […]}`)",
			Schema: Schema{Type: "object", Default: js(`{}`), Properties: map[string]*Schema{"tools": {Type: "array", Items: &Schema{Type: "object"}}},
				MarkdownDescription: "More command tools for the agent host, in the shape of `.ahpls/tools.json` (`{ \"tools\": [ … ] }`). They run only when `#ahpls.trustWorkspaceTools#` is on in a trusted workspace."}},
		{Key: "fileWatcher", Doc: "`on`: the server also watches the workspace folders itself, beside the editor's watcher (a change both report is checked once); `fallback`: only when the editor cannot watch files; `off`: never",
			Schema: Schema{Type: "string", Enum: []string{FileWatcherOn, FileWatcherFallback, FileWatcherOff}, Default: js(`"on"`),
				MarkdownDescription: "When the language server watches the workspace folders itself (the operating system's file events, within a share of its watch limits). `on`: beside the editor's file watcher, so a folder moved in a shell is seen even when the editor's watcher misses it; a change both report is checked once. `fallback`: only when the editor cannot watch files. `off`: never."}},
		{Key: "trace.server", Client: "vscode", Doc: "log the LSP traffic in the \"ahpls\" output channel",
			Schema: Schema{Type: "string", Enum: []string{"off", "messages", "verbose"}, Default: js(`"off"`), Scope: "window",
				Description: "Traces the communication between VS Code and the ahpls language server."}},
	}
})

// Default is the settings before any source was read.
func Default() Settings {
	return Settings{ImpliedTargets: true, FileWatcher: FileWatcherOn, Raw: json.RawMessage("{}")}
}

// Options converts the rule keys to the rule engine's options.
func (st Settings) Options() diagnostics.Options {
	return diagnostics.Options{Targets: st.Targets, NoImpliedTargets: !st.ImpliedTargets, Rules: st.Rules}
}

// Parse reads an `ahpls` section. It accepts the section itself
// (`{"targets": …}`) or an object wrapping it (`{"ahpls": {…}}`), as editors
// send either in initializationOptions and didChangeConfiguration. Problems
// (unknown target ids, bad levels) are returned as warnings for
// window/showMessage and otherwise ignored.
func Parse(raw []byte) (Settings, []string) {
	st := Default()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return st, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return st, []string{fmt.Sprintf("ahpls settings are not a JSON object: %v", err)}
	}
	if inner, ok := obj["ahpls"]; ok {
		if err := json.Unmarshal(inner, &obj); err != nil || obj == nil {
			return st, []string{"the `ahpls` settings section is not a JSON object"}
		}
		raw = inner
	}
	st.Raw = append(json.RawMessage(nil), raw...)
	sec := &section{obj: obj}
	var ids []string
	if sec.decode("targets", &ids, "ahpls.targets must be a list of target ids; using the default") || ids != nil {
		st.Targets = parseTargets(sec, ids)
	}
	var implied bool
	if sec.decode("impliedTargets", &implied, "ahpls.impliedTargets must be true or false; using true") {
		st.ImpliedTargets = implied
	}
	sec.warnings = append(sec.warnings, parseHost(obj, &st.Host)...)
	var levels map[string]string
	if sec.decode("rules", &levels, "ahpls.rules must map rule ids to off|error|warning|info|hint") || levels != nil {
		st.Rules = parseRules(sec, levels)
	}
	var globs []string
	if sec.decode("exclude", &globs, "ahpls.exclude must be a list of globs; ignored") || globs != nil {
		for _, g := range globs {
			if _, err := wsfs.NewMatcher([]string{g}); err != nil {
				sec.warn("ahpls.exclude: %v; ignored", err)
				continue
			}
			st.Exclude = append(st.Exclude, g)
		}
	}
	var watcher string
	if sec.decode("fileWatcher", &watcher, "ahpls.fileWatcher must be \"on\", \"fallback\" or \"off\"; using \"on\"") {
		switch watcher {
		case FileWatcherOn, FileWatcherFallback, FileWatcherOff:
			st.FileWatcher = watcher
		default:
			sec.warn("ahpls.fileWatcher: '%s' is not on|fallback|off; using \"on\"", watcher)
		}
	}
	return st, sec.warnings
}

// section reads the keys of one `ahpls` object with small typed helpers:
// each bad value is one warning and leaves its setting at the default, and
// never stops the other keys from applying.
type section struct {
	obj      map[string]json.RawMessage
	warnings []string
}

func (s *section) warn(format string, a ...any) {
	s.warnings = append(s.warnings, fmt.Sprintf(format, a...))
}

// decode unmarshals key into dst, reporting whether the key is present
// and decoded; a value of the wrong type is the warning bad. (What
// json.Unmarshal decoded before failing stays in dst, as partial lists
// always did.)
func (s *section) decode(key string, dst any, bad string) bool {
	v, ok := s.obj[key]
	if !ok {
		return false
	}
	if err := json.Unmarshal(v, dst); err != nil {
		s.warnings = append(s.warnings, bad)
		return false
	}
	return true
}

// parseTargets keeps the known target ids and warns about the others.
func parseTargets(s *section, ids []string) []model.Target {
	var out []model.Target
	var unknown []string
	for _, id := range ids {
		if model.KnownTarget(id) {
			out = append(out, model.Target(id))
		} else {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		known := make([]string, len(model.AllTargets))
		for i, t := range model.AllTargets {
			known[i] = string(t)
		}
		s.warn("ahpls.targets: unknown target %s ignored (known: %s)", quoteList(unknown), strings.Join(known, ", "))
	}
	return out
}

// parseRules turns rule levels into severities, in id order so warnings
// come out stably; a renamed rule's old id sets its id now (the rule's
// own id, written too, wins), other ids are kept as written.
func parseRules(s *section, m map[string]string) map[string]model.Severity {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out map[string]model.Severity
	for _, id := range ids {
		sev, ok := model.ParseSeverity(strings.ToLower(m[id]))
		if !ok {
			s.warn("ahpls.rules: level '%s' for '%s' is not off|error|warning|info|hint; ignored", m[id], id)
			continue
		}
		if out == nil {
			out = map[string]model.Severity{}
		}
		if to, status := diagnostics.ResolveRule(id); status == diagnostics.RuleRenamed {
			if _, set := m[to]; !set {
				out[to] = sev
			}
			continue
		}
		out[id] = sev
	}
	return out
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// SameFindings reports whether two settings give the rules the same
// options and exclusions, i.e. produce the same findings for the same text.
func SameFindings(a, b Settings) bool {
	if !slices.Equal(a.Exclude, b.Exclude) {
		return false
	}
	if a.ImpliedTargets != b.ImpliedTargets || len(a.Targets) != len(b.Targets) || len(a.Rules) != len(b.Rules) {
		return false
	}
	for i := range a.Targets {
		if a.Targets[i] != b.Targets[i] {
			return false
		}
	}
	for k, v := range a.Rules {
		if w, ok := b.Rules[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}
