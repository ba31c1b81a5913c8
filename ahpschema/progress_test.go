package ahpschema

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A reconnect answer replays whatever the channel saw, including the 1.1
// chat/toolCallProgress the embedded 0.8.0 schema does not define: the
// replayed envelope is checked like the same action sent live, in both
// reconnect shapes (the test host once rejected its own answer whenever a
// progress report fell inside the replay window).
func TestReplayedProgressValidates(t *testing.T) {
	const progress = `{"channel":"ahp-chat:/c1","serverSeq":7,"origin":{"clientId":"c","clientSeq":3},"action":{"type":"chat/toolCallProgress","turnId":"turn-3","toolCallId":"tc-4","elapsedMs":103,"step":"running for 0 s"}}`
	const noElapsed = `{"channel":"ahp-chat:/c1","serverSeq":7,"action":{"type":"chat/toolCallProgress","turnId":"turn-3","toolCallId":"tc-4"}}`
	const badEnvelope = `{"channel":"ahp-chat:/c1","serverSeq":"seven","action":{"type":"chat/toolCallProgress","turnId":"turn-3","toolCallId":"tc-4","elapsedMs":1}}`
	const content = `{"channel":"ahp-chat:/c1","serverSeq":8,"action":{"type":"chat/toolCallContentChanged","turnId":"turn-3","toolCallId":"tc-4","content":[{"type":"text","text":"waiting\n"}]}}`
	perChannel := func(actions string) string {
		return `{"channels":[{"kind":"replay","channel":"ahp-root://","actions":[]},{"kind":"replay","channel":"ahp-chat:/c1","actions":[` + actions + `]}]}`
	}
	legacy := func(actions string) string {
		return `{"type":"replay","missing":[],"actions":[` + actions + `]}`
	}
	cases := []struct {
		name, result string
		ok           bool
	}{
		{"per-channel progress then content", perChannel(progress + "," + content), true},
		{"per-channel progress alone", perChannel(progress), true},
		{"per-channel progress without elapsedMs", perChannel(noElapsed), false},
		{"per-channel progress in a bad envelope", perChannel(badEnvelope), false},
		{"legacy progress then content", legacy(progress + "," + content), true},
		{"legacy progress without elapsedMs", legacy(content + "," + noElapsed), false},
		{"legacy progress in a bad envelope", legacy(badEnvelope), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateResult("reconnect", []byte(c.result))
			if c.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}
