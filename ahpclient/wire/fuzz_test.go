package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// FuzzNegotiate checks the host-side selection model on arbitrary version
// lists: no panic; a choice is one of the offered strings, caret-compatible
// with a supported entry and not below any other compatible offer; a refusal
// names every supported version in its message.
func FuzzNegotiate(f *testing.F) {
	f.Add("1.0.0,0.9.0,0.8.0,0.7.0,0.6.0,0.5.2,0.5.1", "1.0.0,0.9.0")
	f.Add("0.8.0,0.7.0", "1.0.0,0.9.0")
	f.Add("1.0.0-rc.1,01.0.0,1.0.0+b", "^1.0.0,>=0.9")
	f.Add(",,", "")
	f.Fuzz(func(t *testing.T, offer, host string) {
		offered, supported := strings.Split(offer, ","), strings.Split(host, ",")
		got, err := Negotiate(offered, supported)
		if err != nil {
			msg := err.Error()
			ne := err.(*VersionNegotiationError)
			if len(SupportedVersionsFromData(mustMarshal(t, ne.Data()))) > len(ne.Supported) {
				t.Fatalf("data names more versions than the host supports")
			}
			for _, s := range ne.Supported {
				if strings.TrimSpace(s) != "" && !strings.Contains(msg, s) {
					t.Fatalf("refusal %q does not name %q", msg, s)
				}
			}
			return
		}
		v, ok := parseSemver(got)
		if !ok || !slices.Contains(offered, got) {
			t.Fatalf("chose %q, not a parseable offer", got)
		}
		compatible := func(x semver) bool {
			for _, s := range supported {
				if b, ok := supportedBase(s); ok && caretCompatible(x, b) {
					return true
				}
			}
			return false
		}
		if !compatible(v) {
			t.Fatalf("chose %q, compatible with nothing in %q", got, supported)
		}
		for _, o := range offered {
			if ov, ok := parseSemver(o); ok && compatible(ov) && ov.compare(v) > 0 {
				t.Fatalf("chose %q over higher compatible %q", got, o)
			}
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzV1Readers drives the 1.x readers (chat/error, toggles, -32005 data)
// with arbitrary bytes: they may refuse, never panic.
func FuzzV1Readers(f *testing.F) {
	for _, name := range []string{"chat-error", "customization-toggled", "customization-toggled-enabled-only", "initialize-refused"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "v1", "incoming", name+".json"))
		require.NoError(f, err)
		f.Add(raw)
	}
	f.Add([]byte(`{"type":"chat/error","turnId":"t","part":{"kind":"error","error":7,"resumable":"x"}}`))
	f.Add([]byte(`{"supportedVersions":[null,{"a":1},"1.0.0"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = UnsupportedVersionMessage(data, ProtocolVersions())
		var sa StateAction
		if json.Unmarshal(data, &sa) != nil {
			if m, err := DecodeMessage(data); err == nil && m.Params != nil {
				if env, err := DecodeEnvelope(m.Params); err == nil {
					sa = env.Action
				}
			}
		}
		if sa.Raw == nil {
			return
		}
		for _, d := range []Dialect{V1{}, V08{}} {
			sa.Type = TypeChatError
			_, _ = d.ChatError(sa)
			sa.Type = TypeCustomizationToggled
			_, _, _, _ = d.ToggleDecision(sa)
		}
	})
}
