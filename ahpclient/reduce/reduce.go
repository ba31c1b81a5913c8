package reduce

import (
	"strings"
	"time"
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
// new state. It never mutates its inputs: it copies what it changes and shares
// untouched subtrees with the old state. Unknown action types, actions for
// another channel kind and malformed actions are no-ops returning the same
// state. A nil state is treated as an empty object.
func Apply(kind Kind, state map[string]any, action map[string]any, now Clock) map[string]any {
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
	var out object
	switch kind {
	case Root:
		out = reduceRoot(in, name, action)
	case Session:
		out = reduceSession(in, name, action)
	case Chat:
		out = reduceChat(in, name, action, now)
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
