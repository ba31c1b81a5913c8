package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ─── reconnect: two 1.1 shapes ────────────────────────────────────────────
//
// The spec repository's history holds two reconnect shapes:
//
//   - per channel (the 2026-10-02 change note; lifecycle.md "Reconnection";
//     the clients' "Per-channel reconnect/replay cursors" tests):
//     params.subscriptions is ChannelReplayCursor[] and the result is
//     {channels: ChannelRecovery[]}, one replay / snapshot / missing per
//     requested channel;
//   - connection-wide (1.0 and earlier, and later 1.1 commits with an
//     experimental `windows`): params carry lastSeenServerSeq and
//     subscriptions: URI[]; the result is {type: "replay", actions, missing}
//     or {type: "snapshot", snapshots}.
//
// ahpls sends the per-channel shape first and falls back to the
// connection-wide one when the host refuses it (the client does that, see
// ahpclient/conn.go); DecodeReconnectResult accepts either answer and turns
// both into per-channel recoveries, so the mirror has one path.

// ChannelReplayCursor is one channel's resume point: the serverSeq last
// applied to it (or the fromSeq of the snapshot that initialised it; 0 when
// it has no baseline yet). Never a connection-wide value.
type ChannelReplayCursor struct {
	Channel           string `json:"channel"`
	LastSeenServerSeq int64  `json:"lastSeenServerSeq"`
}

// ReconnectParams is the per-channel reconnect request.
type ReconnectParams struct {
	Channel       string                `json:"channel"`
	ClientID      string                `json:"clientId"`
	Subscriptions []ChannelReplayCursor `json:"subscriptions"`
}

// LegacyReconnectParams is the connection-wide reconnect request (1.0 and
// earlier). Windows (experimental upstream) is never sent: absence means the
// legacy delivery, which is all ahpls implements (docs/ahp.md §9 rule 5).
type LegacyReconnectParams struct {
	Channel           string   `json:"channel"`
	ClientID          string   `json:"clientId"`
	LastSeenServerSeq int64    `json:"lastSeenServerSeq"`
	Subscriptions     []string `json:"subscriptions"`
}

// Recovery kinds of a per-channel reconnect result. The set is open: a kind
// this package does not know is kept as sent (RecoveryKind is a string) and
// the client resubscribes that channel, the one recovery that is right
// whatever the new kind meant.
const (
	RecoveryReplay   = "replay"
	RecoverySnapshot = "snapshot"
	RecoveryMissing  = "missing"
)

// ChannelRecovery is one channel's reconnect outcome. Actions are raw
// action envelopes in ascending serverSeq (replay); Snapshot is set for a
// snapshot recovery.
type ChannelRecovery struct {
	Kind     string            `json:"kind"`
	Channel  string            `json:"channel"`
	Actions  []json.RawMessage `json:"actions,omitempty"`
	Snapshot *Snapshot         `json:"snapshot,omitempty"`
}

// ReconnectOutcome is a decoded reconnect result: one recovery per channel
// the host answered for. PerChannel records which shape the host used (for
// logs and the host status). Unanswered lists requested channels the host
// said nothing about; the client resubscribes them.
type ReconnectOutcome struct {
	PerChannel bool
	Channels   []ChannelRecovery
	Unanswered []string
}

// DecodeReconnectResult reads either reconnect result shape against the
// channels requested. A legacy replay is split by channel (order within a
// channel is kept; reducers are per channel, so nothing else is ordered);
// a legacy snapshot result reports every requested channel without a
// snapshot as missing, as that shape's contract says.
func DecodeReconnectResult(raw json.RawMessage, requested []string) (ReconnectOutcome, error) {
	var head struct {
		Type      string            `json:"type"`
		Channels  []json.RawMessage `json:"channels"`
		Actions   []json.RawMessage `json:"actions"`
		Missing   []string          `json:"missing"`
		Snapshots []Snapshot        `json:"snapshots"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return ReconnectOutcome{}, fmt.Errorf("wire: reconnect result: %w", err)
	}
	var out ReconnectOutcome
	answered := map[string]bool{}
	switch {
	case head.Channels != nil:
		out.PerChannel = true
		for _, c := range head.Channels {
			var r ChannelRecovery
			if err := json.Unmarshal(c, &r); err != nil || r.Channel == "" {
				continue // a malformed entry: its channel stays unanswered
			}
			if r.Kind == RecoverySnapshot && (r.Snapshot == nil || r.Snapshot.Resource != r.Channel) {
				continue
			}
			answered[r.Channel] = true
			out.Channels = append(out.Channels, r)
		}
	case head.Type == RecoveryReplay:
		byChannel := map[string][]json.RawMessage{}
		for _, a := range head.Actions {
			var env struct {
				Channel string `json:"channel"`
			}
			if json.Unmarshal(a, &env) == nil && env.Channel != "" {
				byChannel[env.Channel] = append(byChannel[env.Channel], a)
			}
		}
		missing := map[string]bool{}
		for _, m := range head.Missing {
			missing[m] = true
		}
		for _, ch := range requested {
			answered[ch] = true
			if missing[ch] {
				out.Channels = append(out.Channels, ChannelRecovery{Kind: RecoveryMissing, Channel: ch})
				continue
			}
			out.Channels = append(out.Channels, ChannelRecovery{Kind: RecoveryReplay, Channel: ch, Actions: byChannel[ch]})
		}
	case head.Type == RecoverySnapshot:
		snaps := map[string]*Snapshot{}
		for i := range head.Snapshots {
			snaps[head.Snapshots[i].Resource] = &head.Snapshots[i]
		}
		for _, ch := range requested {
			answered[ch] = true
			if s := snaps[ch]; s != nil {
				out.Channels = append(out.Channels, ChannelRecovery{Kind: RecoverySnapshot, Channel: ch, Snapshot: s})
			} else {
				out.Channels = append(out.Channels, ChannelRecovery{Kind: RecoveryMissing, Channel: ch})
			}
		}
	default:
		return ReconnectOutcome{}, errors.New("wire: reconnect result has neither channels nor a known type")
	}
	for _, ch := range requested {
		if !answered[ch] {
			out.Unanswered = append(out.Unanswered, ch)
		}
	}
	return out, nil
}

// SpeaksPerChannelReconnect reports whether a host that negotiated version
// may speak the per-channel reconnect: 1.1.0 and later (pre-releases of
// 1.1.0 included).
func SpeaksPerChannelReconnect(version string) bool { return Since11(version) }

// Since11 reports a version at or after 1.1.0 (its pre-releases included):
// the 1.1 additions (per-channel reconnect, chat/toolCallProgress) may be
// spoken.
func Since11(version string) bool {
	v, ok := parseSemver(version)
	return ok && (v.major > 1 || (v.major == 1 && v.minor >= 1))
}

// IsPerChannelReconnect reports whether reconnect params use the per-channel
// shape (subscriptions are objects): the test host and the validator branch
// on it.
func IsPerChannelReconnect(params json.RawMessage) bool {
	var p struct {
		Subscriptions []json.RawMessage `json:"subscriptions"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	for _, s := range p.Subscriptions {
		return len(bytes.TrimSpace(s)) > 0 && bytes.TrimSpace(s)[0] == '{'
	}
	// No subscriptions at all: the legacy shape requires lastSeenServerSeq.
	var l struct {
		Last *int64 `json:"lastSeenServerSeq"`
	}
	return json.Unmarshal(params, &l) == nil && l.Last == nil
}
