package reduce

import (
	"strings"
	"time"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// Kind names the channel whose reducer Apply runs. Bind it when subscribing,
// not from the URI scheme: fixtures and some hosts use other schemes.
type Kind string

// The reducers this package implements.
const (
	Root    Kind = "root"
	Session Kind = "session"
	Chat    Kind = "chat"
)

// Clock gives "now" for reducers that stamp modifiedAt (the chat reducer);
// fixtures pin it to 9999 ms after the epoch. A nil Clock means time.Now.
type Clock func() time.Time

// Apply applies one action (a decoded JSON object) to a state and returns the
// new state, with protocol 0.8.0 semantics (ApplyWith with a zero Dialect).
// It never mutates its inputs: it copies what it changes and shares
// untouched subtrees with the old state. Unknown action types, actions for
// another channel kind and malformed actions are no-ops returning the same
// state. A nil state is treated as an empty object.
func Apply(kind Kind, state map[string]any, action map[string]any, now Clock) map[string]any {
	return ApplyWith(kind, state, action, Options{Now: now})
}

// Options select the clock and the protocol dialect of ApplyWith.
type Options struct {
	// Now stamps modifiedAt in the 0.x chat reducer; nil means time.Now.
	Now Clock
	// Dialect is the negotiated protocol version (initialize's
	// protocolVersion, e.g. "1.0.0"). 0.9.0 and later (wire.IsV1) select
	// the 1.x reducers; "" and every earlier version select 0.8.0, which
	// is what Apply does.
	Dialect string
}

// ApplyWith is Apply for a chosen dialect. Where 1.x differs (docs/ahp.md
// §9) it follows the 1.x reducers, all of it lenient: a 1.x connection
// that receives a 0.x-shaped action still reduces it when the meaning is
// unambiguous. The differences, each documented at its reducer:
//   - session/creationFailed sets lifecycle "failed" (not "creationFailed");
//   - session/customizationToggled needs `enablement`; `enabled` alone is a
//     no-op;
//   - chat/error appends its ErrorResponsePart and sets no Turn.error;
//   - chat/turnResume reopens the last errored, resumable turn;
//   - chat reducers leave modifiedAt alone (they read no clock).
func ApplyWith(kind Kind, state map[string]any, action map[string]any, opts Options) map[string]any {
	if action == nil {
		return state
	}
	typ, _ := str(action, "type")
	prefix, name, ok := strings.Cut(typ, "/")
	if !ok || prefix != string(kind) {
		return state
	}
	in := state
	if in == nil {
		in = object{}
	}
	v1 := opts.Dialect != "" && wire.IsV1(opts.Dialect)
	var out object
	switch kind {
	case Root:
		out = reduceRoot(in, name, action)
	case Session:
		out = reduceSession(in, name, action, v1)
	case Chat:
		out = reduceChat(in, name, action, opts.Now, v1)
		if v1 && out != nil {
			keepModifiedAt(in, out)
		}
	default:
		return state
	}
	if out == nil {
		// Reducers return nil for "no change" so the caller keeps its
		// exact map (identity tells the connection nothing changed).
		return state
	}
	return out
}

// keepModifiedAt undoes the 0.x clock stamp on a 1.x chat result.
// inferred (ahp.md §9): from 0.9.0 the reducers stop reading the clock, so
// the host's own state keeps the modifiedAt it had; the mirror does the same
// instead of inventing a local time. No chat action carries modifiedAt
// itself, so restoring the previous value is exact. out is always a fresh
// map here (reducers copy before changing).
func keepModifiedAt(in, out object) {
	if old, had := in["modifiedAt"]; had {
		out["modifiedAt"] = old
	} else {
		delete(out, "modifiedAt")
	}
}

func reduceRoot(s object, name string, a object) object {
	switch name {
	case "agentsChanged":
		return replaceField(s, "agents", a["agents"])
	case "activeSessionsChanged":
		return replaceField(s, "activeSessions", a["activeSessions"])
	case "terminalsChanged":
		return replaceField(s, "terminals", a["terminals"])
	case "configChanged":
		return configChanged(s, a)
	}
	return nil
}

// replaceField returns a copy of s with k set to v (deleted when v is null or
// absent, the reference's `undefined`).
func replaceField(s object, k string, v any) object {
	n := clone(s)
	set(n, k, v)
	return n
}

// configChanged merges (or with replace:true replaces) config.values; a state
// without config is left alone because there is no schema to validate against.
func configChanged(s object, a object) object {
	cfg := obj(s["config"])
	if cfg == nil {
		return nil
	}
	incoming := obj(a["config"])
	values := object{}
	if !truthy(a["replace"]) {
		for k, v := range obj(cfg["values"]) {
			values[k] = v
		}
	}
	for k, v := range incoming {
		values[k] = v
	}
	nc := clone(cfg)
	nc["values"] = values
	n := clone(s)
	n["config"] = nc
	return n
}
