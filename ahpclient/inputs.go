package ahpclient

import (
	"encoding/json"
	"strconv"
)

// MaxToolInput bounds a tool call's input text that this client accepts
// (tools.MaxInputBytes, which toolexec checks is the same): an inline input
// or a referenced one (ResourceReadLimited, ContentRef.sizeHint).
const MaxToolInput = 1 << 20

// OmittedInputKey marks an inline tool input the mirror did not keep: the
// toolInput becomes {"x-ahpls-omittedBytes": <its length>}. A call is never
// run with it (toolexec refuses it as too large), and the mirror does not
// hold megabytes per refused call for the life of the turn (issue 28: 57 MB
// of refused inputs stayed in memory). The frame that carried it is read
// and decoded once, then dropped.
const OmittedInputKey = "x-ahpls-omittedBytes"

// OmittedInput reports the length of an inline tool input the mirror left
// out, from a toolInput value of the mirrored state.
func OmittedInput(toolInput any) (int, bool) {
	m, ok := toolInput.(map[string]any)
	if !ok {
		return 0, false
	}
	n, ok := m[OmittedInputKey].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(n.String())
	return v, err == nil
}

func omitted(s string) map[string]any {
	return map[string]any{OmittedInputKey: json.Number(strconv.Itoa(len(s)))}
}

// tooBig reports an inline input over MaxToolInput.
func tooBig(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok && len(s) > MaxToolInput
}

// scrubCall returns tc without an oversized inline input, and whether it
// changed (tc itself is never modified).
func scrubCall(tc map[string]any) (map[string]any, bool) {
	out := tc
	changed := false
	for _, k := range [...]string{"toolInput", "editedToolInput"} {
		if s, big := tooBig(tc[k]); big {
			if !changed {
				out = copyMap(tc)
				changed = true
			}
			out[k] = omitted(s)
		}
	}
	return out, changed
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// scrubAction leaves oversized inline inputs out of a chat tool-call
// action (toolInput, editedToolInput) or a session's inputNeeded entry
// (request.toolCall), copying only what it changes.
func scrubAction(action map[string]any) map[string]any {
	out, _ := scrubCall(action)
	req, ok := out["request"].(map[string]any)
	if !ok {
		return out
	}
	tc, ok := req["toolCall"].(map[string]any)
	if !ok {
		return out
	}
	if ntc, changed := scrubCall(tc); changed {
		nreq := copyMap(req)
		nreq["toolCall"] = ntc
		out = copyMap(out)
		out["request"] = nreq
	}
	return out
}

// scrubState does the same for a snapshot: the tool calls of a chat's
// active turn and a session's inputNeeded entries. It changes the freshly
// decoded snapshot in place (nothing else holds it yet).
func scrubState(st map[string]any) {
	if turn, ok := st["activeTurn"].(map[string]any); ok {
		parts, _ := turn["responseParts"].([]any)
		for _, p := range parts {
			if pm, ok := p.(map[string]any); ok {
				if tc, ok := pm["toolCall"].(map[string]any); ok {
					pm["toolCall"], _ = scrubCall(tc)
				}
			}
		}
	}
	reqs, _ := st["inputNeeded"].([]any)
	for _, r := range reqs {
		if rm, ok := r.(map[string]any); ok {
			if tc, ok := rm["toolCall"].(map[string]any); ok {
				rm["toolCall"], _ = scrubCall(tc)
			}
		}
	}
}
