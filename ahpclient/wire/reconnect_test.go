package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeReconnectResult reads both reconnect answers into per-channel
// recoveries.
func TestDecodeReconnectResult(t *testing.T) {
	req := []string{"ahp-root://", "ahp-session:/a", "ahp-chat:/c", "ahp-session:/gone"}
	type want struct {
		kind    string
		actions int
	}
	cases := []struct {
		name       string
		raw        string
		perChannel bool
		want       map[string]want
		unanswered []string
	}{
		{
			name:       "per channel, all three kinds and an open-enum kind",
			raw:        `{"channels":[{"kind":"replay","channel":"ahp-chat:/c","actions":[{"channel":"ahp-chat:/c","serverSeq":43,"action":{"type":"chat/x"}}]},{"kind":"snapshot","channel":"ahp-session:/a","snapshot":{"resource":"ahp-session:/a","state":{},"fromSeq":50}},{"kind":"missing","channel":"ahp-session:/gone"},{"kind":"x-later","channel":"ahp-root://"}]}`,
			perChannel: true,
			want:       map[string]want{"ahp-chat:/c": {"replay", 1}, "ahp-session:/a": {"snapshot", 0}, "ahp-session:/gone": {"missing", 0}, "ahp-root://": {"x-later", 0}},
		},
		{
			name:       "per channel, a channel left out and a snapshot for the wrong resource",
			raw:        `{"channels":[{"kind":"replay","channel":"ahp-root://","actions":[]},{"kind":"snapshot","channel":"ahp-session:/a","snapshot":{"resource":"ahp-session:/b","state":{},"fromSeq":5}}]}`,
			perChannel: true,
			want:       map[string]want{"ahp-root://": {"replay", 0}},
			unanswered: []string{"ahp-session:/a", "ahp-chat:/c", "ahp-session:/gone"},
		},
		{
			name: "legacy replay is split by channel",
			raw:  `{"type":"replay","actions":[{"channel":"ahp-chat:/c","serverSeq":3,"action":{}},{"channel":"ahp-root://","serverSeq":4,"action":{}},{"channel":"ahp-chat:/c","serverSeq":5,"action":{}}],"missing":["ahp-session:/gone"]}`,
			want: map[string]want{"ahp-chat:/c": {"replay", 2}, "ahp-root://": {"replay", 1}, "ahp-session:/a": {"replay", 0}, "ahp-session:/gone": {"missing", 0}},
		},
		{
			name: "legacy snapshot: a channel without a snapshot is missing",
			raw:  `{"type":"snapshot","snapshots":[{"resource":"ahp-root://","state":{},"fromSeq":9},{"resource":"ahp-session:/a","state":{},"fromSeq":9},{"resource":"ahp-chat:/c","state":{},"fromSeq":9}]}`,
			want: map[string]want{"ahp-root://": {"snapshot", 0}, "ahp-session:/a": {"snapshot", 0}, "ahp-chat:/c": {"snapshot", 0}, "ahp-session:/gone": {"missing", 0}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := DecodeReconnectResult(json.RawMessage(c.raw), req)
			require.NoError(t, err)
			assert.Equal(t, c.perChannel, out.PerChannel)
			got := map[string]want{}
			for _, r := range out.Channels {
				got[r.Channel] = want{r.Kind, len(r.Actions)}
				if r.Kind == RecoverySnapshot {
					require.NotNil(t, r.Snapshot)
					assert.Equal(t, r.Channel, r.Snapshot.Resource)
				}
			}
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.unanswered, out.Unanswered)
		})
	}
	_, err := DecodeReconnectResult(json.RawMessage(`{"type":"other"}`), req)
	assert.Error(t, err)
	_, err = DecodeReconnectResult(json.RawMessage(`[]`), req)
	assert.Error(t, err)
}

func TestReconnectParamsShapes(t *testing.T) {
	pc, err := json.Marshal(ReconnectParams{Channel: "ahp-root://", ClientID: "c", Subscriptions: []ChannelReplayCursor{{"ahp-root://", 42}, {"ahp-session:/a", 0}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"channel":"ahp-root://","clientId":"c","subscriptions":[{"channel":"ahp-root://","lastSeenServerSeq":42},{"channel":"ahp-session:/a","lastSeenServerSeq":0}]}`, string(pc))
	assert.True(t, IsPerChannelReconnect(pc))
	legacy, err := json.Marshal(LegacyReconnectParams{Channel: "ahp-root://", ClientID: "c", LastSeenServerSeq: 42, Subscriptions: []string{"ahp-root://"}})
	require.NoError(t, err)
	assert.NotContains(t, string(legacy), "windows", "the experimental windows field is never sent")
	assert.False(t, IsPerChannelReconnect(legacy))
	assert.True(t, IsPerChannelReconnect(json.RawMessage(`{"channel":"ahp-root://","clientId":"c","subscriptions":[]}`)))
	assert.False(t, IsPerChannelReconnect(json.RawMessage(`{"channel":"ahp-root://","clientId":"c","lastSeenServerSeq":1,"subscriptions":[]}`)))
}

// The official 1.1 reconnect fixtures (testdata/ahp-test-cases/
// round-trips-1.1, PROVENANCE.md there): params encode as the fixture's
// acceptable output; either result shape decodes into recoveries.
func TestOfficialReconnectFixtures(t *testing.T) {
	dir := fixtureDir(t, "round-trips-1.1")
	read := func(name string) (in, out json.RawMessage) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		var f struct {
			Input             json.RawMessage   `json:"input"`
			AcceptableOutputs []json.RawMessage `json:"acceptableOutputs"`
		}
		require.NoError(t, json.Unmarshal(b, &f))
		require.NotEmpty(t, f.AcceptableOutputs)
		return f.Input, f.AcceptableOutputs[0]
	}

	in, want := read("054-reconnect-params-per-channel-cursors.json")
	var p ReconnectParams
	require.NoError(t, json.Unmarshal(in, &p))
	got, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
	assert.True(t, IsPerChannelReconnect(in))

	in, _ = read("055-reconnect-result-mixed-channel-recovery.json")
	req := []string{"ahp-session:/a", "ahp-canvas:/b", "ahp-terminal:/c"}
	o, err := DecodeReconnectResult(in, req)
	require.NoError(t, err)
	assert.True(t, o.PerChannel)
	require.Len(t, o.Channels, 3)
	assert.Equal(t, RecoveryReplay, o.Channels[0].Kind)
	assert.Len(t, o.Channels[0].Actions, 2)
	assert.Equal(t, RecoverySnapshot, o.Channels[1].Kind)
	assert.Equal(t, int64(50), o.Channels[1].Snapshot.FromSeq)
	assert.Equal(t, RecoveryMissing, o.Channels[2].Kind)
	assert.Empty(t, o.Unanswered)

	in, _ = read("058-channel-delivery-reconnect.json")
	o, err = DecodeReconnectResult(in, []string{"ahp-root://"})
	require.NoError(t, err, "windows is ignored")
	assert.False(t, o.PerChannel)
	assert.Equal(t, []ChannelRecovery{{Kind: RecoveryReplay, Channel: "ahp-root://"}}, o.Channels)

	in, _ = read("061-reconnect-snapshot-without-missing.json")
	o, err = DecodeReconnectResult(in, []string{"ahp-session:/gone"})
	require.NoError(t, err)
	assert.Equal(t, []ChannelRecovery{{Kind: RecoveryMissing, Channel: "ahp-session:/gone"}}, o.Channels)
}
