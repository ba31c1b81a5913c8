package ahptest

// The Host is split by job into parts embedded in it, so that a test
// keeps calling h.CreateSession, h.Drop or h.Wait while each job reads on
// its own. Every part holds the Host back (its methods take the Host's
// lock and reach its channels, as the protocol engine in host.go does);
// what a part owns is its methods, not its state.

// SessionState creates, disposes and validates sessions and chats, and
// answers the session requests of clients (state.go).
type SessionState struct{ h *Host }

// ToolCalls scripts turns and client tool calls in a chat and reports
// what became of them (script.go, state.go).
type ToolCalls struct{ h *Host }

// PluginStore reads the plugins clients publish, loads them and reports
// their load state (plugins.go).
type PluginStore struct{ h *Host }

// EnablementState keeps the enablement decisions of the host's sessions
// and republishes what they gate (enablement.go).
type EnablementState struct{ h *Host }

// Faults injects the failures a client must survive: dropped sockets,
// delays, duplicates, floods, refused reconnects (faults.go).
type Faults struct{ h *Host }

// Recorder answers what tests assert on: clients, subscriptions,
// sequence numbers, reconnects, channel state, negotiated versions, and
// Wait for a condition (host.go, state.go, faults.go, dialect.go).
type Recorder struct{ h *Host }

// attachParts points every part at h.
func (h *Host) attachParts() {
	h.SessionState = SessionState{h}
	h.ToolCalls = ToolCalls{h}
	h.PluginStore = PluginStore{h}
	h.EnablementState = EnablementState{h}
	h.Faults = Faults{h}
	h.Recorder = Recorder{h}
}
