package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"
)

// Settings is the parsed `ahpls` settings section (customization-formats.md
// §1). Raw keeps the whole section for keys other rooms own (`host`,
// `sessions`, `trustWorkspaceTools`).
type Settings struct {
	Targets        []model.Target
	ImpliedTargets bool
	Rules          map[string]model.Severity
	Raw            json.RawMessage
}

func defaultSettings() Settings {
	return Settings{ImpliedTargets: true, Raw: json.RawMessage("{}")}
}

// Options converts the settings to the rule engine's options.
func (st Settings) Options() diagnostics.Options {
	return diagnostics.Options{Targets: st.Targets, NoImpliedTargets: !st.ImpliedTargets, Rules: st.Rules}
}

// ruleOptions are the rule engine's options for this session: the
// settings plus the checkers the server was built with.
func (s *Server) ruleOptions() diagnostics.Options {
	o := s.Settings().Options()
	o.Checkers = s.opts.Checkers
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
	return st, warnings
}

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
	if s.opts.OnSettings != nil && !bytes.Equal(old.Raw, st.Raw) {
		s.opts.OnSettings(st.Raw)
	}
	if !sameFindings(old, st) {
		s.recheckAll(CauseConfig)
	}
}

func sameFindings(a, b Settings) bool {
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
