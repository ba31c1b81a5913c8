package wsfs

import "testing"

// FuzzGitIgnore: any .gitignore text and path are matched without a panic,
// and a file of comments only ignores nothing.
func FuzzGitIgnore(f *testing.F) {
	f.Add("dist/\n!keep\n/a/**/b\n[!x]y\n\\#h\n", "a/q/b", true)
	f.Add("**\n", "x", false)
	f.Add("[", "[", false)
	f.Fuzz(func(t *testing.T, text, rel string, dir bool) {
		ig := ParseGitIgnore(nil, "", []byte(text))
		_ = ig.Match(rel, dir)
		sub := ParseGitIgnore(ig, "s", []byte(text))
		_ = sub.Match("s/"+rel, dir)
		if ParseGitIgnore(nil, "", []byte("# c\n\n")).Match(rel, dir) {
			t.Fatal("a comment ignored something")
		}
	})
}
