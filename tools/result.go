package tools

import "time"

// Error codes of a failed Result (ToolCallResult.error.code on the wire).
const (
	CodeUnknownTool  = "unknown_tool"      // no such tool (ahp.md §5.5)
	CodeInvalidInput = "invalid_input"     // toolInput unparsable or not matching inputSchema
	CodeUntrusted    = "untrusted"         // command tools are off in an untrusted workspace
	CodeOutside      = "outside_workspace" // cwd or program escapes the workspace
	CodeStartFailed  = "start_failed"      // program not found or not startable
	CodeExitStatus   = "exit_status"       // the program exited non-zero
	CodeTimeout      = "timeout"
	CodeCancelled    = "cancelled"
	CodeEditor       = "editor_error" // the Editor returned an error
)

// Result is the outcome of one tool call. Success follows the exit code
// (0 is success) for command tools.
type Result struct {
	Success          bool
	PastTenseMessage string
	// Output is stdout and stderr interleaved in arrival order, bounded by
	// the tool's output limit: when longer, the head and tail are kept with
	// a marker saying how many bytes were cut.
	Output     string
	ExitCode   int // -1 when the process did not exit normally or never ran
	Duration   time.Duration
	TotalBytes int64 // bytes the process printed
	CutBytes   int64 // bytes of that not in Output
	TimedOut   bool
	Cancelled  bool
	// ErrorCode and ErrorMessage are set when Success is false.
	ErrorCode    string
	ErrorMessage string
	// Structured is optional structured content (built-in tools).
	Structured any
}

// Progress is a snapshot of a running call's output, delivered at most
// ten times in any second (at least progressInterval apart, the final
// snapshot, sent when output arrived after the last one, included). Output is the full bounded text so far, so it can
// replace the call's content as chat/toolCallContentChanged requires.
type Progress struct {
	Output     string
	TotalBytes int64
	Elapsed    time.Duration
	// OutputChanged: Output differs from the previous snapshot (a snapshot
	// may be sent for a new Step alone).
	OutputChanged bool
	// Step is a one-line account of where the call is: "12 of 200 tests,
	// current example.com/calc/TestAdd" for the test runner, "running for
	// 3 s" for other command tools. It changes at most once a second for
	// elapsed time; chat/toolCallProgress carries it.
	Step string
}

// ProgressFunc receives progress snapshots. It is called from the goroutine
// running the call, one at a time, never after Run returns.
type ProgressFunc func(Progress)

// ToolCallResult is the AHP wire shape of a result (ahp.md §5.2).
type ToolCallResult struct {
	Success           bool                `json:"success"`
	PastTenseMessage  string              `json:"pastTenseMessage"`
	Content           []ToolResultContent `json:"content,omitempty"`
	StructuredContent any                 `json:"structuredContent,omitempty"`
	Error             *ToolCallError      `json:"error,omitempty"`
}

// ToolResultContent is the text variant of AHP ToolResultContent.
type ToolResultContent struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// ToolCallError is ToolCallResult.error.
type ToolCallError struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Wire converts the result for chat/toolCallComplete.
func (r Result) Wire() ToolCallResult {
	w := ToolCallResult{Success: r.Success, PastTenseMessage: r.PastTenseMessage, StructuredContent: r.Structured}
	if r.Output != "" {
		w.Content = []ToolResultContent{{Type: "text", Text: r.Output}}
	}
	if !r.Success {
		msg := r.ErrorMessage
		if msg == "" {
			msg = r.PastTenseMessage
		}
		w.Error = &ToolCallError{Message: msg, Code: r.ErrorCode}
	}
	return w
}

// WireContent converts a progress snapshot for chat/toolCallContentChanged.
func (p Progress) WireContent() []ToolResultContent {
	return []ToolResultContent{{Type: "text", Text: p.Output}}
}

func failure(code, msg string) Result {
	return Result{ExitCode: -1, ErrorCode: code, ErrorMessage: msg, PastTenseMessage: msg}
}
