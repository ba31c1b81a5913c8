package wire

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProtocolVersionsOffered(t *testing.T) {
	assert.Equal(t, []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0", "0.8.0", "0.7.0", "0.6.0", "0.5.2", "0.5.1"}, ProtocolVersions())
	// Callers may mutate what they get without corrupting the registry.
	v := ProtocolVersions()
	v[0] = "x"
	assert.Equal(t, "1.1.0", ProtocolVersions()[0])
}

func TestDialectFor(t *testing.T) {
	for _, v := range []string{"0.8.0", "0.7.0", "0.6.0", "0.5.2", "0.5.1", "0.5.0", "0.8.1", "0.8.0-rc.1"} {
		d, err := DialectFor(v)
		require.NoError(t, err, v)
		assert.Equal(t, v, d.Version())
		assert.Equal(t, EnablementUnknown, d.Enablement(), "shape is learnt from state, not the version")
	}
	for _, v := range []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0", "0.9.1", "1.1.0-dev"} {
		d, err := DialectFor(v)
		require.NoError(t, err, v)
		assert.IsType(t, V1{}, d, v)
		assert.Equal(t, v, d.Version())
		assert.Equal(t, EnablementScoped, d.Enablement(), "1.x fixes the shape")
	}
	for _, v := range []string{"2.0.0", "0.11.0", "0.4.9", "", "0.8", "x.y.z", "0.8.x", "-1.5.0"} {
		_, err := DialectFor(v)
		assert.True(t, errors.Is(err, ErrUnsupportedVersion), "%q: %v", v, err)
	}
}

func TestPluginEnablementByShape(t *testing.T) {
	e := PluginEnablement{Global: true, Effective: false, Children: map[string]bool{"docs": false}}
	cases := []struct {
		shape EnablementShape
		want  string
	}{
		{EnablementBoolean, `{"type":"plugin","id":"p","uri":"virtual://ahpls/h/ws","name":"W","nonce":"n","enabled":false}`},
		// Scoped on 0.x: `enabled` stays, every 0.x schema requires it.
		{EnablementScoped, `{"type":"plugin","id":"p","uri":"virtual://ahpls/h/ws","name":"W","nonce":"n","enabled":false,"enablement":[{"kind":"global","enabled":true}],"childEnablement":{"docs":[{"kind":"global","enabled":false}]}}`},
		{EnablementUnknown, `{"type":"plugin","id":"p","uri":"virtual://ahpls/h/ws","name":"W","nonce":"n","enabled":false,"enablement":[{"kind":"global","enabled":true}],"childEnablement":{"docs":[{"kind":"global","enabled":false}]}}`},
	}
	for _, c := range cases {
		d := V08{}.WithEnablement(c.shape)
		// Start from a stale projection to prove the dialect rewrites all three fields.
		p := ClientPluginCustomization{ID: "p", URI: "virtual://ahpls/h/ws", Name: "W", Nonce: "n", Enabled: Bool(true),
			Enablement: []CustomizationEnablement{{Kind: ScopeSession, Enabled: true}}}
		d.ApplyPluginEnablement(&p, e)
		got, err := json.Marshal(p)
		require.NoError(t, err)
		assert.JSONEq(t, c.want, string(got), c.shape.String())
	}
	// Without child decisions no childEnablement key is sent.
	p := ClientPluginCustomization{ID: "p", URI: "u", Name: "n"}
	V08{}.WithEnablement(EnablementScoped).ApplyPluginEnablement(&p, PluginEnablement{Global: false})
	got, err := json.Marshal(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"plugin","id":"p","uri":"u","name":"n","enabled":false,"enablement":[{"kind":"global","enabled":false}]}`, string(got))
}

func TestToggleShapesAndDecisions(t *testing.T) {
	decisions := []CustomizationEnablement{{Kind: ScopeWorkspace, URI: "file:///w", Enabled: false}, {Kind: ScopeGlobal, Enabled: true}}
	for _, shape := range []EnablementShape{EnablementBoolean, EnablementScoped, EnablementUnknown} {
		d := V08{}.WithEnablement(shape)
		sa, err := NewStateAction(d.CustomizationToggled("c-1", decisions))
		require.NoError(t, err)
		id, eff, list, err := d.ToggleDecision(sa)
		require.NoError(t, err, shape.String())
		assert.Equal(t, "c-1", id)
		assert.False(t, eff, "the workspace decision wins")
		if shape == EnablementBoolean {
			assert.Nil(t, list)
		} else {
			assert.Equal(t, decisions, list)
		}
	}
	// An empty list means "no explicit decisions": default on.
	sa, err := NewStateAction(V08{}.WithEnablement(EnablementScoped).CustomizationToggled("c-2", nil))
	require.NoError(t, err)
	_, eff, list, err := V08{}.ToggleDecision(sa)
	require.NoError(t, err)
	assert.True(t, eff)
	assert.NotNil(t, list)
	assert.Empty(t, list)

	bad := []string{
		`{"type":"session/customizationToggled","id":"x"}`,
		`{"type":"session/customizationToggled","id":"x","enabled":"no"}`,
		`{"type":"session/titleChanged","title":"x"}`,
	}
	for _, b := range bad {
		var sa StateAction
		require.NoError(t, json.Unmarshal([]byte(b), &sa))
		_, _, _, err := V08{}.ToggleDecision(sa)
		assert.Error(t, err, b)
	}
}

// Outgoing adds the `enabled` a 0.x schema requires beside an enablement
// list, never changes what is there, and leaves 1.x actions alone.
func TestOutgoingRequiredEnabled(t *testing.T) {
	obj := func(s string) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		return m
	}
	cases := []struct{ in, want string }{
		{`{"type":"session/customizationToggled","id":"x","enablement":[{"kind":"session","enabled":false}]}`,
			`{"type":"session/customizationToggled","id":"x","enabled":false,"enablement":[{"kind":"session","enabled":false}]}`},
		{`{"type":"session/customizationToggled","id":"x","enablement":[]}`,
			`{"type":"session/customizationToggled","id":"x","enabled":true,"enablement":[]}`},
		{`{"type":"session/customizationToggled","id":"x","enabled":true}`, `{"type":"session/customizationToggled","id":"x","enabled":true}`},
		{`{"type":"session/activeClientSet","activeClient":{"clientId":"c","tools":[],"customizations":[
			{"type":"plugin","id":"p","uri":"u","name":"n","enablement":[{"kind":"global","enabled":false}]},
			{"type":"plugin","id":"q","uri":"v","name":"m","enabled":true},
			{"type":"directory","id":"d","uri":"w","name":"d"}]}}`,
			`{"type":"session/activeClientSet","activeClient":{"clientId":"c","tools":[],"customizations":[
			{"type":"plugin","id":"p","uri":"u","name":"n","enabled":false,"enablement":[{"kind":"global","enabled":false}]},
			{"type":"plugin","id":"q","uri":"v","name":"m","enabled":true},
			{"type":"directory","id":"d","uri":"w","name":"d"}]}}`},
		{`{"type":"session/titleChanged","title":"t"}`, `{"type":"session/titleChanged","title":"t"}`},
	}
	for _, c := range cases {
		in := obj(c.in)
		orig, _ := json.Marshal(in)
		got, err := json.Marshal(V08{}.WithEnablement(EnablementScoped).Outgoing(in))
		require.NoError(t, err)
		assert.JSONEq(t, c.want, string(got))
		after, _ := json.Marshal(in)
		assert.JSONEq(t, string(orig), string(after), "the input is not modified")
		v1, _ := json.Marshal(V1{}.Outgoing(obj(c.in)))
		assert.JSONEq(t, c.in, string(v1), "1.x sends as built")
	}
}

func TestDetectEnablement(t *testing.T) {
	decode := func(s string) []Customization {
		var list []Customization
		require.NoError(t, json.Unmarshal([]byte(s), &list))
		return list
	}
	cases := []struct {
		name, list string
		want       EnablementShape
	}{
		{"empty", `[]`, EnablementUnknown},
		{"directories only", `[{"type":"directory","id":"d","uri":"u","name":"n","enabled":true,"contents":"skill","writable":true}]`, EnablementUnknown},
		{"snapshot plugin", `[{"type":"plugin","id":"p","uri":"u","name":"n","enabled":true}]`, EnablementBoolean},
		{"plugin with enablement", `[{"type":"plugin","id":"p","uri":"u","name":"n","enabled":true,"enablement":[]}]`, EnablementScoped},
		{"plugin lacking enabled", `[{"type":"plugin","id":"p","uri":"u","name":"n"}]`, EnablementScoped},
		{"scoped MCP child", `[{"type":"directory","id":"d","uri":"u","name":"n","enabled":true,"contents":"mcpServer","writable":false,"children":[{"type":"mcpServer","id":"m","uri":"u","name":"n","enablement":[{"kind":"global","enabled":true}],"state":{"kind":"ready"}}]}]`, EnablementScoped},
		{"unknown type ignored", `[{"type":"future","id":"f"},{"type":"mcpServer","id":"m","uri":"u","name":"n","enabled":false,"state":{"kind":"stopped"}}]`, EnablementBoolean},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, DetectEnablement(decode(c.list)), c.name)
	}
}

func TestWorkingDirectoriesByVersion(t *testing.T) {
	both := map[string]any{"workingDirectory": "file:///old", "workingDirectories": []any{"file:///a", "file:///b", 7}}
	plural := map[string]any{"workingDirectories": []any{"file:///a"}}
	single := map[string]any{"workingDirectory": "file:///old"}
	for _, c := range []struct {
		version          string
		both, pl, single []string
	}{
		{"0.6.0", []string{"file:///old"}, []string{"file:///a"}, []string{"file:///old"}},
		{"0.7.0", []string{"file:///a", "file:///b"}, []string{"file:///a"}, []string{"file:///old"}},
		{"0.8.0", []string{"file:///a", "file:///b"}, []string{"file:///a"}, []string{"file:///old"}},
	} {
		d, err := DialectFor(c.version)
		require.NoError(t, err)
		assert.Equal(t, c.both, d.WorkingDirectories(both), c.version)
		assert.Equal(t, c.pl, d.WorkingDirectories(plural), c.version)
		assert.Equal(t, c.single, d.WorkingDirectories(single), c.version)
		assert.Nil(t, d.WorkingDirectories(map[string]any{}), c.version)
	}

	var s SessionSummary
	require.NoError(t, json.Unmarshal([]byte(`{"resource":"ahp-session:/s","provider":"p","title":"t","status":1,"createdAt":"a","modifiedAt":"b","workingDirectory":"file:///home/u/proj"}`), &s))
	d, _ := DialectFor("0.6.0")
	assert.Equal(t, []string{"file:///home/u/proj"}, d.SummaryWorkingDirectories(s))
	d, _ = DialectFor("0.8.0")
	assert.Equal(t, []string{"file:///home/u/proj"}, d.SummaryWorkingDirectories(s), "lenient fallback")
	s.WorkingDirectories = []string{"file:///x"}
	assert.Equal(t, []string{"file:///x"}, d.SummaryWorkingDirectories(s))
}

func TestLifecycleAndClientExecution(t *testing.T) {
	d := V08{}
	assert.Equal(t, LifecycleFailed, d.Lifecycle("creationFailed"))
	assert.Equal(t, LifecycleFailed, d.Lifecycle("failed"))
	assert.Equal(t, LifecycleReady, d.Lifecycle("ready"))
	assert.Equal(t, LifecycleCreating, d.Lifecycle("creating"))
	assert.Equal(t, Lifecycle("paused"), d.Lifecycle("paused"), "unknown spellings pass through")

	for v, want := range map[string]bool{"0.8.0": false, "0.7.0": true, "0.5.1": true} {
		d, err := DialectFor(v)
		require.NoError(t, err)
		assert.Equal(t, want, d.ClientExecutionRaisesInputNeeded(), v)
	}
}

func TestChatErrorShapes(t *testing.T) {
	cases := []struct {
		raw  string
		want ChatErrorAction
	}{
		{`{"type":"chat/error","turnId":"turn-6","duration":800,"error":{"errorType":"ProviderError","message":"rate limited"}}`,
			ChatErrorAction{TurnID: "turn-6", Duration: 800, Error: ErrorInfo{ErrorType: "ProviderError", Message: "rate limited"}}},
		{`{"type":"chat/error","turnId":"t","duration":-4,"part":{"kind":"error","error":{"errorType":"E","message":"m"},"resumable":true}}`,
			ChatErrorAction{TurnID: "t", Error: ErrorInfo{ErrorType: "E", Message: "m"}, Resumable: true}},
		{`{"type":"chat/error","turnId":"t","part":{"kind":"error","errorType":"E2","message":"m2"}}`,
			ChatErrorAction{TurnID: "t", Error: ErrorInfo{ErrorType: "E2", Message: "m2"}}},
	}
	for _, c := range cases {
		var sa StateAction
		require.NoError(t, json.Unmarshal([]byte(c.raw), &sa))
		got, err := V08{}.ChatError(sa)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
	var sa StateAction
	require.NoError(t, json.Unmarshal([]byte(`{"type":"chat/turnComplete","turnId":"t","duration":1}`), &sa))
	_, err := V08{}.ChatError(sa)
	assert.Error(t, err)
}

func TestCustomizationReadViewIsLenient(t *testing.T) {
	var list []Customization
	raw := `[{"type":"plugin","id":"p","uri":"u","name":"n","enabled":"yes","load":{"kind":"loaded"}},{"type":"plugin","id":"q","uri":"u","name":"n","enabled":true}]`
	require.NoError(t, json.Unmarshal([]byte(raw), &list))
	require.Len(t, list, 2)
	assert.Equal(t, "p", list[0].ID)
	assert.Nil(t, list[0].Load, "the odd entry keeps only its identity")
	out, err := json.Marshal(list)
	require.NoError(t, err)
	assert.JSONEq(t, raw, string(out), "and still round-trips verbatim")
	assert.Error(t, json.Unmarshal([]byte(`["x"]`), &list))

	// From the generic mirror form (numbers as json.Number) to typed values.
	generic := []any{map[string]any{"type": "plugin", "id": "ahpls-1:ws", "uri": "virtual://ahpls/h/ws", "name": "W", "enabled": true,
		"clientId": "ahpls-1", "load": map[string]any{"kind": "degraded", "message": "m"}, "children": []any{}}}
	var typed []Customization
	require.NoError(t, FromGeneric(generic, &typed))
	require.Len(t, typed, 1)
	assert.Equal(t, "ahpls-1", typed[0].ClientID)
	assert.Equal(t, &CustomizationLoadState{Kind: LoadDegraded, Message: "m"}, typed[0].Load)
	assert.NotNil(t, typed[0].Children, "children: [] means parsed and empty")
	assert.Empty(t, typed[0].Children)
}
