package reduce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzApply feeds arbitrary JSON as state and action to every reducer, in
// the 0.8 and the 1.x dialect: no panic may escape and the inputs must come
// back unchanged. Seeds: the official fixtures and ours (gaps, v1).
func FuzzApply(f *testing.F) {
	dir := fixtureDir(f, "reducers")
	entries, err := os.ReadDir(dir)
	require.NoError(f, err)
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(f, err)
		var fx fixture
		if json.Unmarshal(raw, &fx) != nil {
			continue
		}
		var actions []json.RawMessage
		if json.Unmarshal(fx.Actions, &actions) != nil {
			continue
		}
		for _, a := range actions {
			f.Add([]byte(fx.Initial), []byte(a))
		}
	}
	for _, sub := range []string{"gaps", "v1"} {
		ours, _ := filepath.Glob(filepath.Join("testdata", sub, "*.json"))
		for _, p := range ours {
			raw, err := os.ReadFile(p)
			require.NoError(f, err)
			var fx fixture
			var actions []json.RawMessage
			if json.Unmarshal(raw, &fx) == nil && json.Unmarshal(fx.Actions, &actions) == nil {
				for _, a := range actions {
					f.Add([]byte(fx.Initial), []byte(a))
				}
			}
		}
	}
	f.Add([]byte(`{"activeTurn":{"id":1,"responseParts":[null,{"kind":"toolCall","toolCall":7}]}}`),
		[]byte(`{"type":"chat/toolCallComplete","turnId":1,"toolCallId":null,"result":[]}`))
	f.Fuzz(func(t *testing.T, stateJSON, actionJSON []byte) {
		sv, err1 := Decode(stateJSON)
		av, err2 := Decode(actionJSON)
		if err1 != nil || err2 != nil {
			return
		}
		state, _ := sv.(map[string]any)
		action, _ := av.(map[string]any)
		before, _ := json.Marshal(state)
		actBefore, _ := json.Marshal(action)
		for _, k := range []Kind{Root, Session, Chat} {
			for _, d := range []string{"", "1.0.0"} {
				out := ApplyWith(k, state, action, Options{Now: pinned, Dialect: d})
				if _, err := json.Marshal(out); err != nil {
					t.Fatalf("result does not encode: %v", err)
				}
			}
		}
		after, _ := json.Marshal(state)
		actAfter, _ := json.Marshal(action)
		if string(before) != string(after) || string(actBefore) != string(actAfter) {
			t.Fatalf("inputs mutated")
		}
	})
}
