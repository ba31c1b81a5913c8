package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeEnvelope drives the frame → envelope → action decoders with
// arbitrary bytes. Properties: nothing panics; whatever decodes re-encodes;
// re-encoding is stable (decode∘encode is the identity on encoded output);
// typed action views re-encode stably too.
func FuzzDecodeEnvelope(f *testing.F) {
	dir := fixtureDir(f, "round-trips")
	entries, err := os.ReadDir(dir)
	require.NoError(f, err)
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(f, err)
		var rt roundTrip
		if json.Unmarshal(raw, &rt) == nil && rt.Input != nil {
			f.Add([]byte(rt.Input))
			f.Add([]byte(`{"jsonrpc":"2.0","method":"action","params":` + string(rt.Input) + `}`))
		}
	}
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, g := range golden {
		raw, err := os.ReadFile(g)
		require.NoError(f, err)
		f.Add([]byte(`{"channel":"ahp-chat:/c","serverSeq":9,"origin":{"clientId":"a","clientSeq":1},"action":` + string(raw) + `}`))
	}
	f.Add([]byte(`{"channel":"c","serverSeq":1e400,"action":{"type":"chat/toolCallComplete","turnId":"t","toolCallId":"x","result":{"success":true,"pastTenseMessage":{"markdown":"m"},"content":[{"type":"text","text":"a"},{"type":"fileEdit"}]}}}`))
	f.Add([]byte(`{"channel":"c","serverSeq":-1,"action":{"type":"session/activeClientSet","activeClient":{"clientId":"c","tools":null,"customizations":[{"type":"plugin","enablement":[]}]}}}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		if m, err := DecodeMessage(data); err == nil {
			if _, err := json.Marshal(m); err != nil {
				t.Fatalf("decoded frame does not re-encode: %v", err)
			}
			if m.Method == "action" && m.Params != nil {
				checkEnvelope(t, m.Params)
			}
		}
		checkEnvelope(t, data)
	})
}

func checkEnvelope(t *testing.T, data []byte) {
	env, err := DecodeEnvelope(data)
	if err != nil {
		return
	}
	first, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("decoded envelope does not re-encode: %v", err)
	}
	again, err := DecodeEnvelope(first)
	if err != nil {
		t.Fatalf("re-encoded envelope does not decode: %v\n%s", err, first)
	}
	second, err := json.Marshal(again)
	if err != nil || !bytes.Equal(first, second) {
		t.Fatalf("envelope re-encoding unstable:\n%s\n%s", first, second)
	}
	typed, err := DecodeAction(env.Action)
	if err != nil {
		return
	}
	tb, err := json.Marshal(typed)
	if err != nil {
		t.Fatalf("typed %s does not re-encode: %v", env.Action.Type, err)
	}
	var sa StateAction
	if err := json.Unmarshal(tb, &sa); err != nil {
		t.Fatalf("typed %s re-encodes to a non-object: %s", env.Action.Type, tb)
	}
	typed2, err := DecodeAction(sa)
	if err != nil {
		t.Fatalf("typed %s re-encoding does not decode: %v\n%s", env.Action.Type, err, tb)
	}
	tb2, err := json.Marshal(typed2)
	if err != nil || !bytes.Equal(tb, tb2) {
		t.Fatalf("typed %s re-encoding unstable:\n%s\n%s", env.Action.Type, tb, tb2)
	}
}
