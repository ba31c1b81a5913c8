package settings

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSpecsAreWhatParseReads: each key of the server's section in Specs is
// read by Parse: its default gives no warning, and a value of the wrong
// type is warned about by name (so a key Parse does not read fails here).
func TestSpecsAreWhatParseReads(t *testing.T) {
	for _, s := range ServerSpecs() {
		_, warnings := Parse([]byte(`{"` + s.Key + `": ` + string(s.Schema.Default) + `}`))
		assert.Empty(t, warnings, "%s: its default", s.Key)
		_, warnings = Parse([]byte(`{"` + s.Key + `": 12345}`))
		if assert.NotEmpty(t, warnings, "%s: a number is no value of it", s.Key) {
			assert.True(t, strings.Contains(strings.Join(warnings, "\n"), "ahpls."+s.Key), "%s: %v", s.Key, warnings)
		}
	}
}
