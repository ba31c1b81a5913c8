package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// Every error the server answers carries a code JSON-RPC or LSP defines
// (#18: a failed toggle answered code 0). The table walks each way a
// request can fail.
func TestEveryErrorHasAValidCode(t *testing.T) {
	root := t.TempDir()
	skill := writeFile(t, root, ".github/skills/a/SKILL.md", "---\nname: a\ndescription: A.\n---\n")
	started := make(chan struct{}, 1)
	opts := Options{Commands: map[string]CommandFunc{
		// As cmd/ahpls's toggle does without a host: a plain Go error.
		"test.plain": func(context.Context, []json.RawMessage) (any, error) {
			return nil, errors.New("no agent host connected (set ahpls.host)")
		},
		"test.coded": func(context.Context, []json.RawMessage) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", jsonrpc2.NewError(jsonrpc2.InvalidParams, "bad argument"))
		},
		"test.zero": func(context.Context, []json.RawMessage) (any, error) {
			return nil, jsonrpc2.NewError(0, "code zero")
		},
		"test.panic": func(context.Context, []json.RawMessage) (any, error) { panic("boom") },
		"test.block": func(ctx context.Context, _ []json.RawMessage) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}
	c := newTestClient(t, clientSetup{opts: opts, folders: []string{root}, noInit: true})
	code := func(method, params string) int64 {
		t.Helper()
		err := c.call(method, params, nil)
		var je *jsonrpc2.Error
		require.ErrorAs(t, err, &je, "%s %s must fail", method, params)
		assert.True(t, validCode(je.Code), "%s: code %d (%s)", method, je.Code, je.Message)
		return int64(je.Code)
	}
	cmd := func(name string) string { return fmt.Sprintf(`{"command":%q,"arguments":[]}`, name) }

	assert.Equal(t, int64(-32002), code("textDocument/hover", posParams(skill, 0, 0)), "before initialize")
	c.initialize(clientSetup{folders: []string{root}})
	assert.Equal(t, int64(-32600), code("initialize", `{"processId":null,"capabilities":{}}`), "initialize twice")
	assert.Equal(t, int64(-32601), code("textDocument/frobnicate", `{}`), "unknown method")
	assert.Equal(t, int64(-32602), code("textDocument/hover", `{"textDocument":5}`), "bad params")
	assert.Equal(t, int64(-32602), code("workspace/executeCommand", cmd("no.such.command")), "unknown command")
	assert.Equal(t, int64(-32803), code("workspace/executeCommand", cmd("test.plain")), "plain error")
	assert.Equal(t, int64(-32602), code("workspace/executeCommand", cmd("test.coded")), "wrapped coded error")
	assert.Equal(t, int64(-32803), code("workspace/executeCommand", cmd("test.zero")), "code 0")
	assert.Equal(t, int64(-32603), code("workspace/executeCommand", cmd("test.panic")), "panic")
	assert.Equal(t, int64(-32602), code("textDocument/rename", renameParams(skill, 1, 7, "Not Kebab")), "bad new name")
	assert.Equal(t, int64(-32803), code("textDocument/rename", renameParams(skill, 2, 3, "b")), "rename off name")

	// A cancelled request answers RequestCancelled.
	done := make(chan int64, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		_, err := c.conn.Call(ctx, "workspace/executeCommand", json.RawMessage(cmd("test.block")), nil)
		var je *jsonrpc2.Error
		if errors.As(err, &je) {
			done <- int64(je.Code)
		} else {
			done <- 0
		}
	}()
	<-started
	// The id of that call: the client numbers its calls; cancel them all.
	for id := 1; id < 64; id++ {
		require.NoError(t, c.notify("$/cancelRequest", fmt.Sprintf(`{"id":%d}`, id)))
	}
	select {
	case got := <-done:
		assert.Equal(t, int64(-32800), got, "cancelled")
	case <-time.After(waitLimit):
		t.Fatal("the blocked command was not cancelled")
	}

	require.NoError(t, c.call("shutdown", `null`, nil))
	assert.Equal(t, int64(-32600), code("textDocument/hover", posParams(skill, 0, 0)), "after shutdown")
}
