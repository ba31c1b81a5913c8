package server

import (
	"errors"

	"go.lsp.dev/jsonrpc2"
)

// validError gives every error answer a code that JSON-RPC 2.0 or LSP
// defines (#18: a failed toggle answered code 0, which jsonrpc2 uses for a
// plain Go error). An error that carries a valid code keeps it (and its
// message); anything else is RequestFailed: the request was understood
// but could not be carried out.
func validError(err error) error {
	if err == nil {
		return nil
	}
	var w *jsonrpc2.Error
	if errors.As(err, &w) && validCode(w.Code) {
		if w.Error() == err.Error() {
			return w
		}
		return &jsonrpc2.Error{Code: w.Code, Message: err.Error(), Data: w.Data}
	}
	return jsonrpc2.NewError(errRequestFailed, err.Error())
}

// validCode reports codes JSON-RPC 2.0 and LSP define: the five standard
// ones, the implementation-defined server range (-32099…-32000, holding
// ServerNotInitialized and UnknownErrorCode) and LSP's range
// (-32899…-32800, holding RequestFailed, ServerCancelled,
// ContentModified, RequestCancelled).
func validCode(c jsonrpc2.Code) bool {
	switch {
	case c == jsonrpc2.ParseError, c == jsonrpc2.InvalidRequest, c == jsonrpc2.MethodNotFound,
		c == jsonrpc2.InvalidParams, c == jsonrpc2.InternalError:
		return true
	case c >= -32099 && c <= -32000:
		return true
	case c >= -32899 && c <= -32800:
		return true
	}
	return false
}
