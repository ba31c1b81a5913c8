package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

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
	return f, nil
}
