package ahpschema

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type example struct {
	info  string // code block info string: "json" or "json StateAction"
	block int
	line  string
}

// specExamples extracts every line of the ```json blocks of ahp.md (a copy of
// docs/ahp.md kept in testdata so the test is hermetic).
func specExamples(t *testing.T) []example {
	t.Helper()
	f, err := os.Open("testdata/ahp.md")
	require.NoError(t, err)
	defer f.Close()
	var out []example
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	info, block := "", 0
	for sc.Scan() {
		l := sc.Text()
		switch {
		case info == "" && (l == "```json" || strings.HasPrefix(l, "```json ")):
			info = strings.TrimPrefix(l, "```")
			block++
		case info != "" && l == "```":
			info = ""
		case info != "" && strings.TrimSpace(l) != "":
			out = append(out, example{info, block, l})
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func directionOf(t *testing.T, raw string) Direction {
	f, err := ParseFrame([]byte(raw))
	require.NoError(t, err, raw)
	if _, ok := clientNotifications[f.Method]; ok {
		return ClientToHost
	}
	if _, ok := hostNotifications[f.Method]; ok {
		return HostToClient
	}
	// In ahp.md the host's reverse requests use ids from 100 up.
	if resourceMethods[f.Method] && *f.ID >= 100 {
		return HostToClient
	}
	return ClientToHost
}

func TestSpecExamplesValidate(t *testing.T) {
	ex := specExamples(t)
	require.Len(t, ex, 84, "docs/ahp.md has 84 json example lines")
	requests := map[int]map[int64]string{} // block → id → request line
	for i, e := range ex {
		if e.info == "json StateAction" {
			assert.NoError(t, Validate("commands", "StateAction", []byte(e.line)), "example %d: %s", i, e.line)
			assert.NoError(t, Validate("actions", "StateAction", []byte(e.line)), "example %d via actions: %s", i, e.line)
			continue
		}
		f, err := ParseFrame([]byte(e.line))
		require.NoError(t, err, e.line)
		if f.IsRequest() {
			if requests[e.block] == nil {
				requests[e.block] = map[int64]string{}
			}
			requests[e.block][*f.ID] = e.line
		}
		if !f.IsResponse() {
			assert.NoError(t, ValidateMessage([]byte(e.line), directionOf(t, e.line)), "example %d: %s", i, e.line)
			continue
		}
		req, ok := requests[e.block][*f.ID]
		require.True(t, ok, "example %d answers a request of the same block", i)
		p := NewPairing()
		d := directionOf(t, req)
		require.NoError(t, p.Check([]byte(req), d))
		assert.NoError(t, p.Check([]byte(e.line), d.opposite()), "example %d: %s", i, e.line)
	}
}

func TestBadMessagesRejected(t *testing.T) {
	cases := []struct {
		name string
		dir  Direction
		raw  string
		want string
	}{
		{"batch", ClientToHost, `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"channel":"ahp-root://"}}]`, "batch"},
		{"wrong version", ClientToHost, `{"jsonrpc":"1.0","id":1,"method":"ping","params":{"channel":"ahp-root://"}}`, `"2.0"`},
		{"string id", ClientToHost, `{"jsonrpc":"2.0","id":"1","method":"ping","params":{"channel":"ahp-root://"}}`, "integer"},
		{"fractional id", ClientToHost, `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"channel":"ahp-root://"}}`, "integer"},
		{"unknown member", ClientToHost, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"channel":"ahp-root://"},"extra":1}`, "extra"},
		{"result and error", HostToClient, `{"jsonrpc":"2.0","id":1,"result":null,"error":{"code":1,"message":"x"}}`, "exactly one"},
		{"unknown method", ClientToHost, `{"jsonrpc":"2.0","id":1,"method":"frobnicate","params":{"channel":"ahp-root://"}}`, "frobnicate"},
		{"host may not initialize", HostToClient, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"channel":"ahp-root://","protocolVersions":["0.8.0"],"clientId":"x"}}`, "initialize"},
		{"client may not send action", ClientToHost, `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-root://","serverSeq":1,"action":{"type":"root/agentsChanged","agents":[]}}}`, "action"},
		{"initialize without clientId", ClientToHost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"channel":"ahp-root://","protocolVersions":["0.8.0"]}}`, "clientId"},
		{"ping on wrong channel", ClientToHost, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"channel":"ahp-session:/x"}}`, "channel"},
		{"missing params", ClientToHost, `{"jsonrpc":"2.0","method":"unsubscribe"}`, "params"},
		{"dispatch unknown action", ClientToHost, `{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/a","clientSeq":1,"action":{"type":"session/frobbed"}}}`, "unknown action type"},
		{"dispatch bad activeClientSet", ClientToHost, `{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-session:/a","clientSeq":1,"action":{"type":"session/activeClientSet","activeClient":{"clientId":"c"}}}}`, "SessionActiveClientSetAction"},
		{"approved string", ClientToHost, `{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/a","clientSeq":1,"action":{"type":"chat/toolCallConfirmed","turnId":"t","toolCallId":"c","approved":"yes","confirmed":"user-action"}}}`, "approved"},
		{"approved false with confirmed", ClientToHost, `{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/a","clientSeq":1,"action":{"type":"chat/toolCallConfirmed","turnId":"t","toolCallId":"c","approved":false,"confirmed":"user-action"}}}`, "ChatToolCallConfirmedAction"},
		{"envelope without serverSeq", HostToClient, `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-root://","action":{"type":"root/agentsChanged","agents":[]}}}`, "serverSeq"},
		{"bad -32005 data", HostToClient, `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"no","data":{"supportedVersions":"1.0.0"}}}`, "-32005"},
		{"trailing garbage", ClientToHost, `{"jsonrpc":"2.0","method":"unsubscribe","params":{"channel":"ahp-chat:/a"}} {}`, "trailing"},
		{"not json", ClientToHost, `{"jsonrpc":`, "JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateMessage([]byte(c.raw), c.dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestSessionStatusBitsetPatched(t *testing.T) {
	for _, st := range []int{0, 33, 40, 56, 65, 72, 1 << 20} {
		summary := map[string]any{"resource": "ahp-session:/a", "provider": "p", "title": "t", "status": st,
			"createdAt": "2026-08-01T09:00:00.000Z", "modifiedAt": "2026-08-01T09:00:00.000Z"}
		b, _ := json.Marshal(summary)
		for _, file := range []string{"commands", "state", "notifications"} {
			assert.NoError(t, Validate(file, "SessionSummary", b), "status %d in %s", st, file)
		}
	}
	assert.Error(t, Validate("state", "SessionSummary", []byte(`{"resource":"r","provider":"p","title":"t","status":-1,"createdAt":"x","modifiedAt":"y"}`)))
}

func TestActionsStateActionPatched(t *testing.T) {
	// Unpatched, this definition is unresolvable and every value errors.
	require.NoError(t, Validate("actions", "ActionEnvelope", []byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"root/agentsChanged","agents":[]}}`)))
	assert.Error(t, Validate("actions", "ActionEnvelope", []byte(`{"channel":"ahp-root://","serverSeq":3,"action":{"type":"root/agentsChanged"}}`)))
}

func TestValidateUnknownDefinition(t *testing.T) {
	assert.ErrorContains(t, Validate("commands", "NoSuchThing", []byte(`{}`)), "NoSuchThing")
	assert.ErrorContains(t, Validate("nosuchfile", "X", []byte(`{}`)), "nosuchfile")
}

func TestPairing(t *testing.T) {
	p := NewPairing()
	sub := `{"jsonrpc":"2.0","id":5,"method":"subscribe","params":{"channel":"ahp-session:/a"}}`
	require.NoError(t, p.Check([]byte(sub), ClientToHost))
	assert.ErrorContains(t, p.Check([]byte(sub), ClientToHost), "reused")
	assert.Equal(t, []string{"subscribe"}, p.Outstanding(ClientToHost))
	// A result that is not a SubscribeResult.
	assert.Error(t, p.Check([]byte(`{"jsonrpc":"2.0","id":5,"result":{"snapshot":{"resource":"ahp-session:/a"}}}`), HostToClient))
	assert.Empty(t, p.Outstanding(ClientToHost))
	// Answered twice / never asked.
	assert.ErrorContains(t, p.Check([]byte(`{"jsonrpc":"2.0","id":5,"result":{}}`), HostToClient), "no unanswered")
	// The same id in the other direction is a separate id space.
	require.NoError(t, p.Check([]byte(`{"jsonrpc":"2.0","id":5,"method":"resourceList","params":{"channel":"ahp-root://","uri":"virtual://x"}}`), HostToClient))
	assert.NoError(t, p.Check([]byte(`{"jsonrpc":"2.0","id":5,"error":{"code":-32008,"message":"not found"}}`), ClientToHost))
	// ping answers null, nothing else.
	require.NoError(t, p.Check([]byte(`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"channel":"ahp-root://"}}`), ClientToHost))
	assert.Error(t, p.Check([]byte(`{"jsonrpc":"2.0","id":6,"result":{}}`), HostToClient))
	// Results without a definition carry nothing.
	require.NoError(t, p.Check([]byte(`{"jsonrpc":"2.0","id":7,"method":"disposeSession","params":{"channel":"ahp-root://","session":"ahp-session:/a"}}`), ClientToHost))
	assert.NoError(t, p.Check([]byte(`{"jsonrpc":"2.0","id":7,"result":null}`), HostToClient))
}

func FuzzParseFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"channel":"ahp-root://"}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`[1]`, `null`, `{"id":9223372036854775808}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := ParseFrame(b)
		if err == nil {
			shapes := 0
			for _, ok := range []bool{fr.IsRequest(), fr.IsNotification(), fr.IsResponse()} {
				if ok {
					shapes++
				}
			}
			if shapes != 1 {
				t.Fatalf("frame has %d shapes", shapes)
			}
		}
		_ = ValidateMessage(b, ClientToHost)
	})
}

func BenchmarkValidateDispatch(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/9a0b77c1","clientSeq":8,"action":{"type":"chat/toolCallComplete","turnId":"turn-4","toolCallId":"tc-8","result":{"success":true,"pastTenseMessage":"Collected 1 diagnostic","content":[{"type":"text","text":"main.go:12:2: undefined: foo"}],"structuredContent":{"count":1}}}}}`)
	require.NoError(b, ValidateMessage(frame, ClientToHost))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ValidateMessage(frame, ClientToHost); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNoticeEmbedded(t *testing.T) {
	assert.Contains(t, Notice(), "MIT licence")
	assert.Contains(t, Notice(), "Microsoft")
}

// BenchmarkFirstValidation is the cost of the first frame a process
// validates: reading, patching, converting and resolving commands.schema.json.
func BenchmarkFirstValidation(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/9a0b77c1","clientSeq":8,"action":{"type":"chat/toolCallComplete","turnId":"turn-4","toolCallId":"tc-8","result":{"success":true,"pastTenseMessage":"Collected 1 diagnostic","content":[{"type":"text","text":"main.go:12:2: undefined: foo"}],"structuredContent":{"count":1}}}}}`)
	b.ReportAllocs()
	for b.Loop() {
		files = [len(files)]schemaFile{}
		if err := ValidateMessage(frame, ClientToHost); err != nil {
			b.Fatal(err)
		}
	}
}
