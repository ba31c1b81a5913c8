package wire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadHostMeta(t *testing.T) {
	cases := []struct {
		name string
		meta map[string]any
		want HostMeta
	}{
		{"nil", nil, HostMeta{}},
		{"build object", map[string]any{"hostBuild": map[string]any{"version": "1.4.2", "commit": "abc123", "date": "2026-11-30"}}, HostMeta{Build: "1.4.2 abc123 2026-11-30"}},
		{"build string", map[string]any{"hostBuild": "nightly-7"}, HostMeta{Build: "nightly-7"}},
		{"read-only role", map[string]any{"role": "read-only"}, HostMeta{ReadOnly: true}},
		{"readOnly flag", map[string]any{"readOnly": true}, HostMeta{ReadOnly: true}},
		{"unknown keys and roles are ignored", map[string]any{"role": "x-later", "x-acme/zone": "eu"}, HostMeta{}},
		{"bounded", map[string]any{"hostBuild": strings.Repeat("b", 500)}, HostMeta{Build: strings.Repeat("b", 200)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, ReadHostMeta(c.meta)) })
	}
	assert.Equal(t, HostMeta{Build: "2", ReadOnly: true}, HostMeta{Build: "1", ReadOnly: true}.Over(HostMeta{Build: "2"}))
}
