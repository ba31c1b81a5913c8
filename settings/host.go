package settings

import (
	"encoding/json"
	"net/http"
)

// Host is the part of the settings that fixes an agent-host link: the
// bridge restarts the link when any of it changes and hands it whole to
// the link (hostlink.Config.Host). A new host setting is a field here, a
// case in parseHost, and its use in the link.
type Host struct {
	// URL is `ahpls.host`, the agent host's ws:// or wss:// URL ("" = none).
	URL string
	// Headers (`ahpls.hostHeaders`) are sent with the WebSocket upgrade.
	Headers map[string]string
	// Sessions (`ahpls.sessions`) are the sessions to join; nil means "auto"
	// (every session whose working directories cover a workspace folder).
	Sessions []string
	// TrustWorkspaceTools (`ahpls.trustWorkspaceTools`) enables command tools.
	TrustWorkspaceTools bool
	// Tools is the raw `ahpls.tools` value.
	Tools json.RawMessage
}

// Auto reports whether sessions are joined by working directory rather
// than by list.
func (h Host) Auto() bool { return len(h.Sessions) == 0 }

// WithEnv fills what the environment supplies: AHPLS_HOST when no host is
// set, and AHPLS_HOST_AUTHORIZATION as the Authorization header when the
// settings give none.
func (h Host) WithEnv(getenv func(string) string) Host {
	if h.URL == "" {
		h.URL = getenv("AHPLS_HOST")
	}
	if auth := getenv("AHPLS_HOST_AUTHORIZATION"); auth != "" && h.Header().Get("Authorization") == "" {
		m := make(map[string]string, len(h.Headers)+1)
		for k, v := range h.Headers {
			m[k] = v
		}
		m["Authorization"] = auth
		h.Headers = m
	}
	return h
}

// Header is Headers as the WebSocket upgrade's request header.
func (h Host) Header() http.Header {
	hd := http.Header{}
	for k, v := range h.Headers {
		hd.Set(k, v)
	}
	return hd
}

// parseHost reads the agent-host keys. A bad value is reported and
// left at its default; it never stops the other keys from applying.
func parseHost(obj map[string]json.RawMessage, st *Host) []string {
	var warnings []string
	if v, ok := obj["host"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &st.URL); err != nil {
			warnings = append(warnings, "ahpls.host must be a ws:// or wss:// URL string; ignored")
		}
	}
	if v, ok := obj["hostHeaders"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &st.Headers); err != nil {
			st.Headers = nil
			warnings = append(warnings, "ahpls.hostHeaders must map header names to strings; ignored")
		}
	}
	if v, ok := obj["sessions"]; ok && !isNull(v) {
		var list []string
		var word string
		switch {
		case json.Unmarshal(v, &list) == nil:
			if len(list) > 0 {
				st.Sessions = list
			}
		case json.Unmarshal(v, &word) == nil && word == "auto":
		default:
			warnings = append(warnings, `ahpls.sessions must be "auto" or a list of session URIs; using "auto"`)
		}
	}
	if v, ok := obj["trustWorkspaceTools"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &st.TrustWorkspaceTools); err != nil {
			warnings = append(warnings, "ahpls.trustWorkspaceTools must be true or false; using false")
		}
	}
	if v, ok := obj["tools"]; ok && !isNull(v) {
		var shape map[string]json.RawMessage
		if json.Unmarshal(v, &shape) != nil {
			warnings = append(warnings, `ahpls.tools must be an object like .ahpls/tools.json ({"tools": […]}); ignored`)
		} else {
			st.Tools = append(json.RawMessage(nil), v...)
		}
	}
	return warnings
}
