package shared

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
)

// CheckSharedFields runs field/type, field/empty, field/bool, field/renamed
// (the keys; *.chatmode.md is the agent checker's) and field/unknown.
func CheckSharedFields(m *core.MDFile, handled map[string]bool) {
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.DupIndex > 0 {
			continue
		}
		if core.SharedFieldKind(m.Kind) {
			m.FieldType(f)
			m.FieldBool(f)
		}
	}
	for i := range m.Fields {
		f := &m.Fields[i]
		if f.DupIndex > 0 || handled[f.Key] {
			continue
		}
		if m.FieldRenamed(f) {
			continue
		}
		m.FieldUnknown(f)
	}
	checkFrontmatterHooks(m)
	securityFields(m)
	toolNames(m)
	agentSkills(m)
}
