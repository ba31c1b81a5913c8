package server

import (
	"bytes"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/settings"
)

// RuleOptions are the rule engine's options for this session: the
// settings plus the client tool config validator the server was built
// with.
func (s *Server) RuleOptions() diagnostics.Options {
	o := s.Settings().Options()
	o.ToolsConfig = s.opts.ToolsConfig
	return o
}

// Settings returns the settings in effect.
func (s *Server) Settings() settings.Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// applySettings installs new settings, warns about bad entries and re-checks
// every known file when anything that changes findings moved.
func (s *Server) applySettings(raw []byte, origin string) {
	st, warnings := settings.Parse(raw)
	for _, w := range warnings {
		s.ShowMessage(protocol.MessageTypeWarning, w)
	}
	s.mu.Lock()
	old := s.settings
	s.settings = st
	s.settingsOK = true
	scanned := s.scanStarted
	s.mu.Unlock()
	s.log.Info("settings applied", "from", origin, "targets", st.Targets, "impliedTargets", st.ImpliedTargets, "rules", len(st.Rules))
	if scanned && !slices.Equal(old.Exclude, st.Exclude) {
		// Newly included files are found by a rescan; newly excluded ones
		// lose their findings in the recheck below. Before the first scan
		// (settings from initialize or the first pull) the scan itself
		// uses the new excludes.
		for _, r := range s.Folders() {
			s.scanFolder(r)
		}
	}
	if !settings.SameFindings(old, st) {
		s.recheckAll(CauseConfig)
	}
	if old.FileWatcher != st.FileWatcher {
		// Starting walks the folders: not on the read loop.
		go s.reconcileFSWatch()
	}
	if s.opts.OnSettings != nil && !bytes.Equal(old.Raw, st.Raw) {
		s.opts.OnSettings(old, st)
	}
}
