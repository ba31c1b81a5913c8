package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Settings is the parsed `ahpls` settings section (customization-formats.md
// §1): the one settings type of the process. The server decodes it once per
// change; the agent-host bridge reads the same value (Server.Settings and
// Options.OnSettings) for the host keys and, live, for the rule options that
// decide publication. Raw keeps the whole section for keys nobody decodes.
type Settings struct {
	Targets        []model.Target
	ImpliedTargets bool
	Rules          map[string]model.Severity

	// Host is `ahpls.host`, the agent host's ws:// or wss:// URL ("" = none).
	Host string
	// HostHeaders (`ahpls.hostHeaders`) are sent with the WebSocket upgrade.
	HostHeaders map[string]string
	// Sessions (`ahpls.sessions`) are the sessions to join; nil means "auto"
	// (every session whose working directories cover a workspace folder).
	Sessions []string
	// TrustWorkspaceTools (`ahpls.trustWorkspaceTools`) enables command tools.
	TrustWorkspaceTools bool
	// Tools is the raw `ahpls.tools` value.
	Tools json.RawMessage
	// Exclude are `ahpls.exclude` globs (wsfs.Matcher syntax): matching
	// files get no diagnostics and are not scanned or published. The
	// workspace's .ahpls/config.json adds its own.
	Exclude []string

	Raw json.RawMessage
}

func defaultSettings() Settings {
	return Settings{ImpliedTargets: true, Raw: json.RawMessage("{}")}
}

// Options converts the settings to the rule engine's options.
func (st Settings) Options() diagnostics.Options {
	return diagnostics.Options{Targets: st.Targets, NoImpliedTargets: !st.ImpliedTargets, Rules: st.Rules}
}

// RuleOptions are the rule engine's options for this session: the
// settings plus the client tool config validator the server was built
// with.
func (s *Server) RuleOptions() diagnostics.Options {
	o := s.Settings().Options()
	o.ToolsConfig = s.opts.ToolsConfig
	return o
}

// ParseSettings reads an `ahpls` section. It accepts the section itself
// (`{"targets": …}`) or an object wrapping it (`{"ahpls": {…}}`), as editors
// send either in initializationOptions and didChangeConfiguration. Problems
// (unknown target ids, bad levels) are returned as warnings for
// window/showMessage and otherwise ignored.
func ParseSettings(raw []byte) (Settings, []string) {
	st := defaultSettings()
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
	var warnings []string
	if v, ok := obj["targets"]; ok {
		var ids []string
		if err := json.Unmarshal(v, &ids); err != nil {
			warnings = append(warnings, "ahpls.targets must be a list of target ids; using the default")
		}
		var unknown []string
		for _, id := range ids {
			if model.KnownTarget(id) {
				st.Targets = append(st.Targets, model.Target(id))
			} else {
				unknown = append(unknown, id)
			}
		}
		if len(unknown) > 0 {
			known := make([]string, len(model.AllTargets))
			for i, t := range model.AllTargets {
				known[i] = string(t)
			}
			warnings = append(warnings, fmt.Sprintf("ahpls.targets: unknown target %s ignored (known: %s)", quoteList(unknown), strings.Join(known, ", ")))
		}
	}
	if v, ok := obj["impliedTargets"]; ok {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			warnings = append(warnings, "ahpls.impliedTargets must be true or false; using true")
		} else {
			st.ImpliedTargets = b
		}
	}
	warnings = append(warnings, parseHostSettings(obj, &st)...)
	if v, ok := obj["rules"]; ok {
		var m map[string]string
		if err := json.Unmarshal(v, &m); err != nil {
			warnings = append(warnings, "ahpls.rules must map rule ids to off|error|warning|info|hint")
		}
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			sev, ok := model.ParseSeverity(strings.ToLower(m[id]))
			if !ok {
				warnings = append(warnings, fmt.Sprintf("ahpls.rules: level '%s' for '%s' is not off|error|warning|info|hint; ignored", m[id], id))
				continue
			}
			if st.Rules == nil {
				st.Rules = map[string]model.Severity{}
			}
			st.Rules[id] = sev
		}
	}
	if v, ok := obj["exclude"]; ok {
		var globs []string
		if err := json.Unmarshal(v, &globs); err != nil {
			warnings = append(warnings, "ahpls.exclude must be a list of globs; ignored")
		}
		for _, g := range globs {
			if _, err := wsfs.NewMatcher([]string{g}); err != nil {
				warnings = append(warnings, fmt.Sprintf("ahpls.exclude: %v; ignored", err))
				continue
			}
			st.Exclude = append(st.Exclude, g)
		}
	}
	return st, warnings
}

// parseHostSettings reads the agent-host keys. A bad value is reported and
// left at its default; it never stops the other keys from applying.
func parseHostSettings(obj map[string]json.RawMessage, st *Settings) []string {
	var warnings []string
	if v, ok := obj["host"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &st.Host); err != nil {
			warnings = append(warnings, "ahpls.host must be a ws:// or wss:// URL string; ignored")
		}
	}
	if v, ok := obj["hostHeaders"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &st.HostHeaders); err != nil {
			st.HostHeaders = nil
			warnings = append(warnings, "ahpls.hostHeaders must map header names to strings; ignored")
		}
	}
	if v, ok := obj["sessions"]; ok && !isNull(v) {
		var list []string
		var word string
		switch {
		case json.Unmarshal(v, &list) == nil:
			if len(list) > 0 {
				st.Sessions = list
			}
		case json.Unmarshal(v, &word) == nil && word == "auto":
		default:
			warnings = append(warnings, `ahpls.sessions must be "auto" or a list of session URIs; using "auto"`)
		}
	}
	if v, ok := obj["trustWorkspaceTools"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &st.TrustWorkspaceTools); err != nil {
			warnings = append(warnings, "ahpls.trustWorkspaceTools must be true or false; using false")
		}
	}
	if v, ok := obj["tools"]; ok && !isNull(v) {
		st.Tools = append(json.RawMessage(nil), v...)
	}
	return warnings
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// SameRules reports whether two settings give the rules the same options,
// i.e. produce the same findings for the same text.
func SameRules(a, b Settings) bool { return sameFindings(a, b) }

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "'" + s + "'"
	}
	return strings.Join(q, ", ")
}

// Settings returns the settings in effect.
func (s *Server) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// applySettings installs new settings, warns about bad entries and re-checks
// every known file when anything that changes findings moved.
func (s *Server) applySettings(raw []byte, origin string) {
	st, warnings := ParseSettings(raw)
	for _, w := range warnings {
		s.ShowMessage(protocol.MessageTypeWarning, w)
	}
	s.mu.Lock()
	old := s.settings
	s.settings = st
	s.settingsOK = true
	s.mu.Unlock()
	s.log.Info("settings applied", "from", origin, "targets", st.Targets, "impliedTargets", st.ImpliedTargets, "rules", len(st.Rules))
	if !slices.Equal(old.Exclude, st.Exclude) {
		// Newly included files are found by a rescan; newly excluded ones
		// lose their findings in the recheck below.
		for _, r := range s.Folders() {
			s.scanFolder(r)
		}
	}
	if !sameFindings(old, st) {
		s.recheckAll(CauseConfig)
	}
	if s.opts.OnSettings != nil && !bytes.Equal(old.Raw, st.Raw) {
		s.opts.OnSettings(old, st)
	}
}

func sameFindings(a, b Settings) bool {
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
