package diagnostics

import "github.com/ahpls-dev/ahpls/diagnostics/roo"

// RooModeSlugs are the string slugs of a .roomodes' customModes, in file
// order, read as Roo Code reads the file (nil when it holds none).
// `ahpls list` names the file's item by them.
func RooModeSlugs(text []byte) []string {
	root, err := roo.ParseRooModes(text)
	if err != nil || root == nil || root.Kind != roo.RMObject {
		return nil
	}
	modes := root.Get("customModes")
	if modes == nil || modes.Kind != roo.RMArray {
		return nil
	}
	var out []string
	for _, m := range modes.Items {
		if m.Kind != roo.RMObject {
			continue
		}
		if s := m.Get("slug"); s != nil && s.Kind == roo.RMString {
			out = append(out, s.Str)
		}
	}
	return out
}
