package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/model"

	"github.com/ahpls-dev/ahpls/wsfs"
)

// ConfigFile is the workspace's own ahpls settings file, relative to the
// workspace root. It lets a repository say once, for the editor and CI
// alike, which folders hold deliberately broken files (test fixtures).
const ConfigFile = ".ahpls/config.json"

// maxConfigSize bounds the config read; a real one is a few lines.
const maxConfigSize = 64 << 10

// WorkspaceConfig is what ahpls reads from ConfigFile. Unknown keys are ignored so
// newer files work with older ahpls.
type WorkspaceConfig struct {
	// Exclude globs (wsfs.Matcher syntax) are added to the user's own.
	Exclude []string `json:"exclude"`
	// GitIgnore false walks what .gitignore files ignore too (absent:
	// they are honoured).
	GitIgnore *bool `json:"gitignore"`
	// Overrides set rule levels for the files their globs match, later
	// entries over earlier ones and over the editor's `ahpls.rules` (the
	// only way to turn a rule off in a strict JSON file, which has no
	// comments).
	Overrides []OverrideEntry `json:"overrides"`
}

// OverrideEntry is one element of "overrides":
//
//	{"files": ["tests/fixtures/**"], "rules": {"md/link": "off"}}
type OverrideEntry struct {
	// Files are globs in the "exclude" syntax (wsfs.Matcher), relative to
	// the workspace folder.
	Files []string `json:"files"`
	// Rules maps rule ids to off, error, warning, info or hint.
	Rules map[string]string `json:"rules"`
}

// compileOverrides validates the entries (globs parse, levels are levels)
// and turns them into the rule engine's overrides; the error names the
// first bad entry. A rule id that is no rule's (unknown, or a removed
// rule's) is left out and the rest applies; a renamed rule's old id sets
// the level of its id now (diagnostics reports each as a finding on the
// key).
func compileOverrides(es []OverrideEntry) ([]diagnostics.Override, error) {
	var out []diagnostics.Override
	for i, e := range es {
		if len(e.Files) == 0 {
			return nil, fmt.Errorf("overrides[%d]: \"files\" lists no glob", i)
		}
		m, err := wsfs.NewMatcher(e.Files)
		if err != nil {
			return nil, fmt.Errorf("overrides[%d]: %v", i, err)
		}
		rules := map[string]model.Severity{}
		for id, lvl := range e.Rules {
			sev, ok := model.ParseSeverity(strings.ToLower(lvl))
			if !ok {
				return nil, fmt.Errorf("overrides[%d]: level %q for %s is not off, error, warning, info or hint", i, lvl, id)
			}
			to, st := diagnostics.ResolveRule(id)
			if st == diagnostics.RuleUnknown || st == diagnostics.RuleRemoved {
				continue
			}
			if _, set := rules[to]; set && to != id {
				continue // the rule's own id, written too, wins over its old one
			}
			rules[to] = sev
		}
		// The matcher also holds the default excludes (.git,
		// node_modules), whose files are never checked anyway.
		out = append(out, diagnostics.Override{Match: m.Match, Rules: rules})
	}
	return out, nil
}

// LoadWorkspaceConfig reads root's ConfigFile (through wsfs's confined
// reader). A missing file is the zero WorkspaceConfig
// and no error; an unreadable or malformed one is an error naming the file
// (the caller reports it and goes on without it).
func LoadWorkspaceConfig(root string) (WorkspaceConfig, error) {
	b, err := wsfs.ReadIn(root, ConfigFile, maxConfigSize+1)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return WorkspaceConfig{}, nil
		}
		return WorkspaceConfig{}, err
	}
	if len(b) > maxConfigSize {
		return WorkspaceConfig{}, fmt.Errorf("%s: larger than %d KiB", ConfigFile, maxConfigSize>>10)
	}
	var c WorkspaceConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return WorkspaceConfig{}, fmt.Errorf("%s: %v", ConfigFile, err)
	}
	if _, err := wsfs.NewMatcher(c.Exclude); err != nil {
		return WorkspaceConfig{}, fmt.Errorf("%s: %v", ConfigFile, err)
	}
	if _, err := compileOverrides(c.Overrides); err != nil {
		return WorkspaceConfig{}, fmt.Errorf("%s: %v", ConfigFile, err)
	}
	return c, nil
}

// FolderExclude is the one accessor for a folder's exclusions: the
// `ahpls.exclude` globs of these settings plus the folder's own
// ConfigFile. A bad file is returned as the error together with the
// settings' globs alone, which the caller uses after reporting it.
func (st Settings) FolderExclude(root string) ([]string, error) {
	f, err := st.FolderOf(root, false)
	return f.Exclude, err
}

// Folder is what a workspace folder's walk is told: its exclusions (see
// FolderExclude) and whether .gitignore files are honoured (the folder's
// ConfigFile may turn that off; noGitIgnore, the caller's flag, always does).
type Folder struct {
	Exclude   []string
	GitIgnore bool
	// Overrides are the ConfigFile's "overrides", for Options.Overrides.
	Overrides []diagnostics.Override
}

// FolderOf reads root's ConfigFile once for both. A bad file is returned as
// the error together with the settings' globs alone and .gitignore honoured
// unless noGitIgnore, which the caller uses after reporting it.
func (st Settings) FolderOf(root string, noGitIgnore bool) (Folder, error) {
	f := Folder{Exclude: st.Exclude, GitIgnore: !noGitIgnore}
	wc, err := LoadWorkspaceConfig(root)
	if err != nil {
		return f, err
	}
	if len(wc.Exclude) > 0 {
		f.Exclude = append(append([]string(nil), st.Exclude...), wc.Exclude...)
	}
	if wc.GitIgnore != nil && !*wc.GitIgnore {
		f.GitIgnore = false
	}
	f.Overrides, _ = compileOverrides(wc.Overrides) // validated by LoadWorkspaceConfig
	return f, nil
}
