package diagnostics

import (
	"github.com/ahpls-dev/ahpls/diagnostics/roo"
	"github.com/ahpls-dev/ahpls/model"
)

// RooMode is one entry of a .roomodes' customModes: its slug ("" when it
// has no string slug) and the bytes it occupies.
type RooMode struct {
	Slug string
	Span model.Span
}

// RooModes are the entries of a .roomodes' customModes list, in file
// order, read as Roo Code reads the file (nil when it holds none).
// `ahpls list` lists them one item each.
func RooModes(text []byte) []RooMode {
	root, err := roo.ParseRooModes(text)
	if err != nil || root == nil || root.Kind != roo.RMObject {
		return nil
	}
	modes := root.Get("customModes")
	if modes == nil || modes.Kind != roo.RMArray {
		return nil
	}
	out := make([]RooMode, 0, len(modes.Items))
	for _, m := range modes.Items {
		rm := RooMode{Span: m.Span}
		if m.Kind == roo.RMObject {
			if s := m.Get("slug"); s != nil && s.Kind == roo.RMString {
				rm.Slug = s.Str
			}
		}
		out = append(out, rm)
	}
	return out
}
