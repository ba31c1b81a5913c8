package server

import (
	"path"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
)

// TestWatchGlobsCoverEveryKind: a file of each kind (model.Kinds) matches
// one of the registered watcher globs, so a change on disk re-checks it;
// the fsnotify fallback decides by model.MaybeCustomization, tested in model.
func TestWatchGlobsCoverEveryKind(t *testing.T) {
	globs := watchGlobs()
	matches := func(rel string) bool {
		for _, g := range globs {
			// "**/x" matches x at any depth; path.Match has no "**", so try
			// the tail after the leading "**/" against the base name or,
			// for a fixed path, the whole path.
			tail := g[len("**/"):]
			if ok, _ := path.Match(tail, path.Base(rel)); ok {
				return true
			}
			if tail == rel {
				return true
			}
		}
		return false
	}
	for _, rel := range []string{".github/skills/x/SKILL.md", "plugin.json", ".github/hooks/h.json", model.SetupStepsPath, model.RooModes} {
		k := model.Classify(rel, nil)
		if k == model.KindNone {
			t.Fatalf("%s: no kind", rel)
		}
		if !matches(rel) {
			t.Errorf("%s (%s): no watcher glob in %v", rel, k, globs)
		}
	}
	for _, k := range model.Kinds {
		if k.Ext == "" && len(k.Paths) == 0 {
			t.Errorf("kind %s: nothing to watch", k.Kind)
		}
		for _, p := range k.Paths {
			if !matches(p) {
				t.Errorf("kind %s: %s is not watched", k.Kind, p)
			}
		}
	}
}
