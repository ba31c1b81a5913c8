package toolexec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/tools"
)

// run executes one call; it owns e.cancel's context and ends with finish.
func (x *Executor) run(ctx context.Context, release context.CancelFunc, e *entry, runner Runner, rawInput any) {
	defer x.wg.Done()
	defer release()
	info := e.info
	x.log.Info("toolexec: running tool", "tool", info.ToolName, "chat", info.Chat, "toolCallId", info.ToolCallID)
	if x.obs != nil {
		x.obs.Started(info)
	}
	var res tools.Result
	input, err := x.readInput(ctx, rawInput)
	switch {
	case ctx.Err() != nil:
		res = tools.Result{ExitCode: -1, Cancelled: true, ErrorCode: tools.CodeCancelled,
			PastTenseMessage: info.ToolName + " was cancelled before it started"}
	case err != nil:
		msg := fmt.Sprintf("Did not run %s: %v", info.ToolName, err)
		res = tools.Result{ExitCode: -1, ErrorCode: tools.CodeInvalidInput, ErrorMessage: msg, PastTenseMessage: msg}
	default:
		var ps progressState
		res = x.safeRun(ctx, runner, info.ToolName, input, func(p tools.Progress) { x.progress(e, &ps, p) })
	}
	x.finish(e, res)
	x.log.Info("toolexec: tool finished", "tool", info.ToolName, "chat", info.Chat, "toolCallId", info.ToolCallID,
		"success", res.Success, "exitCode", res.ExitCode, "cancelled", res.Cancelled, "duration", res.Duration)
	if x.obs != nil {
		x.obs.Finished(info, res)
	}
}

// safeRun turns a panicking Runner into a failed result.
func (x *Executor) safeRun(ctx context.Context, r Runner, name string, input []byte, onProgress tools.ProgressFunc) (res tools.Result) {
	defer func() {
		if p := recover(); p != nil {
			x.log.Error("toolexec: tool runner panicked", "tool", name, "panic", p)
			msg := fmt.Sprintf("%s failed: internal error", name)
			res = tools.Result{ExitCode: -1, ErrorCode: "internal_error", ErrorMessage: msg, PastTenseMessage: msg}
		}
	}()
	return r.Run(ctx, name, input, onProgress)
}

// readInput returns the call's input JSON text: nil when absent (the tool
// sees {}), the inline string, or the referenced content read from the host
// now — never from a cache, because a confirmation may have rewritten it.
func (x *Executor) readInput(ctx context.Context, raw any) ([]byte, error) {
	if raw == nil {
		return nil, nil
	}
	if n, ok := ahpclient.OmittedInput(raw); ok {
		// The mirror left an oversized inline input out (ahpclient.MaxToolInput).
		return nil, fmt.Errorf("tool input is %d bytes, more than the %d allowed", n, tools.MaxInputBytes)
	}
	var ti wire.ToolInput
	if err := wire.FromGeneric(raw, &ti); err != nil {
		return nil, fmt.Errorf("unreadable tool input: %v", err)
	}
	switch {
	case ti.Inline != nil && len(*ti.Inline) > tools.MaxInputBytes:
		return nil, fmt.Errorf("tool input is %d bytes, more than the %d allowed", len(*ti.Inline), tools.MaxInputBytes)
	case ti.Inline != nil:
		return []byte(*ti.Inline), nil
	case ti.Ref != nil:
		if ti.Ref.SizeHint != nil {
			// Refused before reading when the host says it is too big.
			if n, err := ti.Ref.SizeHint.Int64(); err == nil && n > tools.MaxInputBytes {
				return nil, fmt.Errorf("tool input is %d bytes, more than the %d allowed", n, tools.MaxInputBytes)
			}
		}
		data, _, err := x.client.ResourceReadLimited(ctx, ti.Ref.URI, "utf-8", tools.MaxInputBytes)
		var big *ahpclient.TooLargeError
		if errors.As(err, &big) {
			return nil, fmt.Errorf("tool input is more than the %d bytes allowed", tools.MaxInputBytes)
		}
		if err != nil {
			return nil, fmt.Errorf("could not read the tool input %s: %v", ti.Ref.URI, err)
		}
		return data, nil
	}
	return nil, nil
}

// progressGap spaces chat/toolCallProgress of one call: at most four a
// second, "a few times a second" (issue 28), whatever the tool reports.
const progressGap = 250 * time.Millisecond

// progressState is one call's progress bookkeeping; only the goroutine
// running the call touches it (tools.ProgressFunc's contract).
type progressState struct {
	lastSent time.Time
	lastStep string
}

// progress streams a coalesced output snapshot (package tools delivers at
// most about ten a second) while the call is still running, and on 1.1
// connections the call's step as chat/toolCallProgress, spaced by
// progressGap.
func (x *Executor) progress(e *entry, ps *progressState, p tools.Progress) {
	if x.obs != nil && p.OutputChanged {
		x.obs.Progress(e.info, summaryLine(p.Output))
	}
	if !x.stillRunning(e) {
		return
	}
	if p.Step != "" && p.Step != ps.lastStep && wire.Since11(x.client.ProtocolVersion()) {
		if now := time.Now(); now.Sub(ps.lastSent) >= progressGap {
			ps.lastSent, ps.lastStep = now, p.Step
			a := wire.NewToolCallProgress(e.key.TurnID, e.key.ToolCallID, p.Elapsed.Milliseconds(), p.Step)
			if _, err := x.client.Dispatch(e.key.Chat, a); err != nil {
				x.log.Debug("toolexec: progress step not sent", "toolCallId", e.key.ToolCallID, "err", err)
			}
		}
	}
	if !p.OutputChanged {
		return
	}
	text := boundTail(p.Output, x.streamCap)
	a := wire.NewToolCallContentChanged(e.key.TurnID, e.key.ToolCallID, []wire.ToolResultContent{wire.TextContent(text)})
	if _, err := x.client.Dispatch(e.key.Chat, a); err != nil {
		// Streaming is best effort; the completion carries all output.
		x.log.Debug("toolexec: progress not sent", "toolCallId", e.key.ToolCallID, "err", err)
	}
}

// wireResult converts a run's result for chat/toolCallComplete.
func wireResult(r tools.Result, info CallInfo) wire.ToolCallResult {
	msg := r.PastTenseMessage
	if msg == "" {
		if r.Success {
			msg = "Ran " + info.ToolName
		} else {
			msg = info.ToolName + " failed"
		}
	}
	w := wire.ToolCallResult{Success: r.Success, PastTenseMessage: wire.Plain(msg)}
	if r.Output != "" {
		w.Content = []wire.ToolResultContent{wire.TextContent(r.Output)}
	}
	if r.Structured != nil {
		var m map[string]any
		if err := wire.FromGeneric(r.Structured, &m); err == nil && m != nil {
			w.StructuredContent = m
		}
	}
	if !r.Success {
		em := r.ErrorMessage
		if em == "" {
			em = msg
		}
		w.Error = &wire.ToolCallError{Message: em, Code: r.ErrorCode}
	}
	return w
}

// boundTail keeps the last limit bytes of s (on a rune boundary) behind a
// marker: for a running tool the latest output is what matters.
func boundTail(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := len(s) - limit
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("[... %d earlier bytes not shown ...]\n", cut) + s[cut:]
}

// summaryLine is the last non-empty line of out, shortened for a progress
// message.
func summaryLine(out string) string {
	const max = 120
	out = strings.TrimRight(out, " \t\r\n")
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	out = strings.TrimSpace(out)
	if len(out) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}
