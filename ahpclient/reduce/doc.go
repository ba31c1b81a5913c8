// Package reduce is the state mirror's pure reducers for the AHP root, session
// and chat channels. Apply has protocol 0.8.0 (snapshot eb310986) semantics,
// plus lenient extensions for hosts speaking the released 0.8.0 shapes —
// customizationToggled with an `enablement` list, session/workingDirectory
// Replaced, and chat/error carrying a `part` instead of `error`. ApplyWith
// with Options.Dialect set to a negotiated 0.9.0+ version switches to the 1.x
// reducers where they differ (lifecycle "failed", enablement-only toggles,
// chat/error as a response part without Turn.error, chat/turnResume, no
// clock); see ApplyWith. Both follow docs/ahp.md §9; each inferred rule is
// marked "inferred (ahp.md §9)" at its reducer.
//
// Where to start: ApplyWith (and Apply) in reduce.go dispatches on the
// action's "type" to the root reducer (reduce.go), session.go and chat.go.
// States and actions are generic JSON values
// (map[string]any, []any, json.Number, string, bool, nil) as produced by
// Decode, so keys and variants this package does not know survive a
// reduction untouched: a newer host can add fields without the mirror
// silently dropping them.
//
// Conventions that matter when editing:
//   - Reducers never mutate their inputs. Each one copies only the maps and
//     slices on the path it changes and shares every other subtree with the
//     previous state, so a tool-call update on a chat with 1,000 completed
//     turns costs the size of the active turn, not of the transcript.
//   - The TypeScript reference writes `undefined` for "no value"; here that is
//     an absent key. A null in an action counts as absent (the reference's
//     `??` treats both alike), and a null already in a state is left alone.
//   - Anything of the wrong type makes the action a no-op instead of a panic.
//
// Sources of truth, in order: the official fixtures in
// shared/ahp/test-cases/reducers, docs/ahp.md §4.5 and §5.3, the schemas;
// for 1.x docs/ahp.md §9. Our own cases in the official format live in
// testdata/gaps (0.8) and testdata/v1 (with a "dialect" field).
package reduce
