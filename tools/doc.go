// Package tools is the client-tool room of ahpls: it defines the tools ahpls
// offers to an agent host as an AHP active client, and runs them safely. It
// knows nothing of AHP wiring or LSP; hostlink (publication, one Registry
// per folder) and toolexec (running the agent's calls) use it, and bridge
// gives it the editor.
//
// Where to start:
//
//   - registry.go: Registry is the one object hostlink holds per workspace
//     folder. Feed it the workspace config (.ahpls/tools.json), the LSP
//     settings and the trust flag; ask it for the final tool list
//     (Registry.Resolve, which prefixes names with "ahpls_" and reports
//     collisions with other tools of the session); run a call with
//     Registry.Run and turn the Result into a chat/toolCallComplete.
//   - config.go: ParseConfig / ValidateConfig read the JSON config and return
//     Problems with byte offsets for diagnostics; tools.schema.json is the
//     documented JSON Schema of that file (embedded as ConfigSchema), and
//     testdata/config/good.json is a complete example. configschema.go
//     interprets that schema (only the keywords it uses) so that every
//     problem has a place; inputschema.go compiles a tool's own input
//     schema with jsonschema-go, loading nothing from outside it.
//   - argv.go: how an argv template with {placeholders} becomes the argument
//     vector. There is never a shell: one placeholder is one argument.
//   - run.go: the process runner (own process tree, cancellation and timeout
//     kill the whole tree, output bounded in memory, coalesced progress).
//     proc_*.go hold what a "process tree" is per platform: a process group
//     on Unix, plus on Linux a child subreaper and a /proc sweep for
//     descendants that left the group; a Job Object on Windows.
//   - editor.go: built-in tools backed by the Editor interface the server
//     implements (workspace diagnostics, window/showDocument).
//   - testrun.go: the built-in test runner ahpls_run_tests (detection,
//     argv per framework, the report); testrun_go.go and testrun_node.go
//     parse go test -json, node's TAP and pytest's JUnit XML.
//
// One Registry serves one workspace folder (its root confines every path).
// Definitions are shared between calls and must not be modified.
//
// Security model, in short: command tools come only from configuration and
// run only when the workspace is trusted; the model supplies values, never
// program names or shell text; the working directory and workspace-relative
// programs must resolve (after symlinks) inside the workspace root; the child
// gets an allow-listed environment, not ahpls's whole environment.
//
// What is contained where: on Linux a descendant that leaves the process
// group (setsid, a daemonizing double fork) is still found and killed when
// the run ends, unless it also scrubs its environment of the run's tag and
// re-parents itself away from ahpls (only cgroups could contain that). On
// macOS and the BSDs such a descendant escapes, and a tool outlives an ahpls
// killed with SIGKILL. On Windows every descendant stays in the run's Job
// Object and dies with it, also when ahpls dies; there is no SIGTERM grace.
package tools
