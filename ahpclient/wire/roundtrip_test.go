package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fixtureDir(t testing.TB, sub string) string {
	t.Helper()
	base := os.Getenv("AHP_FIXTURES")
	if base == "" {
		// A copy of the official data (MIT; see NOTICE.md there), so a
		// fresh clone tests without the spec repository beside it.
		base = filepath.Join("..", "testdata", "ahp-test-cases")
	}
	dir := filepath.Join(base, sub)
	_, err := os.Stat(dir)
	require.NoError(t, err, "official fixtures not found; set AHP_FIXTURES")
	return dir
}

type roundTrip struct {
	Name              string            `json:"name"`
	Group             string            `json:"group"`
	Type              string            `json:"type"`
	Input             json.RawMessage   `json:"input"`
	AcceptableOutputs []json.RawMessage `json:"acceptableOutputs"`
}

// How each corpus type is decoded. "typed" decodes into this package's
// structs (unknown keys dropped, group B); "raw by design" types keep the
// exact wire form on purpose (unknown variants must survive); "unmodelled"
// types are outside ahpls's slice of AHP (changesets, chat-input questions,
// chat sources: ahpls never sends or reads them) and pass through as raw JSON.
type codec struct {
	mode   string
	decode func([]byte) (any, error)
}

func typed[T any](mode string) codec {
	return codec{mode: mode, decode: func(b []byte) (any, error) {
		var v T
		err := json.Unmarshal(b, &v)
		return v, err
	}}
}

var codecs = map[string]codec{
	"ActionEnvelope":        typed[ActionEnvelope]("typed"),
	"SessionStatus":         typed[SessionStatus]("typed"),
	"StringOrMarkdown":      typed[StringOrMarkdown]("typed"),
	"JsonRpcMessage":        typed[Message]("typed"),
	"SessionSummary":        typed[SessionSummary]("typed"),
	"SessionAddedParams":    typed[SessionAddedParams]("typed"),
	"PartialSessionSummary": typed[PartialSessionSummary]("typed"),
	"Implementation":        typed[Implementation]("typed"),
	"InitializeResult":      typed[InitializeResult]("typed"),
	// Raw by design: any action, including variants newer than ahpls.
	"StateAction": typed[StateAction]("raw by design"),
	// Typed read view over the raw entry: unknown customization types and
	// child fields ahpls does not read survive.
	"Customization": typed[Customization]("typed view + raw"),
	// Not modelled: outside ahpls's slice of the protocol.
	"ChangesetOperationTarget": typed[json.RawMessage]("unmodelled"),
	"ChatInputQuestion":        typed[json.RawMessage]("unmodelled"),
	"ChatSource":               typed[json.RawMessage]("unmodelled"),
}

// jsonValue decodes for comparison, keeping numbers exact.
func jsonValue(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func TestRoundTripCorpus(t *testing.T) {
	dir := fixtureDir(t, "round-trips")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)

	passed := 0
	modes := map[string][]string{}
	for _, name := range names {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		var rt roundTrip
		require.NoError(t, json.Unmarshal(raw, &rt), name)
		c, known := codecs[rt.Type]
		ok := t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			require.True(t, known, "no codec for type %s", rt.Type)
			require.Len(t, rt.AcceptableOutputs, 1)
			v, err := c.decode(rt.Input)
			require.NoError(t, err)
			out, err := json.Marshal(v)
			require.NoError(t, err)
			// Key presence matters: null is not absent.
			assert.Equal(t, jsonValue(t, rt.AcceptableOutputs[0]), jsonValue(t, out))

			// An envelope's action also goes through the typed decoder
			// when ahpls models it (the terminal-content cases).
			if env, ok := v.(ActionEnvelope); ok {
				typedAction, err := DecodeAction(env.Action)
				require.NoError(t, err)
				again, err := json.Marshal(typedAction)
				require.NoError(t, err)
				assert.Equal(t, jsonValue(t, env.Action.Raw), jsonValue(t, again), "typed %s", env.Action.Type)
			}
		})
		if ok {
			passed++
			modes[c.mode] = append(modes[c.mode], strings.Join(strings.SplitN(name, "-", 3)[:2], "-"))
		}
	}
	t.Logf("%d of %d round-trip fixtures pass", passed, len(names))
	for _, m := range []string{"typed", "typed view + raw", "raw by design", "unmodelled"} {
		t.Logf("  %-17s %2d: %s", m, len(modes[m]), strings.Join(modes[m], " "))
	}
	// The corpus directory holds 39 fixtures (plus KNOWN-FIDELITY-GAPS.md).
	require.Len(t, names, 39)
}

// The corpus only exercises host-built values; these check what ahpls itself
// builds and reads, including that group-B style unknown keys are dropped
// and that typed reads see the right values.
func TestRoundTripTypedReads(t *testing.T) {
	dir := fixtureDir(t, "round-trips")
	read := func(name string) roundTrip {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		var rt roundTrip
		require.NoError(t, json.Unmarshal(raw, &rt))
		return rt
	}

	var st SessionStatus
	require.NoError(t, json.Unmarshal(read("005-session-status-unknown-bits-preserved.json").Input, &st))
	assert.Equal(t, SessionStatus(2147483720), st)
	assert.True(t, st.IsInProgress())
	assert.True(t, st.IsArchived())
	assert.False(t, st.IsInputNeeded())

	var env ActionEnvelope
	require.NoError(t, json.Unmarshal(read("016-long-above-int32-max-preserved.json").Input, &env))
	assert.Equal(t, int64(2148131814), env.ServerSeq)
	assert.Nil(t, env.Origin)

	require.NoError(t, json.Unmarshal(read("026-action-envelope-origin-present.json").Input, &env))
	assert.True(t, env.IsOwn("my-client"))
	assert.Equal(t, int64(3), env.Origin.ClientSeq)

	var c Customization
	require.NoError(t, json.Unmarshal(read("027-agent-customization-model-and-tools.json").Input, &c))
	assert.True(t, c.IsContainer())
	require.Len(t, c.Children, 1)
	assert.Equal(t, "agent", c.Children[0].Type)
	assert.Equal(t, "agent-reviewer", c.Children[0].ID)
	require.NotNil(t, c.Enabled)
	assert.True(t, *c.Enabled)

	var m Message
	require.NoError(t, json.Unmarshal(read("011-jsonrpc-error.json").Input, &m))
	assert.Equal(t, KindResponse, m.Kind())
	assert.Equal(t, int64(-32601), m.Error.Code)
	m, err := DecodeMessage(read("009-jsonrpc-notification.json").Input)
	require.NoError(t, err)
	assert.Equal(t, KindNotification, m.Kind())
	m, err = DecodeMessage(read("008-jsonrpc-request.json").Input)
	require.NoError(t, err)
	assert.Equal(t, KindRequest, m.Kind())
	m, err = DecodeMessage(read("010-jsonrpc-success.json").Input)
	require.NoError(t, err)
	assert.Equal(t, KindResponse, m.Kind())
}
