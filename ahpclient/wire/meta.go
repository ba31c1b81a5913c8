package wire

import (
	"fmt"
	"strings"
)

// HostMeta is what ahpls reads from the host's `_meta` (InitializeResult and
// RootState, AHP 1.1): the host build, shown in ahpls/hostStatus, and a
// read-only role, under which ahpls never publishes an active-client entry
// and never toggles a customization. Unknown keys are ignored.
//
// Verified (ahp.md §9 and the spec's change notes): RootState and
// InitializeResult carry `_meta`, with a well-known `hostBuild` key
// (version, commit, date). inferred (ahp.md §9): the role's spelling; ahpls
// reads `role: "read-only"` (or "readonly", "observer") and `readOnly: true`.
type HostMeta struct {
	Build    string
	ReadOnly bool
}

// ReadHostMeta reads a `_meta` object; nil gives the zero HostMeta.
func ReadHostMeta(meta map[string]any) HostMeta {
	var h HostMeta
	switch b := meta["hostBuild"].(type) {
	case string:
		h.Build = b
	case map[string]any:
		var parts []string
		for _, k := range []string{"version", "commit", "date"} {
			if s, ok := b[k].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		h.Build = strings.Join(parts, " ")
	case nil:
	default:
		h.Build = fmt.Sprint(b)
	}
	if len(h.Build) > 200 {
		h.Build = h.Build[:200] // shown in a status line: bounded
	}
	switch r, _ := meta["role"].(string); strings.ToLower(r) {
	case "read-only", "readonly", "observer":
		h.ReadOnly = true
	}
	if ro, _ := meta["readOnly"].(bool); ro {
		h.ReadOnly = true
	}
	return h
}

// Over returns h with the fields o sets: a later `_meta` (root state)
// refines an earlier one (initialize).
func (h HostMeta) Over(o HostMeta) HostMeta {
	if o.Build != "" {
		h.Build = o.Build
	}
	h.ReadOnly = h.ReadOnly || o.ReadOnly
	return h
}
