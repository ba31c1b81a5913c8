//go:build linux

// The process tests read /proc; the runner's Windows containment (a Job
// Object) is not exercised here.

package toolexec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/tools"
)

// A real test runner end to end: start → ready (running) → streamed content
// → exactly one completion carrying the output, every frame schema-checked
// by the host.
func TestGoTestToolEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go module")
	}
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		turn := h.turn()
		id := h.call(turn, "go_test", "")
		tc := h.done(id)

		assert.Equal(t, "completed", tc["status"])
		assert.Equal(t, true, tc["success"], "go test passed, so the call succeeded: %v", tc)
		out := resultText(tc)
		assert.Contains(t, out, "--- PASS: TestDouble")
		assert.Contains(t, out, "ok  \texample.com/toolexecfixture")
		assert.Equal(t, "Ran Go tests", tc["pastTenseMessage"])

		// The order the client saw: start, ready, our streamed content, our
		// completion — and the completion only once.
		h.settled(id)
		var got []string
		for _, typ := range h.tr.received(id) {
			if typ == wire.TypeToolCallProgress {
				assert.True(t, wire.Since11(h.client.ProtocolVersion()), "progress only on 1.1 connections")
				continue
			}
			got = append(got, typ)
		}
		require.GreaterOrEqual(t, len(got), 4, "%v", got)
		assert.Equal(t, []string{"chat/toolCallStart", "chat/toolCallReady"}, got[:2])
		assert.Equal(t, "chat/toolCallContentChanged", got[2], "%v", got)
		assert.Equal(t, "chat/toolCallComplete", got[len(got)-1], "%v", got)
		for _, typ := range got[2 : len(got)-1] {
			assert.Equal(t, "chat/toolCallContentChanged", typ)
		}
		assert.Len(t, h.tr.sent("chat/toolCallComplete", id), 1)

		h.wait("inputNeeded entry cleared", func(v *ahptest.View) bool { return v.State(h.session)["inputNeeded"] == nil })
		res, ok := h.obs.result(id)
		require.True(t, ok, "observer saw the end of the run")
		assert.True(t, res.Success)
		h.obs.mu.Lock()
		assert.Equal(t, 1, h.obs.calls[id].started)
		assert.NotEmpty(t, h.obs.calls[id].progress)
		h.obs.mu.Unlock()
		require.NoError(t, h.host.CompleteTurn(h.chat, turn))
	})
}

// Model-supplied strings reach the program as single literal arguments; no
// shell ever sees them. Bad input fails the call with a clear reason.
func TestToolInputArrivesLiterally(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		evil := []string{
			"; rm -rf pwned-semicolon",
			"$(touch pwned-subst)",
			"`touch pwned-backtick`",
			"line1\ntouch pwned-newline",
			"--flag=pwned-flag",
			"-rf",
			"--",
			"*",
			"${HOME} && touch pwned-and || touch pwned-or > pwned-redirect",
			`'single' "double" \back`,
			"",
		}
		argsJSON, err := json.Marshal(map[string]any{"one": "; touch pwned-one", "args": evil})
		require.NoError(t, err)
		var want strings.Builder
		for _, a := range append([]string{"; touch pwned-one", "--"}, evil...) {
			want.WriteString(strconv.Quote(a) + "\n")
		}

		cases := []struct {
			name    string
			input   string
			ref     bool
			success bool
			code    string
			content string
			message string
		}{
			{name: "inline", input: string(argsJSON), success: true, content: want.String()},
			{name: "content reference", input: string(argsJSON), ref: true, success: true, content: want.String()},
			{name: "absent input is {}", input: "", success: true, content: strconv.Quote("--") + "\n"},
			{name: "option-like value before --", input: `{"one":"-rf"}`, code: tools.CodeInvalidInput, message: "could be taken as an option"},
			{name: "schema mismatch", input: `{"one":7}`, code: tools.CodeInvalidInput, message: "does not match the input schema"},
			{name: "unknown property", input: `{"two":"x"}`, code: tools.CodeInvalidInput, message: "does not match the input schema"},
			{name: "not an object", input: `["x"]`, code: tools.CodeInvalidInput, message: "must be a JSON object"},
			{name: "not JSON", input: `{"one":`, code: tools.CodeInvalidInput, message: "not valid JSON"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				turn := h.turn()
				call := ahptest.ClientToolCall{ToolName: "ahpls_argv", ClientID: h.id(), Input: c.input}
				if c.ref {
					call.InputRef = h.session + "/tool-inputs/" + strings.ReplaceAll(c.name, " ", "-")
				}
				id, err := h.host.StartClientToolCall(h.chat, turn, call)
				require.NoError(t, err)
				tc := h.done(id)
				assert.Equal(t, "completed", tc["status"])
				assert.Equal(t, c.success, tc["success"], "%v", tc)
				if c.success {
					assert.Equal(t, c.content, resultText(tc))
				} else {
					assert.Equal(t, c.code, errorCode(tc))
					e, _ := tc["error"].(map[string]any)
					assert.Contains(t, e["message"], c.message)
				}
				h.settled(id)
				assert.Len(t, h.tr.sent("chat/toolCallComplete", id), 1)
				require.NoError(t, h.host.CompleteTurn(h.chat, turn))
			})
		}
		cwd, _ := os.Getwd()
		for _, dir := range []string{h.root, cwd, helperBin} {
			matches, err := filepath.Glob(filepath.Join(dir, "pwned*"))
			require.NoError(t, err)
			assert.Empty(t, matches, "nothing an injection string names was created in %s", dir)
		}
	})
}

// Unknown tools are failed (running) or denied (pending confirmation);
// known tools awaiting confirmation wait; calls of other clients or of
// nobody are never touched.
func TestUnknownForeignAndPendingCalls(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		turn := h.turn()
		emit := func(a map[string]any) {
			t.Helper()
			_, err := h.host.Emit(h.chat, a)
			require.NoError(t, err)
		}
		mine := map[string]any{"kind": "client", "clientId": h.id()}
		pending := func(id, tool string, contributor map[string]any) {
			start := map[string]any{"type": "chat/toolCallStart", "turnId": turn, "toolCallId": id, "toolName": tool, "displayName": tool}
			if contributor != nil {
				start["contributor"] = contributor
			}
			emit(start)
			emit(map[string]any{"type": "chat/toolCallReady", "turnId": turn, "toolCallId": id, "invocationMessage": "Run " + tool + "?", "toolInput": `{"one":"x"}`})
		}

		// Foreign and ownerless running calls of a tool we do have.
		_, err := h.host.StartClientToolCall(h.chat, turn, ahptest.ClientToolCall{ToolCallID: "tc-other", ToolName: "ahpls_argv", ClientID: "someone-else", Input: `{}`})
		require.NoError(t, err)
		emit(map[string]any{"type": "chat/toolCallStart", "turnId": turn, "toolCallId": "tc-host", "toolName": "ahpls_argv", "displayName": "host tool"})
		emit(map[string]any{"type": "chat/toolCallReady", "turnId": turn, "toolCallId": "tc-host", "invocationMessage": "x", "toolInput": "{}", "confirmed": "not-needed"})
		// Unknown tools of ours, running and pending.
		_, err = h.host.StartClientToolCall(h.chat, turn, ahptest.ClientToolCall{ToolCallID: "tc-gone", ToolName: "ahpls_gone", ClientID: h.id()})
		require.NoError(t, err)
		pending("tc-gone-pending", "ahpls_gone_too", mine)
		// A known tool of ours awaiting confirmation; a foreign pending call.
		pending("tc-wait", "ahpls_argv", mine)
		pending("tc-other-pending", "ahpls_nope", map[string]any{"kind": "client", "clientId": "someone-else"})

		gone := h.done("tc-gone")
		assert.Equal(t, false, gone["success"])
		assert.Equal(t, tools.CodeUnknownTool, errorCode(gone))
		assert.Equal(t, `Tool "ahpls_gone" is not available`, gone["pastTenseMessage"])

		denied := h.done("tc-gone-pending")
		assert.Equal(t, "denied", denied["reason"])
		assert.Contains(t, denied["reasonMessage"], `ahpls_gone_too`)

		// Approve the waiting call; only now does it run.
		tcWait, _ := h.host.ToolCall(h.chat, "tc-wait")
		assert.Equal(t, "pending-confirmation", tcWait["status"])
		assert.Empty(t, h.tr.sent("", "tc-wait"), "nothing sent for a call awaiting confirmation")
		emit(map[string]any{"type": "chat/toolCallConfirmed", "turnId": turn, "toolCallId": "tc-wait", "approved": true, "confirmed": "user-action"})
		approved := h.done("tc-wait")
		assert.Equal(t, true, approved["success"])
		assert.Equal(t, strconv.Quote("x")+"\n"+strconv.Quote("--")+"\n", resultText(approved))

		// Everything after the foreign calls has been handled, so we had every
		// chance to touch them: we did not.
		h.settled("tc-wait")
		for _, id := range []string{"tc-other", "tc-host", "tc-other-pending"} {
			assert.Empty(t, h.tr.sent("", id), "dispatches for %s", id)
		}
		other, _ := h.host.ToolCall(h.chat, "tc-other")
		assert.Equal(t, "running", other["status"])
		host, _ := h.host.ToolCall(h.chat, "tc-host")
		assert.Equal(t, "running", host["status"])
		op, _ := h.host.ToolCall(h.chat, "tc-other-pending")
		assert.Equal(t, "pending-confirmation", op["status"])
		assert.Len(t, h.tr.sent("", "tc-gone"), 1)
		assert.Len(t, h.tr.sent("", "tc-gone-pending"), 1)
		require.NoError(t, h.host.CompleteTurn(h.chat, turn))
	})
}

// When the call stops being running for any reason the run is killed with
// its whole process group and nothing is sent.
func TestLeavingRunningKillsTheProcessGroup(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		cases := []struct {
			name string
			end  func(turn, id string)
		}{
			{"turn cancelled", func(turn, id string) {
				_, err := h.host.Emit(h.chat, map[string]any{"type": "chat/turnCancelled", "turnId": turn, "duration": 10})
				require.NoError(t, err)
			}},
			{"turn completed", func(turn, id string) { require.NoError(t, h.host.CompleteTurn(h.chat, turn)) }},
			{"host failed the call", func(turn, id string) {
				_, err := h.host.Emit(h.chat, map[string]any{"type": "chat/toolCallComplete", "turnId": turn, "toolCallId": id,
					"result": map[string]any{"success": false, "pastTenseMessage": "Timed out", "error": map[string]any{"message": "the host gave up"}}})
				require.NoError(t, err)
			}},
			{"re-confirmation", func(turn, id string) {
				_, err := h.host.Emit(h.chat, map[string]any{"type": "chat/toolCallReady", "turnId": turn, "toolCallId": id, "invocationMessage": "Again?"})
				require.NoError(t, err)
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				turn := h.turn()
				id := h.call(turn, "hang", "")
				pgid := h.hangPgid(id)
				c.end(turn, id)
				waitFor(t, "process group gone", func() bool { return len(liveInGroup(pgid)) == 0 })
				waitFor(t, "run finished", func() bool { _, ok := h.obs.result(id); return ok })
				res, _ := h.obs.result(id)
				assert.True(t, res.Cancelled)
				h.settled(id)
				assert.Empty(t, h.tr.sent("chat/toolCallComplete", id), "nothing is sent for a call that left running")
				if st, _ := h.host.State(h.chat); st["activeTurn"] != nil {
					require.NoError(t, h.host.CompleteTurn(h.chat, turn))
				}
			})
		}

		t.Run("chat removed", func(t *testing.T) {
			turn := h.turn()
			id := h.call(turn, "hang", "")
			pgid := h.hangPgid(id)
			require.NoError(t, h.host.DisposeChat(h.chat))
			waitFor(t, "process group gone", func() bool { return len(liveInGroup(pgid)) == 0 })
			h.settled(id)
			assert.Empty(t, h.tr.sent("chat/toolCallComplete", id))
		})
	})
}

// Stop kills what is running and sends nothing.
func TestStopKillsRuns(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		turn := h.turn()
		id := h.call(turn, "hang", "")
		pgid := h.hangPgid(id)
		h.exec.Stop()
		waitFor(t, "process group gone", func() bool { return len(liveInGroup(pgid)) == 0 })
		res, ok := h.obs.result(id)
		require.True(t, ok)
		assert.True(t, res.Cancelled)
		assert.Empty(t, h.tr.sent("chat/toolCallComplete", id))
	})
}

// 200 calls in a row (some cancelled mid-run) leave no process, goroutine
// or file descriptor behind.
func TestManyCallsLeakNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("200 subprocesses")
	}
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		one := func(i int) {
			turn := h.turn()
			if i%10 == 9 {
				id := h.call(turn, "hang", "")
				pgid := h.hangPgid(id)
				require.NoError(t, h.host.CompleteTurn(h.chat, turn))
				waitFor(t, "group gone", func() bool { return len(liveInGroup(pgid)) == 0 })
				h.settled(id)
				waitFor(t, "run ended", func() bool { _, ok := h.obs.result(id); return ok })
				return
			}
			id := h.call(turn, "argv", `{"one":"n`+strconv.Itoa(i)+`"}`)
			tc := h.done(id)
			require.Equal(t, true, tc["success"], "%v", tc)
			h.settled(id)
			require.NoError(t, h.host.CompleteTurn(h.chat, turn))
		}
		one(0) // warm up: connection, caches, pools
		waitFor(t, "warm-up settled", func() bool { return len(descendants()) == 0 })
		baseG, baseFD := runtime.NumGoroutine(), openFDs()
		const n = 200
		for i := 1; i <= n; i++ {
			one(i)
		}
		waitFor(t, "no process left", func() bool { return len(descendants()) == 0 })
		waitFor(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= baseG })
		waitFor(t, "file descriptors back to the baseline", func() bool { return openFDs() <= baseFD })
		completed := 0
		for i := 0; i <= n; i++ {
			if i%10 != 9 {
				completed++
			}
		}
		assert.Len(t, h.tr.sentAll("chat/toolCallComplete"), completed, "one completion per finished call, none for cancelled ones")
	})
}

// A run that finishes while the socket is down is delivered exactly once
// after the reconnect — or not at all if the host failed the call meanwhile.
func TestResultAcrossReconnect(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		cases := []struct {
			name       string
			freshInit  bool // the host refuses reconnect: fresh initialize + resubscribe
			hostFailed bool
			// the completion is sent but never reaches the host (the socket
			// dies before it is read): it is sent again after the reconnect
			lostInFlight bool
		}{
			{name: "completion lost in flight", lostInFlight: true},
			{name: "resumed"},
			{name: "fresh initialize", freshInit: true},
			{name: "host failed the call meanwhile", hostFailed: true},
			{name: "host failed the call, fresh initialize", freshInit: true, hostFailed: true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				h := newHarness(t, dl.with(ahptest.Options{}))
				gate := filepath.Join(t.TempDir(), "gate")
				if c.lostInFlight {
					lostInFlight(t, h, gate)
					return
				}
				turn := h.turn()
				id := h.call(turn, "gate", `{"path":`+strconv.Quote(gate)+`}`)
				h.wait("tool is running", func(v *ahptest.View) bool {
					return strings.Contains(resultText(v.ToolCall(h.chat, id)), "waiting")
				})
				h.host.RefuseConnections(true)
				h.host.RefuseReconnect(c.freshInit)
				require.NoError(t, h.host.Drop(h.id()))
				waitFor(t, "client noticed", func() bool { return !h.client.Connected() })
				if c.hostFailed {
					_, err := h.host.Emit(h.chat, map[string]any{"type": "chat/toolCallComplete", "turnId": turn, "toolCallId": id,
						"result": map[string]any{"success": false, "pastTenseMessage": "Client disconnected", "error": map[string]any{"message": "client went away"}}})
					require.NoError(t, err)
					_, err = h.host.Emit(h.session, map[string]any{"type": "session/inputNeededRemoved", "id": h.chat + "#" + id})
					require.NoError(t, err)
				}
				require.NoError(t, os.WriteFile(gate, nil, 0o644))
				waitFor(t, "run finished while disconnected", func() bool { _, ok := h.obs.result(id); return ok })
				res, _ := h.obs.result(id)
				require.True(t, res.Success)
				assert.False(t, h.client.Connected())

				h.host.RefuseConnections(false)
				waitFor(t, "reconnected", func() bool { return h.client.Connected() })
				h.wait("the client is back on the chat", func(v *ahptest.View) bool { return v.Subscribed(h.id(), h.chat) })
				tc := h.done(id)
				// Let everything that could trigger a resend happen: the turn
				// ends and the client sees it.
				require.NoError(t, h.host.CompleteTurn(h.chat, turn))
				waitFor(t, "client saw the turn end", func() bool {
					st, ok := h.client.State(h.chat)
					return ok && st["activeTurn"] == nil
				})
				h.settled(id)
				if c.hostFailed {
					assert.Equal(t, false, tc["success"])
					assert.Equal(t, "Client disconnected", tc["pastTenseMessage"])
					assert.Empty(t, h.tr.sent("chat/toolCallComplete", id), "nothing sent for a call the host failed")
				} else {
					assert.Equal(t, true, tc["success"], "%v", tc)
					assert.Equal(t, "waiting\nreleased\n", resultText(tc))
					assert.Len(t, h.tr.sent("chat/toolCallComplete", id), 1, "delivered exactly once")
				}
			})
		}
	})
}

// 20 MB of output at full speed, and 300 small writes over more than a
// second: what is streamed and completed stays bounded, and the number of
// streamed updates stays within the coalescing budget (about ten a second).
func TestOutputIsBoundedAndCoalesced(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		cases := []struct {
			name, tool, input string
			total             int64
			cut               bool
		}{
			{"20 MB at once", "spew", `{"n":20000000}`, 20_000_000, true},
			{"300 writes over time", "drip", `{"n":300}`, 0, false},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				turn := h.turn()
				id := h.call(turn, c.tool, c.input)
				tc := h.done(id)
				require.Equal(t, true, tc["success"], "%v", tc)
				h.settled(id)
				res, ok := h.obs.result(id)
				require.True(t, ok)
				if c.total > 0 {
					assert.Equal(t, c.total, res.TotalBytes)
				}
				out := resultText(tc)
				assert.Less(t, len(out), tools.DefaultMaxOutputBytes+200, "completed content is bounded")
				if c.cut {
					assert.Contains(t, out, "bytes of output cut", "head and tail kept")
				} else {
					assert.Equal(t, res.Output, out)
				}
				streamed := h.tr.sent("chat/toolCallContentChanged", id)
				budget := int(res.Duration.Seconds()*10) + 2
				t.Logf("%d streamed updates over %s (budget %d)", len(streamed), res.Duration, budget)
				assert.NotEmpty(t, streamed)
				assert.LessOrEqual(t, len(streamed), budget, "coalesced to about 10 updates a second over %s", res.Duration)
				for _, f := range streamed {
					assert.Less(t, f.size, DefaultStreamLimit+1024, "each streamed update is bounded")
				}
				require.NoError(t, h.host.CompleteTurn(h.chat, turn))
			})
		}
	})
}

func (tr *trace) sentAll(typ string) []frame {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []frame
	for _, f := range tr.frames {
		if f.sent && f.typ == typ {
			out = append(out, f)
		}
	}
	return out
}

// A call re-confirmed while running is killed; once approved again it runs
// afresh (a new process), and only that run can complete it.
func TestReconfirmedCallRunsAfresh(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		turn := h.turn()
		id := h.call(turn, "hang", "")
		first := h.hangPgid(id)
		_, err := h.host.Emit(h.chat, map[string]any{"type": "chat/toolCallReady", "turnId": turn, "toolCallId": id, "invocationMessage": "Again?"})
		require.NoError(t, err)
		waitFor(t, "first run killed", func() bool { return len(liveInGroup(first)) == 0 })
		_, err = h.host.Emit(h.chat, map[string]any{"type": "chat/toolCallConfirmed", "turnId": turn, "toolCallId": id, "approved": true, "confirmed": "user-action"})
		require.NoError(t, err)
		second := h.hangPgid(id) // content was dropped by the re-confirmation, so this is the new run's
		assert.NotEqual(t, first, second)
		require.NoError(t, h.host.CompleteTurn(h.chat, turn))
		waitFor(t, "second run killed", func() bool { return len(liveInGroup(second)) == 0 })
		h.settled(id)
		assert.Empty(t, h.tr.sent("chat/toolCallComplete", id))
	})
}

// A session that goes away takes its runs with it.
func TestSessionGoneKillsRun(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		turn := h.turn()
		id := h.call(turn, "hang", "")
		pgid := h.hangPgid(id)
		require.NoError(t, h.host.DisposeSession(h.session))
		waitFor(t, "process group gone", func() bool { return len(liveInGroup(pgid)) == 0 })
		h.settled(id)
		assert.Empty(t, h.tr.sent("chat/toolCallComplete", id))
	})
}

func lostInFlight(t *testing.T, h *harness, gate string) {
	turn := h.turn()
	id := h.call(turn, "gate", `{"path":`+strconv.Quote(gate)+`}`)
	h.wait("tool is running", func(v *ahptest.View) bool {
		return strings.Contains(resultText(v.ToolCall(h.chat, id)), "waiting")
	})
	require.NoError(t, h.host.SwallowActions(h.id(), true))
	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	waitFor(t, "completion sent (and swallowed)", func() bool { return len(h.tr.sent("chat/toolCallComplete", id)) == 1 })
	tc, _ := h.host.ToolCall(h.chat, id)
	require.Equal(t, "running", tc["status"], "the host never saw it")
	require.NoError(t, h.host.Drop(h.id()))
	tc = h.done(id)
	assert.Equal(t, true, tc["success"], "%v", tc)
	assert.Equal(t, "waiting\nreleased\n", resultText(tc))
	require.NoError(t, h.host.CompleteTurn(h.chat, turn))
	waitFor(t, "client saw the turn end", func() bool {
		st, ok := h.client.State(h.chat)
		return ok && st["activeTurn"] == nil
	})
	h.settled(id)
	assert.Len(t, h.tr.sent("chat/toolCallComplete", id), 2, "sent again once after the loss")
	accepted := 0
	for _, typ := range h.tr.received(id) {
		if typ == "chat/toolCallComplete" {
			accepted++
		}
	}
	assert.Equal(t, 1, accepted, "the host applied exactly one completion")
}

// A host that stays away past DisconnectTimeout is taken as gone: the run
// is killed, and after a late reconnect nothing is sent or run again.
func TestHostGoneKillsRuns(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{GracePeriod: 20 * time.Millisecond}), func(o *Options) { o.DisconnectTimeout = 50 * time.Millisecond })
		turn := h.turn()
		id := h.call(turn, "hang", "")
		pgid := h.hangPgid(id)
		h.host.RefuseConnections(true)
		require.NoError(t, h.host.Drop(h.id()))
		waitFor(t, "process group gone while disconnected", func() bool { return len(liveInGroup(pgid)) == 0 })
		assert.False(t, h.client.Connected())
		// The group dies before the run is reaped and reported: wait for
		// the report rather than expect it at once.
		waitFor(t, "run ended", func() bool { _, ok := h.obs.result(id); return ok })
		res, _ := h.obs.result(id)
		assert.True(t, res.Cancelled)

		h.wait("the host failed the call after its grace period", func(v *ahptest.View) bool { return v.ToolCall(h.chat, id)["status"] == "completed" })
		h.host.RefuseConnections(false)
		waitFor(t, "reconnected", func() bool { return h.client.Connected() })
		waitFor(t, "client saw the failure", func() bool {
			st, _ := h.client.State(h.chat)
			return statusIn(st, id) == "completed"
		})
		h.settled(id)
		assert.Empty(t, h.tr.sent("chat/toolCallComplete", id))
		h.obs.mu.Lock()
		assert.Equal(t, 1, h.obs.calls[id].started, "not run again")
		h.obs.mu.Unlock()
	})
}

func statusIn(chat map[string]any, id string) string {
	for _, c := range callsFromChat("", chat) {
		if c.key.ToolCallID == id {
			return c.state
		}
	}
	return ""
}

// A run cancelled by the client itself (workspace trust revoked) still
// gets exactly one completion, marked cancelled; the process group goes.
func TestCancelledRunGetsOneCompletion(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dl dialect) {
		h := newHarness(t, dl.with(ahptest.Options{}))
		turn := h.turn()
		id := h.call(turn, "hang", "")
		pgid := h.hangPgid(id)
		gated := func(c CallInfo) bool {
			d, ok := h.reg.Lookup(c.ToolName)
			return ok && d.NeedsTrust()
		}
		require.True(t, gated(CallInfo{ToolName: "ahpls_hang"}))
		n := h.exec.Cancel(gated)
		h.reg.SetTrusted(false)
		assert.Equal(t, 1, n)
		tc := h.done(id)
		assert.Equal(t, "completed", tc["status"])
		assert.Equal(t, tools.CodeCancelled, errorCode(tc))
		h.settled(id)
		waitFor(t, "process group gone", func() bool { return len(liveInGroup(pgid)) == 0 })
		assert.Len(t, h.tr.sent("chat/toolCallComplete", id), 1)
	})
}
