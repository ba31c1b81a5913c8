// Package toolexec executes the agent's calls to this client's own tools
// (docs/ahp.md §4.6, §5.4–§5.6): it watches the chats and sessions the AHP
// client follows, runs each `running` call whose contributor is this client
// exactly once, streams its output with chat/toolCallContentChanged and
// finishes it with one chat/toolCallComplete.
//
// Why this room exists: it is the only code that turns host state into local
// process runs, so it is the most security-sensitive part of ahpls. It never
// builds a shell string (argv expansion and confinement live in package
// tools, which it calls through the Runner interface), it never completes a
// call another client (or nobody) owns, and it kills the whole process group
// of a run the moment the call stops being `running` on the host. It knows
// nothing of LSP: bridge maps Observer to work-done progress and logs.
//
// Where to start: New and Options (executor.go), then Start. The pieces:
//
//   - executor.go: event handling and the per-call state machine. A call is
//     keyed (chat, turnId, toolCallId); its entry goes running → finished
//     (result ready) → sending (dispatched, outcome unknown) → done (a
//     tombstone that prevents a second run until the call leaves the state
//     it was handled in). reconcileLocked is the one place decisions are made.
//   - run.go: one run (input from inline JSON or a ContentRef read from the
//     host, Runner.Run with coalesced progress, result conversion).
//
// Ordering rules that keep "exactly once" true across reconnects: a run is
// cancelled from the chat's event-ordered states (so a quick
// running → pending-confirmation → running flip restarts it); results are
// only sent while the call is `running` in both the last processed state and
// the client's current state; after a lost dispatch (socket gone before the
// echo) the decision to re-send uses the client's current state only, which
// already contains the replayed echo or the snapshot — never the stale
// optimistic rendering of our own completion.
package toolexec
