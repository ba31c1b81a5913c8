package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden files")

const commandsSchemaID = "https://microsoft.github.io/agent-host-protocol/schema/commands.schema.json"

// patchStatus replaces the closed SessionStatus enum by an integer bitset
// (docs/ahp.md §8.3 defect 2) wherever the definition appears.
func patchStatus(doc any) {
	if m, ok := doc.(map[string]any); ok {
		if defs, ok := m["$defs"].(map[string]any); ok {
			if _, ok := defs["SessionStatus"]; ok {
				defs["SessionStatus"] = map[string]any{"type": "integer", "minimum": 0}
			}
		}
	}
}

var (
	schemaMu       sync.Mutex
	schemaCompiler *jsonschema.Compiler
	schemaCache    = map[string]*jsonschema.Schema{}
)

// schemaFor compiles one definition of the (self-contained) commands schema;
// the compiler is shared so the large document is parsed once.
func schemaFor(t *testing.T, def string) *jsonschema.Schema {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[def]; ok {
		return s
	}
	if schemaCompiler == nil {
		schemaCompiler = newSchemaCompiler(t)
	}
	s, err := schemaCompiler.Compile(commandsSchemaID + "#/$defs/" + def)
	require.NoError(t, err)
	schemaCache[def] = s
	return s
}

func newSchemaCompiler(t *testing.T) *jsonschema.Compiler {
	path := filepath.Join("..", "..", "ahpschema", "schema", "commands.schema.json") // the embedded copy of the official schema
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	patchStatus(doc)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(commandsSchemaID, doc))
	return c
}

func sampleClient(d Dialect) SessionActiveClient {
	p := ClientPluginCustomization{
		ID: "ahpls-3f9c2a:workspace", URI: "virtual://ahpls/5f2a9c/workspace", Name: "Workspace customizations",
		Nonce: "sha256-5f2a9c",
	}
	d.ApplyPluginEnablement(&p, PluginEnablement{Global: true, Effective: false, Children: map[string]bool{"docs": false}})
	return SessionActiveClient{
		ClientID: "ahpls-3f9c2a", DisplayName: "ahpls",
		Tools: []ToolDefinition{{
			Name: "ahpls_diagnostics", Title: "Workspace diagnostics",
			Description: "Current compiler and linter diagnostics for a file or the workspace",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string"}}}`),
			Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true), OpenWorldHint: Bool(false)},
		}},
		Customizations: []ClientPluginCustomization{p},
	}
}

func dialectWith(t *testing.T, s EnablementShape) Dialect {
	d, err := DialectFor("0.8.0")
	require.NoError(t, err)
	return d.WithEnablement(s)
}

// TestOutgoingMessages pins what ahpls sends byte-for-byte (as JSON values)
// in golden files and validates the 0.8.0-shaped ones against the official
// schema. Scoped-enablement payloads are the released-0.8.0/1.x shape, which
// the snapshot schema (enabled required) rejects by design.
func TestOutgoingMessages(t *testing.T) {
	decisions := []CustomizationEnablement{{Kind: ScopeSession, Enabled: false}, {Kind: ScopeGlobal, Enabled: true}}
	cases := []struct {
		golden string
		value  any
		def    string // commands.schema.json definition; "" = not a snapshot-schema shape
	}{
		{"active-client-set-boolean", NewActiveClientSet(sampleClient(dialectWith(t, EnablementBoolean))), "SessionActiveClientSetAction"},
		{"active-client-set-unknown", NewActiveClientSet(sampleClient(dialectWith(t, EnablementUnknown))), "SessionActiveClientSetAction"},
		{"active-client-set-scoped", NewActiveClientSet(sampleClient(dialectWith(t, EnablementScoped))), "SessionActiveClientSetAction"},
		{"active-client-set-no-tools", NewActiveClientSet(SessionActiveClient{ClientID: "ahpls-1"}), "SessionActiveClientSetAction"},
		{"active-client-removed", NewActiveClientRemoved("ahpls-3f9c2a"), "SessionActiveClientRemovedAction"},
		{"customization-toggled-boolean", dialectWith(t, EnablementBoolean).CustomizationToggled("ahpls-ws-mcp-docs", decisions), "SessionCustomizationToggledAction"},
		{"customization-toggled-unknown", dialectWith(t, EnablementUnknown).CustomizationToggled("ahpls-ws-mcp-docs", decisions), "SessionCustomizationToggledAction"},
		{"customization-toggled-scoped", dialectWith(t, EnablementScoped).CustomizationToggled("ahpls-ws-mcp-docs", decisions), "SessionCustomizationToggledAction"},
		{"customization-toggled-scoped-cleared", dialectWith(t, EnablementScoped).CustomizationToggled("ahpls-ws-mcp-docs", nil), "SessionCustomizationToggledAction"},
		{"mcp-server-start-requested", NewMcpServerStartRequested("ahpls-ws-mcp-docs"), "SessionMcpServerStartRequestedAction"},
		{"mcp-server-stop-requested", NewMcpServerStopRequested("ahpls-ws-mcp-docs"), "SessionMcpServerStopRequestedAction"},
		{"tool-call-content-changed", NewToolCallContentChanged("turn-4", "tc-8", []ToolResultContent{TextContent("main.go:12:2: undefined: foo\n")}), "ChatToolCallContentChangedAction"},
		{"tool-call-content-cleared", NewToolCallContentChanged("turn-4", "tc-8", nil), "ChatToolCallContentChangedAction"},
		{"tool-call-complete", NewToolCallComplete("turn-4", "tc-8", ToolCallResult{
			Success: true, PastTenseMessage: Plain("Collected 1 diagnostic"),
			Content:           []ToolResultContent{TextContent("main.go:12:2: undefined: foo")},
			StructuredContent: map[string]any{"count": 1},
		}), "ChatToolCallCompleteAction"},
		{"tool-call-complete-unknown-tool", NewToolCallComplete("turn-4", "tc-11", ToolCallResult{
			Success: false, PastTenseMessage: Plain(`Tool "ahpls_gone" is not available`),
			Error: &ToolCallError{Message: `Tool "ahpls_gone" is not available on this client`, Code: "unknown_tool"},
		}), "ChatToolCallCompleteAction"},
		{"tool-call-denied", NewToolCallDenied("turn-4", "tc-10", "ahpls does not provide this tool"), "ChatToolCallDeniedAction"},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := json.Marshal(tc.value)
			require.NoError(t, err)
			path := filepath.Join("testdata", "golden", tc.golden+".json")
			if *update {
				var buf bytes.Buffer
				require.NoError(t, json.Indent(&buf, got, "", "  "))
				buf.WriteByte('\n')
				require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -update to create %s", path)
			assert.JSONEq(t, string(want), string(got))

			// Wrapped for dispatch, the action still round-trips exactly.
			sa, err := NewStateAction(tc.value)
			require.NoError(t, err)
			params, err := json.Marshal(DispatchActionParams{Channel: "ahp-session:/4f1c0e2a", ClientSeq: 7, Action: sa})
			require.NoError(t, err)
			var back DispatchActionParams
			require.NoError(t, json.Unmarshal(params, &back))
			assert.JSONEq(t, string(got), string(back.Action.Raw))

			if tc.def == "" {
				return
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(got))
			require.NoError(t, err)
			assert.NoError(t, schemaFor(t, tc.def).Validate(inst))
			pinst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
			require.NoError(t, err)
			assert.NoError(t, schemaFor(t, "DispatchActionParams").Validate(pinst))
		})
	}
}

// The schema check must be able to fail: a toggle without `enabled`
// (what a 1.x dialect sends) is rejected by the 0.8.0 schema — which is why
// the 0.x dialect always sends it, whatever shape it learnt (issue 15).
func TestSchemaCheckRejectsSnapshotViolations(t *testing.T) {
	got, err := json.Marshal(V1{}.CustomizationToggled("x", nil))
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(got))
	require.NoError(t, err)
	assert.Error(t, schemaFor(t, "SessionCustomizationToggledAction").Validate(inst))
}

func TestDecodeActionTypedViews(t *testing.T) {
	cases := []struct {
		raw  string
		want any
	}{
		{`{"type":"session/activeClientRemoved","clientId":"c"}`, &ActiveClientRemovedAction{Type: TypeActiveClientRemoved, ClientID: "c"}},
		{`{"type":"session/mcpServerStopRequested","id":"m"}`, &McpServerRequestAction{Type: TypeMcpServerStopRequest, ID: "m"}},
		{`{"type":"chat/toolCallConfirmed","turnId":"t","toolCallId":"x","approved":false,"reason":"denied","reasonMessage":{"markdown":"**no**"}}`,
			&ToolCallConfirmedAction{Type: TypeToolCallConfirmed, TurnID: "t", ToolCallID: "x", Reason: "denied", ReasonMessage: &StringOrMarkdown{Text: "**no**", IsMarkdown: true}}},
	}
	for _, c := range cases {
		var sa StateAction
		require.NoError(t, json.Unmarshal([]byte(c.raw), &sa))
		got, err := DecodeAction(sa)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
	var sa StateAction
	require.NoError(t, json.Unmarshal([]byte(`{"type":"chat/toolCallComplete","turnId":1,"toolCallId":"x","result":{}}`), &sa))
	_, err := DecodeAction(sa)
	assert.Error(t, err, "a modelled action with wrong field types is an error, not a silent zero")

	require.NoError(t, json.Unmarshal([]byte(`{"type":"future/thing","x":[1,{"y":null}]}`), &sa))
	got, err := DecodeAction(sa)
	require.NoError(t, err)
	assert.Equal(t, sa, got, "unknown actions come back raw")

	assert.Error(t, json.Unmarshal([]byte(`[1]`), &sa))
	assert.Error(t, json.Unmarshal([]byte(`"x"`), &sa))
}

func TestReadViews(t *testing.T) {
	var req SessionInputRequest
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"toolClientExecution","id":"ahp-chat:/9a0b77c1#tc-7","chat":"ahp-chat:/9a0b77c1","turnId":"turn-3","clientId":"ahpls-3f9c2a","toolCall":{"status":"running","toolCallId":"tc-7","toolName":"ahpls_diagnostics","displayName":"Workspace diagnostics","contributor":{"kind":"client","clientId":"ahpls-3f9c2a"},"invocationMessage":"Collecting diagnostics","toolInput":"{\"uri\":\"file:///home/u/proj/main.go\"}","confirmed":"not-needed"}}`), &req))
	assert.Equal(t, InputToolClientExecution, req.Kind)
	require.NotNil(t, req.ToolCall)
	assert.True(t, req.ToolCall.Contributor.OwnedBy("ahpls-3f9c2a"))
	assert.False(t, req.ToolCall.Contributor.OwnedBy("other"))
	require.NotNil(t, req.ToolCall.ToolInput)
	require.NotNil(t, req.ToolCall.ToolInput.Inline)
	assert.Equal(t, `{"uri":"file:///home/u/proj/main.go"}`, *req.ToolCall.ToolInput.Inline)

	var tc ToolCallState
	require.NoError(t, json.Unmarshal([]byte(`{"status":"running","toolCallId":"tc-8","toolName":"t","displayName":"T","invocationMessage":{"markdown":"m"},"toolInput":{"uri":"ahp-session:/4f1c0e2a/tool-inputs/tc-8","contentType":"application/json","sizeHint":24},"content":[{"type":"terminal","resource":"ahp-terminal:/t","title":"x"},{"type":"text","text":"hi"}]}`), &tc))
	require.NotNil(t, tc.ToolInput.Ref)
	assert.Equal(t, "ahp-session:/4f1c0e2a/tool-inputs/tc-8", tc.ToolInput.Ref.URI)
	assert.Nil(t, tc.Contributor, "no contributor: a plain host tool")
	assert.False(t, tc.Contributor.OwnedBy("x"))
	require.Len(t, tc.Content, 2)
	assert.Equal(t, "hi", tc.Content[1].Text)
	out, err := json.Marshal(tc.Content)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"terminal","resource":"ahp-terminal:/t","title":"x"},{"type":"text","text":"hi"}]`, string(out))

	assert.Error(t, json.Unmarshal([]byte(`{"status":"running","toolInput":{"sizeHint":3}}`), &tc), "a ContentRef needs a uri")
	assert.Error(t, json.Unmarshal([]byte(`{"x":1}`), new(StringOrMarkdown)))

	var ls CustomizationLoadState
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"degraded","message":"skills/lint/SKILL.md: missing description"}`), &ls))
	assert.Equal(t, LoadDegraded, ls.Kind)

	// A ping result is null and must stay present.
	m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":2,"result":null}`))
	require.NoError(t, err)
	assert.Equal(t, KindResponse, m.Kind())
	out, err = json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":null}`, string(out))
	_, err = DecodeMessage([]byte(`[{"jsonrpc":"2.0","method":"x"}]`))
	assert.Error(t, err, "batches are rejected")
	_, err = DecodeMessage([]byte(`{"jsonrpc":"1.0","method":"x"}`))
	assert.Error(t, err)
}

func TestSessionStatusBits(t *testing.T) {
	cases := []struct {
		s                                                  SessionStatus
		idle, errored, inProgress, inputNeeded, read, arch bool
	}{
		{0, false, false, false, false, false, false},
		{1, true, false, false, false, false, false},
		{2, false, true, false, false, false, false},
		{8, false, false, true, false, false, false},
		{24, false, false, true, true, false, false},
		{33, true, false, false, false, true, false},
		{56, false, false, true, true, true, false},
		{72, false, false, true, false, false, true},
		{2147483720, false, false, true, false, false, true},
	}
	for _, c := range cases {
		assert.Equal(t, c.idle, c.s.IsIdle(), "%d idle", c.s)
		assert.Equal(t, c.errored, c.s.IsError(), "%d error", c.s)
		assert.Equal(t, c.inProgress, c.s.IsInProgress(), "%d inProgress", c.s)
		assert.Equal(t, c.inputNeeded, c.s.IsInputNeeded(), "%d inputNeeded", c.s)
		assert.Equal(t, c.read, c.s.IsRead(), "%d read", c.s)
		assert.Equal(t, c.arch, c.s.IsArchived(), "%d archived", c.s)
	}
	s := SessionStatus(1<<31 | 32 | 1)
	assert.Equal(t, SessionStatus(1<<31|32|24), s.WithActivity(StatusInputNeeded), "flags and unknown bits kept")
	assert.Equal(t, SessionStatus(1<<31|1), s.Without(StatusIsRead))
	assert.Equal(t, SessionStatus(1<<31|64|32|1), s.With(StatusIsArchived))
	for _, bad := range []string{`-1`, `1.5`, `4294967296`, `"8"`} {
		assert.Error(t, json.Unmarshal([]byte(bad), new(SessionStatus)), bad)
	}
}

func TestGoldenFilesAreAllUsed(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	require.NoError(t, err)
	for _, e := range entries {
		assert.True(t, strings.HasSuffix(e.Name(), ".json"), e.Name())
	}
	assert.Len(t, entries, 16, "one golden file per TestOutgoingMessages case")
}
