package wsfs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// ConfigFile is the workspace's own ahpls settings file, relative to the
// workspace root. It lets a repository say once, for the editor and CI
// alike, which folders hold deliberately broken files (test fixtures).
const ConfigFile = ".ahpls/config.json"

// maxConfigSize bounds the config read; a real one is a few lines.
const maxConfigSize = 64 << 10

// Config is what ahpls reads from ConfigFile. Unknown keys are ignored so
// newer files work with older ahpls.
type Config struct {
	// Exclude globs (Matcher syntax) are added to the user's own.
	Exclude []string `json:"exclude"`
	// GitIgnore false walks what .gitignore files ignore too (absent:
	// they are honoured).
	GitIgnore *bool `json:"gitignore"`
}

// LoadConfig reads root's ConfigFile. A missing file is the zero Config
// and no error; an unreadable or malformed one is an error naming the file
// (the caller reports it and goes on without it).
func LoadConfig(root string) (Config, error) {
	b, err := ReadIn(root, ConfigFile, maxConfigSize+1)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Config{}, nil
		}
		return Config{}, err
	}
	if len(b) > maxConfigSize {
		return Config{}, fmt.Errorf("%s: larger than %d KiB", ConfigFile, maxConfigSize>>10)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("%s: %v", ConfigFile, err)
	}
	if _, err := NewMatcher(c.Exclude); err != nil {
		return Config{}, fmt.Errorf("%s: %v", ConfigFile, err)
	}
	return c, nil
}
