package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/internal/procstat"
	"github.com/ahpls-dev/ahpls/model"
)

// lockedBuffer collects what the connection writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// readAll reads every well-formed message of input through a Transport
// and returns them and the replies it wrote.
func readAll(t *testing.T, input io.Reader, maxFrame int) ([]jsonrpc.Message, []map[string]any) {
	t.Helper()
	var out lockedBuffer
	c, err := (&Transport{Reader: input, Writer: &out, MaxFrame: maxFrame}).Connect(context.Background())
	require.NoError(t, err)
	defer c.Close()
	var msgs []jsonrpc.Message
	for {
		m, err := c.Read(context.Background())
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		msgs = append(msgs, m)
	}
	return msgs, out.lines()
}

func TestTransportAnswersMalformedLines(t *testing.T) {
	for _, c := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"parse error", `{"jsonrpc":"2.0",`, -32700, nil},
		{"not JSON at all", `hello`, -32700, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, -32600, "a"},
		{"no jsonrpc", `{"id":3,"method":"ping"}`, -32600, 3.0},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, nil},
		{"deep", strings.Repeat("[", 10000) + strings.Repeat("]", 10000), -32600, nil},
		{"deep object", strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200), -32600, nil},
		{"a string", `"ping"`, -32600, nil},
		{"no method, no id", `{"jsonrpc":"2.0"}`, -32600, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			msgs, replies := readAll(t, strings.NewReader(c.line+"\n"+`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n"), 0)
			require.Len(t, replies, 1)
			assert.Equal(t, c.code, replies[0]["error"].(map[string]any)["code"])
			assert.Equal(t, c.id, replies[0]["id"])
			assert.Contains(t, replies[0], "id")
			require.Len(t, msgs, 1, "the session goes on")
			assert.Equal(t, "ping", msgs[0].(*jsonrpc.Request).Method)
		})
	}
	// Blank lines and a last line without a newline.
	msgs, replies := readAll(t, strings.NewReader("\n  \r\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 0)
	assert.Empty(t, replies)
	assert.Len(t, msgs, 1)
}

// repeatReader yields n bytes of b without holding them.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}

// hugeFrame is a 50 MB request followed by a good one, streamed.
func hugeFrame(n int64) io.Reader {
	return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"paths":"`),
		&repeatReader{'A', n}, strings.NewReader(`"}}}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"))
}

// TestOversizedFrameIsNeverHeldWhole: a 50 MB frame over the limit is
// read past as it arrives: the run allocates a small fraction of it, it
// is answered, and the next message is read (issue 39).
func TestOversizedFrameIsNeverHeldWhole(t *testing.T) {
	const size = 50 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	msgs, replies := readAll(t, hugeFrame(size), 1<<20)
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("50 MB refused frame: %d KiB allocated in all", allocated>>10)
	assert.Less(t, allocated, uint64(8<<20), "the frame is discarded as it arrives, not buffered")
	require.Len(t, replies, 1)
	assert.Equal(t, -32600.0, replies[0]["error"].(map[string]any)["code"])
	assert.Nil(t, replies[0]["id"])
	assert.Contains(t, replies[0]["error"].(map[string]any)["message"], "over the 1048576 allowed")
	require.Len(t, msgs, 1)
	assert.Equal(t, "tools/list", msgs[0].(*jsonrpc.Request).Method)
}

// TestRefusedFrameLeavesRSS: the resident size after 50 MB refused stays
// within 20 MB of where it was (issue 39: it stayed at ~3x the refused
// bytes).
func TestRefusedFrameLeavesRSS(t *testing.T) {
	if raceEnabled {
		t.Skip("resident size under the race detector counts its shadow memory; .ci/run runs this without -race")
	}
	debug.FreeOSMemory()
	start, ok := procstat.RSS()
	if !ok {
		t.Skip("no /proc/self/statm")
	}
	readAll(t, hugeFrame(50<<20), 0) // the default limit
	debug.FreeOSMemory()
	end, _ := procstat.RSS()
	t.Logf("RSS %d MiB -> %d MiB after 50 MB refused", start>>20, end>>20)
	assert.Less(t, end-start, int64(20<<20))
}

// TestLineReaderSkipsExactlyTheLongLine: the line at the limit passes,
// one byte more is refused, and the lines around it are intact.
func TestLineReaderSkipsExactlyTheLongLine(t *testing.T) {
	in := "ab\n" + strings.Repeat("x", 10) + "\n" + strings.Repeat("y", 11) + "\ncd"
	l := &lineReader{r: bufio.NewReaderSize(strings.NewReader(in), 16), max: 10}
	var got []string
	for {
		line, err := l.next()
		if err == errFrameTooLarge {
			got = append(got, "<skipped "+strconv.FormatInt(l.skipped, 10)+">")
			continue
		}
		if len(line) > 0 {
			got = append(got, string(line))
		}
		if err != nil {
			break
		}
	}
	assert.Equal(t, []string{"ab", strings.Repeat("x", 10), "<skipped 12>", "cd"}, got)
}

// FuzzTransportLine: no line panics the reader, and every line is either
// a message or answered.
func FuzzTransportLine(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `{"id":{}}`, `{"jsonrpc":"1.0"}`, `[[[`, `"\"`, `{"jsonrpc":"2.0","id":1,"result":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = strings.ReplaceAll(line, "\n", " ")
		if strings.TrimSpace(line) == "" {
			return
		}
		msgs, replies := readAll(t, strings.NewReader(line+"\n"), 0)
		if len(msgs)+len(replies) != 1 {
			t.Fatalf("%q: %d messages, %d replies", line, len(msgs), len(replies))
		}
	})
}

// TestReactionCodesDocumented: the output schema the client reads
// explains every reaction code, the unverified ones included.
func TestReactionCodesDocumented(t *testing.T) {
	s, err := jsonschema.For[Finding](nil)
	require.NoError(t, err)
	desc := s.Properties["reactions"].Description
	for _, r := range model.Reactions {
		assert.Contains(t, desc, string(r)+" = ", r)
		if r != model.Unknown {
			assert.Contains(t, desc, string(r.Unverified()), r)
		}
	}
}

// TestListTakesAString: a List argument takes a list, a string or null,
// and the tools' input schemas admit all three.
func TestListTakesAString(t *testing.T) {
	for in, want := range map[string]List{`"a.md"`: {"a.md"}, `["a","b"]`: {"a", "b"}, `null`: nil} {
		var l List
		require.NoError(t, json.Unmarshal([]byte(in), &l), in)
		assert.Equal(t, want, l, in)
	}
	var l List
	assert.Error(t, json.Unmarshal([]byte(`5`), &l))
	r, err := inputSchema[CheckInput]().Resolve(nil)
	require.NoError(t, err)
	for _, args := range []string{`{"paths": "a.md"}`, `{"paths": ["a.md"], "targets": "claude-code,vscode"}`, `{"paths": null}`} {
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(args), &v))
		assert.NoError(t, r.Validate(v), args)
	}
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"paths": 5}`), &v))
	assert.Error(t, r.Validate(v))
}

func TestTargetsTakeCommas(t *testing.T) {
	ts, err := targets(List{"claude-code, vscode", "claude-code"})
	require.NoError(t, err)
	assert.Equal(t, []model.Target{model.TargetClaudeCode, model.TargetVSCode}, ts)
	_, err = targets(List{"claude-code,emacs"})
	assert.ErrorContains(t, err, `unknown target "emacs"`)
}
