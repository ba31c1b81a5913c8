package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacyOffer is what ahpls offered before the 1.x dialect existed.
var legacyOffer = []string{"0.8.0", "0.7.0", "0.6.0", "0.5.2", "0.5.1"}

// TestNegotiationTable runs the host-side selection rule (upstream
// 1.1.0-dev, docs/ahp.md §9) against ahpls's offer and checks what ahpls
// then does with the outcome: a dialect for a choice, a message naming both
// sides for a refusal.
func TestNegotiationTable(t *testing.T) {
	cases := []struct {
		name          string
		offered, host []string
		want          string // "" = refused
		dialect       any
		message       string // for refusals: the exact user-facing text
	}{
		{name: "host 1.x-only", offered: ProtocolVersions(), host: []string{"1.0.0", "0.9.0"}, want: "1.0.0", dialect: V1{}},
		{name: "host 0.9-only", offered: ProtocolVersions(), host: []string{"0.9.0"}, want: "0.9.0", dialect: V1{}},
		{name: "host 0.8-only", offered: ProtocolVersions(), host: []string{"0.8.0"}, want: "0.8.0", dialect: V08{}},
		{name: "host 0.7-only", offered: ProtocolVersions(), host: []string{"0.7.0"}, want: "0.7.0", dialect: V08{}},
		{name: "host offering both takes the highest", offered: ProtocolVersions(), host: []string{"0.8.0", "0.9.0", "1.0.0"}, want: "1.0.0", dialect: V1{}},
		{name: "client order is ignored", offered: []string{"0.9.0", "0.8.0", "1.0.0"}, host: []string{"1.0.0", "0.9.0"}, want: "1.0.0", dialect: V1{}},
		{name: "a later 1.x patch is caret-compatible", offered: []string{"1.0.3", "0.8.0"}, host: []string{"1.0.0"}, want: "1.0.3", dialect: V1{}},
		{name: "build metadata is ignored", offered: []string{"1.0.0+acme.3"}, host: []string{"1.0.0"}, want: "1.0.0+acme.3", dialect: V1{}},
		{name: "a caret range in the host list", offered: ProtocolVersions(), host: []string{"^0.8.0"}, want: "0.8.0", dialect: V08{}},
		{name: "unparseable offers are skipped", offered: []string{"latest", "1.0", "", "0.9.0"}, host: []string{"1.0.0", "0.9.0"}, want: "0.9.0", dialect: V1{}},
		{name: "host refusing all", offered: ProtocolVersions(), host: []string{"2.0.0"},
			message: "the agent host supports protocol 2.0.0; ahpls offered 1.0.0, 0.9.0, 0.8.0, 0.7.0, 0.6.0, 0.5.2, 0.5.1 (this ahpls is older than the agent host: upgrade ahpls)"},
		{name: "old ahpls offer against a 1.x host (the bug fixed here)", offered: legacyOffer, host: []string{"1.0.0", "0.9.0"},
			message: "the agent host supports protocol 1.0.0, 0.9.0; ahpls offered 0.8.0, 0.7.0, 0.6.0, 0.5.2, 0.5.1 (this ahpls is older than the agent host: upgrade ahpls)"},
		{name: "host older than every offer", offered: ProtocolVersions(), host: []string{"0.4.0"},
			message: "the agent host supports protocol 0.4.0; ahpls offered 1.0.0, 0.9.0, 0.8.0, 0.7.0, 0.6.0, 0.5.2, 0.5.1 (the agent host is older than this ahpls supports: upgrade the agent host)"},
		{name: "0.x needs the same minor", offered: []string{"0.10.0"}, host: []string{"0.9.0"},
			message: "the agent host supports protocol 0.9.0; ahpls offered 0.10.0 (the agent host is older than this ahpls supports: upgrade the agent host)"},
		{name: "below the baseline", offered: []string{"1.0.0-rc.1"}, host: []string{"1.0.0", "0.9.0"},
			message: "the agent host supports protocol 1.0.0, 0.9.0; ahpls offered 1.0.0-rc.1"},
		{name: "host with nothing usable", offered: ProtocolVersions(), host: nil,
			message: "the agent host refused every protocol version ahpls offered (1.0.0, 0.9.0, 0.8.0, 0.7.0, 0.6.0, 0.5.2, 0.5.1) and did not say which it supports"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Negotiate(c.offered, c.host)
			if c.want != "" {
				require.NoError(t, err)
				assert.Equal(t, c.want, got)
				d, err := SelectDialect(got)
				require.NoError(t, err)
				assert.IsType(t, c.dialect, d)
				assert.Equal(t, c.want, d.Version())
				assert.Equal(t, IsV1(got), d.Enablement() == EnablementScoped)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrUnsupportedVersion))
			var ne *VersionNegotiationError
			require.True(t, errors.As(err, &ne))
			assert.Equal(t, c.message, err.Error())

			// The host sends Data with -32005; ahpls rebuilds the same
			// message from the frame alone.
			frame, err := json.Marshal(Message{JSONRPC: "2.0", ID: new(int64), Error: &RPCError{
				Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: mustJSON(t, ne.Data())}})
			require.NoError(t, err)
			m, err := DecodeMessage(frame)
			require.NoError(t, err)
			require.NotNil(t, m.Error)
			assert.Equal(t, int64(CodeUnsupportedProtocolVersion), m.Error.Code)
			assert.Equal(t, c.message, UnsupportedVersionMessage(m.Error.Data, c.offered))
			// supportedVersions is required in 1.x: always an array.
			assert.Contains(t, string(m.Error.Data), `"supportedVersions":[`)
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestUnsupportedVersionMessageFromOddData(t *testing.T) {
	noData := "the agent host refused every protocol version ahpls offered (0.8.0) and did not say which it supports"
	for data, want := range map[string]string{
		``:                                   noData,
		`null`:                               noData,
		`{}`:                                 noData,
		`"1.0.0"`:                            noData,
		`{"supportedVersions":"1.0.0"}`:      noData,
		`{"supportedVersions":[1,"", "  "]}`: noData,
		`{"supportedVersions":[7,"1.0.0"]}`:  "the agent host supports protocol 1.0.0; ahpls offered 0.8.0 (this ahpls is older than the agent host: upgrade ahpls)",
		`{"supportedVersions":[">=0.8 <2","1.x"]}`: "the agent host supports protocol >=0.8 <2, 1.x; ahpls offered 0.8.0",
	} {
		assert.Equal(t, want, UnsupportedVersionMessage(json.RawMessage(data), []string{"0.8.0"}), data)
	}
	assert.Equal(t, "the agent host supports protocol 1.0.0; ahpls offered nothing", DescribeVersionRefusal([]string{"1.0.0"}, nil))
}

func TestSelectDialectRejectsUnknownChoice(t *testing.T) {
	for _, v := range []string{"2.0.0", "0.10.0", "", "banana"} {
		_, err := SelectDialect(v)
		require.Error(t, err, v)
		assert.True(t, errors.Is(err, ErrUnsupportedVersion))
		assert.Contains(t, err.Error(), `chose protocol "`+v+`"`)
		assert.Contains(t, err.Error(), "ahpls speaks 1.0.0, 0.9.0, 0.8.0")
	}
	assert.False(t, IsV1("0.8.0"))
	assert.True(t, IsV1("0.9.0"))
	assert.True(t, IsV1("1.0.0"))
}

func TestV1IsFixedToEnablementLists(t *testing.T) {
	d, err := DialectFor("1.0.0")
	require.NoError(t, err)
	for _, s := range []EnablementShape{EnablementBoolean, EnablementUnknown, EnablementScoped} {
		assert.Equal(t, EnablementScoped, d.WithEnablement(s).Enablement(), s.String())
	}
	assert.Equal(t, []string{"1.0.0", "0.9.0"}, d.Versions())
	assert.Equal(t, "1.0.0", V1{}.Version(), "zero value")
	assert.False(t, d.ClientExecutionRaisesInputNeeded())
	assert.Equal(t, LifecycleFailed, d.Lifecycle("failed"))
	assert.Equal(t, LifecycleFailed, d.Lifecycle("creationFailed"), "lenient")
	assert.Equal(t, LifecycleReady, d.Lifecycle("ready"))
	assert.Equal(t, []string{"file:///a"}, d.WorkingDirectories(map[string]any{"workingDirectories": []any{"file:///a"}, "workingDirectory": "file:///old"}))
	assert.Equal(t, []string{"file:///old"}, d.WorkingDirectories(map[string]any{"workingDirectory": "file:///old"}), "lenient")
	assert.Nil(t, d.WorkingDirectories(map[string]any{}))
	assert.Nil(t, d.SummaryWorkingDirectories(SessionSummary{}))
}

// A host announcing 0.8.0 that sends enablement lists (docs/ahp.md §4.7)
// gets, once detected, what a 1.x host gets for plugins and toggles, plus
// the `enabled` the 0.8.0 schema requires (issue 15).
func TestReleased08WithListsPublishesLikeV1(t *testing.T) {
	e := PluginEnablement{Global: false, Effective: false, Children: map[string]bool{"docs": true, "web": false}}
	decisions := []CustomizationEnablement{{Kind: ScopeWorkspace, URI: "file:///w", Enabled: true}, {Kind: ScopeGlobal, Enabled: false}}
	var state []Customization
	require.NoError(t, json.Unmarshal([]byte(`[{"type":"plugin","id":"p","uri":"u","name":"n","enablement":[{"kind":"global","enabled":true}]}]`), &state))
	v08 := V08{}.WithEnablement(DetectEnablement(state))
	for _, d := range []Dialect{v08, V1{}} {
		p := ClientPluginCustomization{ID: "p", URI: "virtual://ahpls/h/ws", Name: "W", Enabled: Bool(true)}
		d.ApplyPluginEnablement(&p, e)
		enabled, toggled := "", ""
		if d == v08 {
			enabled, toggled = `"enabled":false,`, `"enabled":true,`
		}
		assert.JSONEq(t, `{"type":"plugin","id":"p","uri":"virtual://ahpls/h/ws","name":"W",`+enabled+`"enablement":[{"kind":"global","enabled":false}],
			"childEnablement":{"docs":[{"kind":"global","enabled":true}],"web":[{"kind":"global","enabled":false}]}}`, string(mustJSON(t, p)), d.Version())
		assert.JSONEq(t, `{"type":"session/customizationToggled","id":"m",`+toggled+`"enablement":[{"kind":"workspace","uri":"file:///w","enabled":true},{"kind":"global","enabled":false}]}`,
			string(mustJSON(t, d.CustomizationToggled("m", decisions))), d.Version())
	}
}

// TestV1OutgoingGolden pins the 1.x shapes ahpls sends (docs/ahp.md §9's
// jsonc examples made concrete) in testdata/v1. They are not checked
// against shared/ahp/schema: that is the 0.8.0 snapshot, which requires
// `enabled` (TestV1ShapesFailTheSnapshotSchema).
func TestV1OutgoingGolden(t *testing.T) {
	d, err := SelectDialect("1.0.0")
	require.NoError(t, err)
	plugin := ClientPluginCustomization{ID: "ahpls-3f9c2a:workspace", URI: "virtual://ahpls/5f2a9c/workspace", Name: "Workspace customizations", Nonce: "sha256-5f2a9c"}
	d.ApplyPluginEnablement(&plugin, PluginEnablement{Global: true, Effective: false, Children: map[string]bool{"docs": false}})
	cases := []struct {
		golden string
		value  any
	}{
		{"plugin", plugin},
		{"active-client-set", NewActiveClientSet(sampleClient(d))},
		{"customization-toggled", d.CustomizationToggled("ahpls-ws-mcp-docs", []CustomizationEnablement{{Kind: ScopeSession, Enabled: false}, {Kind: ScopeGlobal, Enabled: true}})},
		{"customization-toggled-cleared", d.CustomizationToggled("ahpls-ws-mcp-docs", nil)},
		{"customization-toggled-leaf", d.CustomizationToggled("ahpls-ws-skill-lint", []CustomizationEnablement{{Kind: ScopeSession, Enabled: false}})},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			got := mustJSON(t, tc.value)
			path := filepath.Join("testdata", "v1", tc.golden+".json")
			if *update {
				var buf bytes.Buffer
				require.NoError(t, json.Indent(&buf, got, "", "  "))
				buf.WriteByte('\n')
				require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create %s", path)
			assert.JSONEq(t, string(want), string(got))
			assert.NotContains(t, string(got), `"enabled":true,"nonce"`)
			// No plugin anywhere carries `enabled` beside its list.
			var generic any
			require.NoError(t, json.Unmarshal(got, &generic))
			walkObjects(generic, func(m map[string]any) {
				if m["type"] == "plugin" {
					assert.NotContains(t, m, "enabled", "a 1.x plugin has no enabled")
					assert.Contains(t, m, "enablement", "the global decision is always published")
				}
			})
			// Wrapped for dispatch, the action round-trips and reads back.
			if !strings.HasPrefix(tc.golden, "customization-toggled") {
				return
			}
			sa, err := NewStateAction(tc.value)
			require.NoError(t, err)
			var back DispatchActionParams
			require.NoError(t, json.Unmarshal(mustJSON(t, DispatchActionParams{Channel: "ahp-session:/4f1c0e2a", ClientSeq: 3, Action: sa}), &back))
			assert.JSONEq(t, string(got), string(back.Action.Raw))
			id, _, list, err := d.ToggleDecision(back.Action)
			require.NoError(t, err)
			assert.Equal(t, tc.value.(CustomizationToggledAction).ID, id)
			assert.NotNil(t, list, "enablement is required: [] rather than absent")
		})
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "v1"))
	require.NoError(t, err)
	files := 0
	for _, e := range entries {
		if !e.IsDir() {
			files++
		}
	}
	assert.Equal(t, len(cases), files, "one golden file per case")
}

func walkObjects(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, e := range x {
			walkObjects(e, f)
		}
	case []any:
		for _, e := range x {
			walkObjects(e, f)
		}
	}
}

// The snapshot schema must reject the 1.x toggle and plugin, or the
// "not a snapshot shape" exemption above would hide a real mistake.
func TestV1ShapesFailTheSnapshotSchema(t *testing.T) {
	d := V1{}
	for def, v := range map[string]any{
		"SessionCustomizationToggledAction": d.CustomizationToggled("x", []CustomizationEnablement{{Kind: ScopeGlobal, Enabled: true}}),
		"SessionActiveClientSetAction":      NewActiveClientSet(sampleClient(d)),
	} {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(t, v)))
		require.NoError(t, err)
		assert.Error(t, schemaFor(t, def).Validate(inst), def)
	}
}

func readIncoming(t *testing.T, name string) Message {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "v1", "incoming", name+".json"))
	require.NoError(t, err)
	m, err := DecodeMessage(raw)
	require.NoError(t, err)
	return m
}

// decodeRoundTrip decodes raw into v and checks that re-encoding loses no
// key: every 1.x addition ahpls models must survive.
func decodeRoundTrip(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(raw, v))
	assert.JSONEq(t, string(raw), string(mustJSON(t, v)))
}

// TestV1IncomingShapes decodes what a 1.x host sends (testdata/v1/incoming)
// through the typed structs and the V1 dialect.
func TestV1IncomingShapes(t *testing.T) {
	d := V1{}

	t.Run("customizationToggled with a list", func(t *testing.T) {
		m := readIncoming(t, "customization-toggled")
		env, err := DecodeEnvelope(m.Params)
		require.NoError(t, err)
		assert.JSONEq(t, string(m.Params), string(mustJSON(t, env)))
		id, eff, list, err := d.ToggleDecision(env.Action)
		require.NoError(t, err)
		assert.Equal(t, "ahpls-ws-mcp-docs", id)
		assert.False(t, eff, "the session entry decides")
		assert.Equal(t, []CustomizationEnablement{{Kind: ScopeSession, Enabled: false}, {Kind: ScopeGlobal, Enabled: true}}, list)
		// The 0.8 dialect reads it too (a released-0.8.0 host).
		_, eff08, list08, err := V08{}.ToggleDecision(env.Action)
		require.NoError(t, err)
		assert.False(t, eff08)
		assert.Equal(t, list, list08)
	})

	t.Run("customizationToggled with enabled only", func(t *testing.T) {
		env, err := DecodeEnvelope(readIncoming(t, "customization-toggled-enabled-only").Params)
		require.NoError(t, err)
		_, _, _, err = d.ToggleDecision(env.Action)
		assert.ErrorIs(t, err, ErrToggleWithoutEnablement)
		_, eff, _, err := V08{}.ToggleDecision(env.Action)
		require.NoError(t, err, "the snapshot shape in the 0.8 dialect")
		assert.False(t, eff)
	})

	t.Run("customizationUpdated with lists and a blocking MCP start", func(t *testing.T) {
		env, err := DecodeEnvelope(readIncoming(t, "customization-updated").Params)
		require.NoError(t, err)
		var a struct {
			Customization Customization `json:"customization"`
		}
		require.NoError(t, json.Unmarshal(env.Action.Raw, &a))
		c := a.Customization
		assert.JSONEq(t, string(mustJSON(t, json.RawMessage(env.Action.Raw))), string(env.Action.Raw))
		assert.Nil(t, c.Enabled)
		assert.True(t, EffectiveEnabled(c.Enablement))
		assert.Equal(t, EnablementScoped, DetectEnablement([]Customization{c}))
		require.Len(t, c.Children, 2)
		assert.Equal(t, Bool(false), c.Children[0].Enabled, "leaves keep enabled")
		mcp := c.Children[1]
		require.NotNil(t, mcp.State)
		assert.Equal(t, "starting", mcp.State.Kind)
		assert.True(t, mcp.State.Blocking())
		assert.False(t, EffectiveEnabled(mcp.Enablement))
		assert.False(t, McpServerState{Kind: "ready"}.Blocking())
		var bad McpServerState
		require.NoError(t, json.Unmarshal([]byte(`{"kind":"starting","blocking":"yes"}`), &bad))
		assert.False(t, bad.Blocking())
		assert.JSONEq(t, `{"kind":"starting","blocking":"yes"}`, string(mustJSON(t, bad)), "kept verbatim")
	})

	t.Run("sessionAdded with 1.x summary fields", func(t *testing.T) {
		var p SessionAddedParams
		decodeRoundTrip(t, readIncoming(t, "session-added").Params, &p)
		s := p.Summary
		assert.Equal(t, "ahp-chat:/9a0b77c1", s.DefaultChat)
		require.Len(t, s.Chats, 2)
		assert.Equal(t, "hidden", s.Chats[1].Interactivity)
		assert.JSONEq(t, `{"kind":"tool","chat":"ahp-chat:/9a0b77c1","toolCallId":"tc-5"}`, string(s.Chats[1].Origin))
		assert.NotEmpty(t, s.Origin)
		assert.NotEmpty(t, s.Repositories)
		assert.Equal(t, []string{"file:///home/u/proj"}, d.SummaryWorkingDirectories(s))
	})

	t.Run("sessionSummaryChanged with chats", func(t *testing.T) {
		var p SessionSummaryChangedParams
		decodeRoundTrip(t, readIncoming(t, "session-summary-changed").Params, &p)
		require.NotNil(t, p.Changes.DefaultChat)
		assert.Len(t, p.Changes.Chats, 1)
	})

	t.Run("initialize result with 1.x fields", func(t *testing.T) {
		var r InitializeResult
		decodeRoundTrip(t, readIncoming(t, "initialize-result").Result, &r)
		assert.Equal(t, "2026.08", r.Meta["acme/build"])
		assert.NotEmpty(t, r.Automations)
		assert.JSONEq(t, `{}`, string(r.TCPConnections))
		dl, err := SelectDialect(r.ProtocolVersion)
		require.NoError(t, err)
		assert.IsType(t, V1{}, dl)
	})

	t.Run("chat/error with an ErrorResponsePart", func(t *testing.T) {
		env, err := DecodeEnvelope(readIncoming(t, "chat-error").Params)
		require.NoError(t, err)
		want := ChatErrorAction{TurnID: "turn-3", Duration: 61000, Error: ErrorInfo{ErrorType: "ProviderError", Message: "rate limited"}, Resumable: true}
		for _, dl := range []Dialect{d, V08{}} {
			got, err := dl.ChatError(env.Action)
			require.NoError(t, err)
			assert.Equal(t, want, got, dl.Version())
		}
	})

	t.Run("chat/error with both shapes: the dialect's own wins", func(t *testing.T) {
		var sa StateAction
		require.NoError(t, json.Unmarshal([]byte(`{"type":"chat/error","turnId":"t","error":{"errorType":"Old","message":"o"},"part":{"kind":"error","error":{"errorType":"New","message":"n"}}}`), &sa))
		got, err := d.ChatError(sa)
		require.NoError(t, err)
		assert.Equal(t, "New", got.Error.ErrorType)
		got, err = V08{}.ChatError(sa)
		require.NoError(t, err)
		assert.Equal(t, "Old", got.Error.ErrorType)
		require.NoError(t, json.Unmarshal([]byte(`{"type":"chat/error","turnId":"t","part":"boom"}`), &sa))
		_, err = d.ChatError(sa)
		assert.Error(t, err, "a part that is not an object")
	})

	t.Run("session snapshot with lifecycle failed", func(t *testing.T) {
		var res struct {
			Snapshot Snapshot `json:"snapshot"`
		}
		require.NoError(t, json.Unmarshal(readIncoming(t, "subscribe-session-failed").Result, &res))
		var state map[string]any
		require.NoError(t, json.Unmarshal(res.Snapshot.State, &state))
		lc, _ := state["lifecycle"].(string)
		assert.Equal(t, LifecycleFailed, d.Lifecycle(lc))
		assert.Equal(t, []string{"file:///home/u/proj"}, d.WorkingDirectories(state))
	})

	t.Run("initialize refused with -32005", func(t *testing.T) {
		m := readIncoming(t, "initialize-refused")
		require.Equal(t, KindResponse, m.Kind())
		require.NotNil(t, m.Error)
		assert.Equal(t, int64(CodeUnsupportedProtocolVersion), m.Error.Code)
		assert.Equal(t, []string{"1.0.0", "0.9.0"}, SupportedVersionsFromData(m.Error.Data))
		assert.Equal(t, "the agent host supports protocol 1.0.0, 0.9.0; ahpls offered 0.8.0, 0.7.0, 0.6.0, 0.5.2, 0.5.1 (this ahpls is older than the agent host: upgrade ahpls)",
			UnsupportedVersionMessage(m.Error.Data, legacyOffer))
		// What ahpls offers now is accepted by that host.
		got, err := Negotiate(ProtocolVersions(), SupportedVersionsFromData(m.Error.Data))
		require.NoError(t, err)
		assert.Equal(t, "1.0.0", got)
	})
}

// IsV1 runs per reduced action (reduce.ApplyWith): it must agree with
// DialectFor and must not allocate.
func TestIsV1AgreesWithDialectForWithoutAllocating(t *testing.T) {
	for _, v := range []string{"1.0.0", "0.9.0", "0.9.3", "1.2.0-dev", "0.8.0", "0.10.0", "2.0.0", "", "1.0", "1.0.0.1", "x.y.z", "1.0.0-", "1.0.0+b.7"} {
		d, err := DialectFor(v)
		_, isV1 := d.(V1)
		assert.Equal(t, err == nil && isV1, IsV1(v), v)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { IsV1("1.0.0") }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { IsV1("0.8.0") }))
}

// A summary change replaces exactly the fields it carries.
func TestSessionSummaryWith(t *testing.T) {
	title, dir := "new", "file:///b"
	s := SessionSummary{Resource: "ahp-session:/a", Title: "old", Provider: "p", WorkingDirectories: []string{"file:///a"}}
	got := s.With(PartialSessionSummary{Title: &title, WorkingDirectories: []string{dir}})
	if got.Resource != s.Resource || got.Title != title || got.Provider != "p" || len(got.WorkingDirectories) != 1 || got.WorkingDirectories[0] != dir {
		t.Fatalf("got %+v", got)
	}
	if s.Title != "old" {
		t.Fatal("the original summary changed")
	}
}
