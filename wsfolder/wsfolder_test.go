package wsfolder

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWalkClassifiesAndSkips(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".claude/skills/a/SKILL.md", "---\nname: a\ndescription: x\n---\n")
	write(t, root, "node_modules/x/.claude/skills/b/SKILL.md", "---\nname: b\n---\n")
	write(t, root, "README.md", "# not a customization\n")
	f, got, skipped := walkCounting(t, root)
	if len(got) != 1 || got[".claude/skills/a/SKILL.md"] != model.KindSkill {
		t.Errorf("walk found %v, want the one skill", got)
	}
	if skipped == 0 {
		t.Error("node_modules was not reported as skipped")
	}
	// After the walk, absences are answered from its record.
	if _, err := f.FS.Stat(".claude/skills/a/missing.md"); wsfs.ReasonOf(err) != wsfs.NotExist {
		t.Errorf("Stat of a missing file: %v", err)
	}
}

func TestOverlayCountsAsAFile(t *testing.T) {
	root := t.TempDir()
	write(t, root, "p/skills/s/SKILL.md", "---\nname: s\n---\n")
	buf := map[string]string{"p/.claude-plugin/plugin.json": `{"name":"p"}`}
	overlay := func(rel string) ([]byte, bool) {
		s, ok := buf[rel]
		return []byte(s), ok
	}
	fsys := FS{Root: wsfs.NewRoot(root), Overlay: overlay}
	if _, err := fsys.Stat("p/.claude-plugin/plugin.json"); err != nil {
		t.Errorf("an open buffer is a file: %v", err)
	}
	if b, err := fsys.ReadFile("p/.claude-plugin/plugin.json"); err != nil || string(b) != buf["p/.claude-plugin/plugin.json"] {
		t.Errorf("ReadFile = %q, %v; want the buffer", b, err)
	}
	if NewLayout(fsys).PluginRoot("p") == model.FormatNone {
		t.Error("a manifest in an open buffer makes a plugin root")
	}
	if DirLayout(root).PluginRoot("p") != model.FormatNone {
		t.Error("without the buffer there is no manifest on disk")
	}
	if _, err := fsys.ReadFile("../outside"); wsfs.ReasonOf(err) != wsfs.NotExist {
		t.Errorf("a path out of the folder: %v", err)
	}
}

func TestInventoryIsInPathOrder(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"c", "a", "b"} {
		write(t, root, ".claude/skills/"+n+"/SKILL.md", "---\nname: "+n+"\ndescription: x\n---\n")
	}
	write(t, root, ".claude/skills/a.md", "stray")
	in, err := Inventory(root, InventoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range in.Files {
		rels = append(rels, f.Rel)
	}
	want := []string{".claude/skills/a/SKILL.md", ".claude/skills/b/SKILL.md", ".claude/skills/c/SKILL.md"}
	if len(rels) != len(want) {
		t.Fatalf("files %v, want %v", rels, want)
	}
	for i := range want {
		if rels[i] != want[i] {
			t.Fatalf("files %v, want %v", rels, want)
		}
	}
}

// An extension's commands/*.toml are Gemini CLI commands only where the
// folder holds gemini-extension.json: the walk classifies them through the
// layout (before, no Layout answered which folders are extensions, and such
// commands were never checked).
func TestWalkFindsGeminiExtensionCommands(t *testing.T) {
	root := t.TempDir()
	write(t, root, "ext/gemini-extension.json", `{"name": "ext", "version": "1.0.0"}`)
	write(t, root, "ext/commands/deploy/run.toml", "prompt = \"go\"\n")
	write(t, root, "other/commands/run.toml", "prompt = \"go\"\n")
	f, got := walkKinds(t, root)
	if got["ext/commands/deploy/run.toml"] != model.KindGeminiCmd {
		t.Errorf("the extension's command: %q, want %q (walk found %v)", got["ext/commands/deploy/run.toml"], model.KindGeminiCmd, got)
	}
	if k, ok := got["other/commands/run.toml"]; ok && k != model.KindNone {
		t.Errorf("a commands/ folder of no extension: %q, want none", k)
	}
	l := NewLayout(f.FS)
	if !l.HasFile("ext/gemini-extension.json") || l.HasFile("other/gemini-extension.json") || l.HasFile("gemini-extension.json") || l.HasFile("ext") {
		t.Error("HasFile: want only ext/gemini-extension.json (a folder is no file)")
	}
}

// walkKinds walks root and returns the folder and each file's kind.
func walkKinds(t *testing.T, root string) (*Folder, map[string]model.Kind) {
	f, got, _ := walkCounting(t, root)
	return f, got
}

// walkCounting walks root as a check does and returns the folder, each
// file's kind and how many entries it skipped.
func walkCounting(t *testing.T, root string) (*Folder, map[string]model.Kind, int) {
	t.Helper()
	ex, err := wsfs.NewMatcher(nil)
	if err != nil {
		t.Fatal(err)
	}
	f := New(root, ex, nil)
	var mu sync.Mutex
	got := map[string]model.Kind{}
	skipped := 0
	err = f.Walk(WalkOptions{Exclude: ex, Workers: 2, Skipped: func(wsfs.Entry, wsfs.SkipReason) {
		mu.Lock()
		skipped++
		mu.Unlock()
	}}, func(e wsfs.Entry, k model.Kind) error {
		mu.Lock()
		got[e.Rel] = k
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, got, skipped
}
