package hostlink

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

func TestPathRefs(t *testing.T) {
	cases := []struct {
		msg  string
		want []pathRef
	}{
		{"skills/lint/SKILL.md: missing description", []pathRef{{"skills/lint/SKILL.md", 0}}},
		{"skills/fmt/SKILL.md:3: too short", []pathRef{{"skills/fmt/SKILL.md", 3}}},
		{"skills/fmt/SKILL.md:3:7 bad key", []pathRef{{"skills/fmt/SKILL.md", 3}}},
		{"/home/h/.cache/plugins/ab12/agents/a.agent.md line 9: unknown tool", []pathRef{{"/home/h/.cache/plugins/ab12/agents/a.agent.md", 9}}},
		{`C:\cache\p\.mcp.json is not valid JSON`, []pathRef{{"C:/cache/p/.mcp.json", 0}}},
		{"could not copy the plugin", nil},
		{"a.md and longer/b.json", []pathRef{{"longer/b.json", 0}, {"a.md", 0}}},
	}
	for _, c := range cases {
		t.Run(c.msg, func(t *testing.T) {
			assert.Equal(t, c.want, pathRefs(c.msg))
		})
	}
}

func TestLineSpan(t *testing.T) {
	text := []byte("one\r\ntwo\nthree")
	cases := []struct {
		line int
		want string
	}{{0, "one"}, {1, "one"}, {2, "two"}, {3, "three"}, {4, "one"}}
	for _, c := range cases {
		s := lineSpan(text, c.line)
		assert.Equal(t, c.want, string(text[s.Start:s.End]), "line %d", c.line)
	}
	assert.Equal(t, model.Span{}, lineSpan(nil, 3))
}

func file(vpath, text string) *virtualplugin.File {
	return &virtualplugin.File{VPath: vpath, Data: []byte(text), Sum: sha256.Sum256([]byte(text)), Size: int64(len(text))}
}

func TestWithoutServersAndBundled(t *testing.T) {
	cases := []struct {
		name    string
		mcp     string
		servers []string // name or name!disabled
		left    []string
	}{
		{"wrapped", `{"mcpServers":{"docs":{"command":"d"},"web":{"url":"u","disabled":true}},"x":1}`, []string{"docs", "web!"}, []string{"web"}},
		{"servers key", `{"servers":{"docs":{"command":"d"},"b":{"command":"b"}}}`, []string{"b", "docs"}, []string{"b"}},
		{"bare", `{"docs":{"command":"d"},"z":{"command":"z"}}`, []string{"docs", "z"}, []string{"z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &virtualplugin.Plugin{Name: "p", URI: "virtual://ahpls/k/p", Files: []*virtualplugin.File{file(".mcp.json", c.mcp), file("skills/a/SKILL.md", "x")}, MCPServers: []string{"docs", "other"}}
			var got []string
			for _, s := range bundledServers(p) {
				n := s.Name
				if s.ConfigDisabled {
					n += "!"
				}
				got = append(got, n)
			}
			assert.Equal(t, c.servers, got)

			q := withoutServers(p, []string{"docs"}, "n~1")
			assert.Equal(t, "n~1", q.Nonce)
			f, ok := q.File(".mcp.json")
			require.True(t, ok)
			servers, _, ok := mcpDoc(f.Data)
			require.True(t, ok)
			assert.Equal(t, c.left, sortedKeys(servers))
			assert.Equal(t, sha256.Sum256(f.Data), f.Sum)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(f.Data, &doc))
			if c.name == "wrapped" {
				assert.Equal(t, float64(1), doc["x"], "other keys are kept")
			}
			same, _ := q.File("skills/a/SKILL.md")
			assert.Same(t, p.Files[1], same)
			assert.Equal(t, []string{"other"}, q.MCPServers)
		})
	}
}

// Changes are applied once quiet for the debounce delay, but a burst that
// never pauses is still applied after ten delays: typing cannot hold
// publication back for ever.
func TestDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var applied []time.Duration
		start := time.Now()
		l := &Link{cfg: Config{DebounceDelay: 100 * time.Millisecond}, changes: newChangeQueue(), folderSet: &folderSet{}}
		l.afterApply = func() { applied = append(applied, time.Since(start)) }
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go l.debounceLoop(ctx, done)

		// A burst: a change every 50ms for 1.5s.
		for i := 0; i < 30; i++ {
			l.FilesChanged("/x")
			time.Sleep(50 * time.Millisecond)
			synctest.Wait()
		}
		time.Sleep(time.Second)
		synctest.Wait()
		cancel()
		<-done
		require.Len(t, applied, 2, "applied at %v", applied)
		assert.Equal(t, time.Second, applied[0], "the burst is applied after ten delays")
		assert.Equal(t, 1500*time.Millisecond+50*time.Millisecond, applied[1], "then once quiet")

		// A single change waits exactly one delay.
		applied = nil
		start = time.Now()
		ctx, cancel = context.WithCancel(t.Context())
		done = make(chan struct{})
		go l.debounceLoop(ctx, done)
		l.FilesChanged("/y")
		time.Sleep(time.Second)
		cancel()
		<-done
		assert.Equal(t, []time.Duration{100 * time.Millisecond}, applied)
	})
}
