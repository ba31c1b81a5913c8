package ahptest

import (
	"bytes"
	"encoding/json"

	"github.com/ahpls-dev/ahpls/ahpclient/reduce"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/enablement"
)

// Per-connection dialect ("Speak the current AHP").
//
// Negotiation follows upstream 1.1.0-dev (docs/ahp.md §9, wire.Negotiate):
// the highest offered version caret-compatible with one the host supports
// (same major; for 0.x the same minor), whatever the client's order;
// otherwise -32005 with supportedVersions, then close.
//
// The host keeps one canonical state (0.8 reducers; plugins and MCP servers
// carry both `enabled` and the resolved `enablement` list) and shapes what
// each connection receives:
//
//   - 0.x connections (< 0.9): the snapshot dialect — `enabled` booleans on
//     plugins and MCP servers, no `enablement`; customizationToggled as
//     {id, enabled}.
//   - 1.x connections (0.9.0 and later, wire.IsV1): `enablement` lists and
//     no `enabled` on plugins and MCP servers (a hand-emitted enabled:false
//     without a list becomes [{kind:"session",enabled:false}]);
//     customizationToggled as {id, enablement}; lifecycle "failed" for
//     "creationFailed".
//
// activeClients entries are what clients published and pass through
// untouched (a changed echo would make a client re-assert forever), except
// that a 0.x connection gets `enabled` added where a 1.x client left it out.
//
// Schema validation follows the version each connection negotiated. A 0.x
// connection's frames are validated as sent against the 0.8.0 schemas (the
// only ones shipped), nothing relaxed: a plugin or toggle without `enabled`
// is a violation there, whatever enablement shape the client assumed.
// 1.x frames: the shipped schemas are 0.8, so a copy
// of each 1.x frame, in either direction, is translated back before
// validation — every plugin/MCP object and toggle lacking `enabled` gets
// the effective value of its list, and lifecycle "failed" reads as
// "creationFailed". That is exactly what is relaxed; every other 1.x
// difference (chat/error parts, new actions, SessionSummary fields) is
// neither produced by this host nor relaxed.

type dialect int

const (
	dialectSnapshot dialect = iota // 0.x: enabled booleans
	dialectV1                      // 0.9.0 / 1.x: enablement lists
)

func dialectOf(version string) dialect {
	if wire.IsV1(version) {
		return dialectV1
	}
	return dialectSnapshot
}

// negotiate picks the connection's version (see above).
func (h *Host) negotiate(offered []any) (string, bool) {
	var l []string
	for _, o := range offered {
		if s, ok := o.(string); ok {
			l = append(l, s)
		}
	}
	v, err := wire.Negotiate(l, h.opts.ProtocolVersions)
	return v, err == nil
}

// shape returns the bytes to send to a connection and the bytes to validate
// against the 0.8 schemas.
func (c *hconn) shape(b []byte) (send, check []byte) {
	if !bytes.Contains(b, []byte(`"enabl`)) && !bytes.Contains(b, []byte(`creationFailed`)) && !bytes.Contains(b, []byte(`"failed"`)) {
		return b, b
	}
	v, err := reduce.Decode(b)
	if err != nil {
		return b, b
	}
	keep := ""
	if c.echoExtras {
		keep = c.clientID
	}
	translate(v, c.dialect, false, keep)
	send, err = json.Marshal(v)
	if err != nil {
		return b, b
	}
	if c.dialect == dialectSnapshot {
		return send, send
	}
	return send, backTo08(send)
}

// backTo08 translates a 1.x frame copy back to what the 0.8 schemas accept.
func backTo08(b []byte) []byte {
	v, err := reduce.Decode(b)
	if err != nil {
		return b
	}
	relax(v)
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// inboundCheck is the copy of an inbound frame to validate.
func (c *hconn) inboundCheck(data []byte) []byte {
	if c.dialect != dialectV1 {
		return data
	}
	return backTo08(data)
}

func effective(v any) bool {
	l, _ := listOf(v)
	return enablement.Enabled(l)
}

// translate shapes a decoded frame for a dialect in place. inClients is
// true below activeClient(s) keys. keep names a client whose own plugin
// entries keep their extra keys (fault mode EchoClientExtras).
func translate(v any, d dialect, inClients bool, keep string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			translate(e, d, inClients, keep)
		}
	case map[string]any:
		if !inClients {
			if keep != "" && d == dialectSnapshot && x["type"] == "plugin" && x["clientId"] == keep {
				// The entry as the client published it: `enabled` plus the
				// `enablement` list a dual-shape client sent beside it.
				if _, ok := x["enabled"]; !ok {
					x["enabled"] = effective(x["enablement"])
				}
			} else {
				shapeObject(x, d)
			}
		} else if d == dialectSnapshot && x["type"] == "plugin" {
			if _, ok := x["enabled"]; !ok {
				x["enabled"] = effective(x["enablement"])
			}
		}
		for k, e := range x {
			translate(e, d, inClients || k == "activeClient" || k == "activeClients", keep)
		}
	}
}

func shapeObject(x map[string]any, d dialect) {
	switch {
	case scopedType(x["type"]):
		if d == dialectSnapshot {
			if _, ok := x["enabled"]; !ok {
				x["enabled"] = effective(x["enablement"])
			}
			delete(x, "enablement")
			return
		}
		if _, ok := x["enablement"]; !ok {
			if on, ok := x["enabled"].(bool); ok && !on {
				x["enablement"] = []any{map[string]any{"kind": "session", "enabled": false}}
			}
		}
		delete(x, "enabled")
	case x["type"] == "session/customizationToggled":
		if d == dialectSnapshot {
			if _, ok := x["enabled"]; !ok {
				x["enabled"] = effective(x["enablement"])
			}
			delete(x, "enablement")
			return
		}
		if _, ok := x["enablement"]; !ok {
			on, _ := x["enabled"].(bool)
			x["enablement"] = []any{map[string]any{"kind": "session", "enabled": on}}
		}
		delete(x, "enabled")
	}
	if d == dialectV1 && x["lifecycle"] == "creationFailed" {
		x["lifecycle"] = "failed"
	}
}

// relax is the translation back to 0.8 for validation only.
func relax(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			relax(e)
		}
	case map[string]any:
		if scopedType(x["type"]) || x["type"] == "session/customizationToggled" {
			if _, ok := x["enabled"]; !ok {
				x["enabled"] = effective(x["enablement"])
			}
		}
		if x["lifecycle"] == "failed" {
			x["lifecycle"] = "creationFailed"
		}
		for _, e := range x {
			relax(e)
		}
	}
}

// ProtocolVersion is the version negotiated with a connected client ("" if
// it is not connected).
func (part Recorder) ProtocolVersion(clientID string) string {
	h := part.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if cr := h.clients[clientID]; cr != nil && cr.conn != nil {
		return cr.conn.version
	}
	return ""
}
