package ahptest

import (
	"fmt"
)

// StartTurn starts a turn in a chat with a user message (chat/turnStarted)
// and returns its id.
func (part ToolCalls) StartTurn(chat, text string) (string, error) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	hc := h.channels[chat]
	if hc == nil || hc.kind != "chat" {
		return "", fmt.Errorf("ahptest: no chat %s", chat)
	}
	turnID := fmt.Sprintf("turn-%d", h.serverSeq+1)
	h.emitLocked(chat, mustObject(map[string]any{"type": "chat/turnStarted", "turnId": turnID, "startedAt": h.isoNow(),
		"message": map[string]any{"text": text, "origin": map[string]any{"kind": "user"}}}), nil)
	return turnID, nil
}

// CompleteTurn ends the active turn (chat/turnComplete); calls that are not
// finished are cancelled by the reducer.
func (part ToolCalls) CompleteTurn(chat, turnID string) error {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.channels[chat] == nil {
		return fmt.Errorf("ahptest: no chat %s", chat)
	}
	h.emitLocked(chat, mustObject(map[string]any{"type": "chat/turnComplete", "turnId": turnID, "duration": 1000}), nil)
	return nil
}

// ClientToolCall describes a tool call the host asks a client to execute.
type ClientToolCall struct {
	ToolCallID  string // default tc-<n>
	ToolName    string
	DisplayName string
	ClientID    string // the executing client (contributor)
	// Input is the raw JSON text of the tool input; with InputRef set the
	// input is referenced instead (a ContentRef the client must resourceRead).
	Input    string
	InputRef string
}

// StartClientToolCall runs a client tool call the way a host does: toolCallStart
// (streaming, contributor {kind:"client"}), toolCallReady confirmed
// "not-needed" (running), then the session's toolClientExecution inputNeeded
// entry. The client answers with toolCallContentChanged / toolCallComplete;
// the entry is removed when the owner completes the call.
func (part ToolCalls) StartClientToolCall(chat, turnID string, call ClientToolCall) (string, error) {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	hc := h.channels[chat]
	if hc == nil || hc.kind != "chat" {
		return "", fmt.Errorf("ahptest: no chat %s", chat)
	}
	if call.ToolCallID == "" {
		call.ToolCallID = fmt.Sprintf("tc-%d", h.serverSeq+1)
	}
	if call.DisplayName == "" {
		call.DisplayName = call.ToolName
	}
	contributor := map[string]any{"kind": "client", "clientId": call.ClientID}
	h.emitLocked(chat, mustObject(map[string]any{"type": "chat/toolCallStart", "turnId": turnID, "toolCallId": call.ToolCallID,
		"toolName": call.ToolName, "displayName": call.DisplayName, "contributor": contributor}), nil)
	ready := map[string]any{"type": "chat/toolCallReady", "turnId": turnID, "toolCallId": call.ToolCallID,
		"invocationMessage": "Running " + call.DisplayName, "confirmed": "not-needed"}
	switch {
	case call.InputRef != "":
		h.resources[call.InputRef] = resource{data: call.Input, contentType: "application/json"}
		ready["toolInput"] = map[string]any{"uri": call.InputRef, "contentType": "application/json", "sizeHint": len(call.Input)}
	case call.Input != "":
		ready["toolInput"] = call.Input
	}
	h.emitLocked(chat, mustObject(ready), nil)
	tc := findToolCall(h.channels[chat].state, turnID, call.ToolCallID)
	if tc == nil || tc["status"] != "running" {
		return "", fmt.Errorf("ahptest: tool call %s did not reach running (is %s the active turn?)", call.ToolCallID, turnID)
	}
	if hc.session != "" && h.channels[hc.session] != nil {
		h.emitLocked(hc.session, mustObject(map[string]any{"type": "session/inputNeededSet", "request": map[string]any{
			"kind": "toolClientExecution", "id": inputNeededID(chat, call.ToolCallID), "chat": chat, "turnId": turnID,
			"clientId": call.ClientID, "toolCall": tc}}), nil)
	}
	return call.ToolCallID, nil
}

func mustObject(v any) map[string]any {
	m, err := toObject(v)
	if err != nil {
		panic(err) // only ever called on literals built above
	}
	return m
}
