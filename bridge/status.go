package bridge

// The `ahpls/hostStatus` notification: how the agent host connection is
// doing, for the editor extensions' status item. The bridge owns its method
// name and payload; the server only carries it (server.Notify).

import "sync/atomic"

// MethodHostStatus is the bridge→editor notification carrying HostStatus.
const MethodHostStatus = "ahpls/hostStatus"

// HostStatus is the payload of `ahpls/hostStatus`. One is sent in every
// session (#18): the bridge reports each change of the link, and when no
// host is configured it says so once the server is initialized.
type HostStatus struct {
	// State is one of the HostState* constants.
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	Host    string `json:"host,omitempty"`
	// RetryIn is how many seconds until the next connection attempt, while
	// State is "connecting" after a failed attempt; LastError says why the
	// last attempt failed.
	RetryIn   int    `json:"retryIn,omitzero"`
	LastError string `json:"lastError,omitzero"`
	// HostVersions and ClientVersions are the protocol versions each side
	// speaks, when State is "refused" for want of a common one.
	HostVersions   []string `json:"hostVersions,omitzero"`
	ClientVersions []string `json:"clientVersions,omitzero"`
	// HostBuild is the host's build from its `_meta.hostBuild` and ReadOnly
	// its read-only role (AHP 1.1), while State is "connected".
	HostBuild string `json:"hostBuild,omitzero"`
	ReadOnly  bool   `json:"readOnly,omitzero"`
}

// The states of HostStatus. "No host configured" is HostStateDisconnected
// with HostStatusNoHost as its message, so clients that know only the four
// states keep working.
const (
	HostStateDisconnected = "disconnected"
	HostStateConnecting   = "connecting"
	HostStateConnected    = "connected"
	HostStateRefused      = "refused"
	HostStatusNoHost      = "no agent host configured (ahpls.host)"
)

// statusSender sends HostStatus through the server and remembers that one
// went out, so the "no host" default is sent only when nothing else was.
type statusSender struct {
	notify func(method string, params any) // server.Notify
	sent   atomic.Bool
}

// send queues one status. Safe from any goroutine.
func (s *statusSender) send(st HostStatus) {
	s.sent.Store(true)
	s.notify(MethodHostStatus, st)
}

// ensure reports "no host configured" unless a status was sent: without
// one, editors show "not reported yet" forever (#18).
func (s *statusSender) ensure() {
	if !s.sent.Load() {
		s.send(HostStatus{State: HostStateDisconnected, Message: HostStatusNoHost})
	}
}
