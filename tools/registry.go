package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configure a Registry.
type Options struct {
	// Root is the workspace folder the tools belong to (required).
	Root string
	// Editor backs the built-in editor tools; nil offers none.
	Editor Editor
	// Trusted enables command tools (see SetTrusted).
	Trusted bool
	// Environ is the environment command tools inherit from (filtered by
	// DefaultEnvAllow and each tool's inheritEnv); nil means os.Environ().
	Environ []string
	// OnTestDiagnostics, when set, receives the editor diagnostics of
	// failing tests (source TestDiagnosticsSource) after each
	// ahpls_run_tests call: file URI → its diagnostics, where an empty
	// list clears a file whose tests pass again. Called from the goroutine
	// of the call; it must not block.
	OnTestDiagnostics func(map[string][]Diagnostic)
}

// Registry holds the tools of one workspace folder: the built-in editor
// tools, command tools from the LSP settings and from ConfigFile. It is
// safe for concurrent use; definitions are immutable once loaded, so calls
// run concurrently.
type Registry struct {
	root     string // as given, cleaned: used to build URIs
	realRoot string // symlink-free: used for confinement
	editor   Editor
	environ  []string

	mu        sync.Mutex
	trusted   bool
	builtins  []*Definition
	settings  []*Definition
	workspace []*Definition
	byName    map[string]*Definition // wire name → definition, from the last Resolve
	others    []string               // names passed to the last Resolve

	// The built-in test runner (testrun.go): the detected projects, its
	// definition (nil when nothing was detected) and whether the
	// workspace config turned it off.
	testProjects []TestProject
	testDef      *Definition
	testsOff     bool
	failed       lastFailed // what failed last time, for failedOnly
	onTestDiags  func(map[string][]Diagnostic)
}

// NewRegistry creates a registry for opts.Root, which must be an existing
// directory.
func NewRegistry(opts Options) (*Registry, error) {
	if opts.Root == "" {
		return nil, errors.New("tools: workspace root is required")
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("tools: workspace root: %w", err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("tools: workspace root %s is not a directory", root)
	}
	env := opts.Environ
	if env == nil {
		env = os.Environ()
	}
	r := &Registry{root: root, realRoot: real, editor: opts.Editor, environ: env, trusted: opts.Trusted, onTestDiags: opts.OnTestDiagnostics}
	if opts.Editor != nil {
		r.builtins = builtinDefinitions()
	}
	r.RefreshTestProjects()
	return r, nil
}

// Root returns the workspace root as given (absolute, cleaned).
func (r *Registry) Root() string { return r.root }

// SetTrusted switches command tools on or off (workspace trust). Built-in
// editor tools are always available. After a change, call Resolve and
// re-publish the active-client entry.
func (r *Registry) SetTrusted(trusted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trusted = trusted
	r.byName = nil
}

// Trusted reports the trust flag.
func (r *Registry) Trusted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.trusted
}

// maxConfigBytes bounds what LoadWorkspaceConfig reads.
const maxConfigBytes = 1 << 20

// LoadWorkspaceConfig reads ConfigFile from disk and installs it. A missing
// file is no tools and no problems.
func (r *Registry) LoadWorkspaceConfig() ([]Problem, error) {
	f, err := os.Open(filepath.Join(r.realRoot, ConfigFile))
	if errors.Is(err, os.ErrNotExist) {
		r.SetWorkspaceConfig(nil)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", ConfigFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigBytes {
		return []Problem{{Start: 0, End: 1, Severity: SeverityError, Message: fmt.Sprintf("%s is larger than %d bytes and was ignored", ConfigFile, maxConfigBytes)}}, nil
	}
	return r.SetWorkspaceConfig(data), nil
}

// SetWorkspaceConfig installs the text of ConfigFile (e.g. from an open
// editor buffer) and returns its problems, offsets into data. Tools with
// errors are left out; in an untrusted workspace every command tool is
// reported with UntrustedReason.
func (r *Registry) SetWorkspaceConfig(data []byte) []Problem {
	r.mu.Lock()
	trusted := r.trusted
	r.mu.Unlock()
	defs, probs := ParseConfig(data, ConfigOptions{Root: r.realRoot, Source: SourceWorkspace, Trusted: trusted})
	var top struct {
		RunTests *bool `json:"runTests"`
	}
	_ = json.Unmarshal(data, &top)
	r.mu.Lock()
	r.testsOff = top.RunTests != nil && !*top.RunTests
	r.workspace = defs
	r.byName = nil
	r.mu.Unlock()
	return probs
}

// SetSettings installs the ahpls.tools setting, re-encoded as JSON text in
// the same shape as ConfigFile ({"tools":[...]}); nil or empty clears it.
// Problem offsets refer to that text; Path says which value is meant.
func (r *Registry) SetSettings(settingsJSON []byte) []Problem {
	r.mu.Lock()
	trusted := r.trusted
	r.mu.Unlock()
	defs, probs := ParseConfig(settingsJSON, ConfigOptions{Root: r.realRoot, Source: SourceSettings, Trusted: trusted})
	r.mu.Lock()
	r.settings = defs
	r.byName = nil
	r.mu.Unlock()
	return probs
}

// SetSettingsValue is SetSettings for an already decoded setting value
// (e.g. from workspace/didChangeConfiguration); nil clears it.
func (r *Registry) SetSettingsValue(v any) []Problem {
	if v == nil {
		return r.SetSettings(nil)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return []Problem{{Severity: SeverityError, Message: "ahpls.tools setting: " + err.Error()}}
	}
	return r.SetSettings(b)
}

// Blocked is a configured tool that is not offered, and why.
type Blocked struct {
	Name   string
	Source Source
	Reason string
}

// Blocked lists the command tools withheld because the workspace is not
// trusted.
func (r *Registry) Blocked() []Blocked {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.trusted {
		return nil
	}
	var out []Blocked
	for _, d := range append(append([]*Definition(nil), r.settings...), r.workspace...) {
		out = append(out, Blocked{Name: d.Name, Source: d.Source, Reason: UntrustedReason})
	}
	return out
}

// candidates returns the offerable definitions in precedence order. Caller
// holds mu.
func (r *Registry) candidates() []*Definition {
	out := append([]*Definition(nil), r.builtins...)
	if r.trusted {
		out = append(out, r.settings...)
		out = append(out, r.workspace...)
		if r.testDef != nil && !r.testsOff && !r.configured(BuiltinRunTests) {
			out = append(out, r.testDef)
		}
	}
	return out
}

// configured reports whether the settings or workspace config define a
// tool called name (which then replaces the built-in one). Caller holds mu.
func (r *Registry) configured(name string) bool {
	for _, d := range append(append([]*Definition(nil), r.settings...), r.workspace...) {
		if d.Name == name {
			return true
		}
	}
	return false
}

// Resolve decides the wire names of the offered tools given the names of
// the session's other tools (server tools and other clients' tools — not
// ahpls's own previous entry) and returns the tool list for
// SessionActiveClient.tools (never nil) with the collisions found. Run uses
// the names of the last Resolve.
func (r *Registry) Resolve(others []string) ([]ToolDefinition, []Collision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	named, coll := ResolveNames(r.candidates(), others)
	r.byName = make(map[string]*Definition, len(named))
	r.others = append([]string(nil), others...)
	out := make([]ToolDefinition, 0, len(named))
	for _, n := range named {
		r.byName[n.Name] = n.Def
		out = append(out, n.Def.Wire(n.Name))
	}
	return out, coll
}

// Lookup finds a tool by wire name (as of the last Resolve; before any
// Resolve, as if there were no other tools).
func (r *Registry) Lookup(name string) (*Definition, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byName == nil {
		named, _ := ResolveNames(r.candidates(), r.others)
		r.byName = make(map[string]*Definition, len(named))
		for _, n := range named {
			r.byName[n.Name] = n.Def
		}
	}
	d, ok := r.byName[name]
	return d, ok
}

// Run executes one call of the tool with wire name name. toolInput is the
// call's JSON text, nil when absent (then the input is {}); a ContentRef
// input must be fetched by the caller first. It returns when the call and
// every process it started are finished; cancel ctx to abort (the process
// group is killed). onProgress may be nil.
func (r *Registry) Run(ctx context.Context, name string, toolInput []byte, onProgress ProgressFunc) Result {
	start := time.Now()
	res := r.run(ctx, name, toolInput, onProgress)
	if res.Duration == 0 {
		res.Duration = time.Since(start)
	}
	return res
}

func (r *Registry) run(ctx context.Context, name string, toolInput []byte, onProgress ProgressFunc) Result {
	d, ok := r.Lookup(name)
	if !ok {
		return failure(CodeUnknownTool, fmt.Sprintf("Tool %q is not available on this client", name))
	}
	label := d.Title
	if label == "" {
		label = d.Name
	}
	if (d.Command != nil || d.trustGated) && !r.Trusted() {
		return failure(CodeUntrusted, fmt.Sprintf("Did not run %s: the workspace is not trusted", label))
	}
	input, err := d.ValidateInput(toolInput)
	if err != nil {
		return failure(CodeInvalidInput, fmt.Sprintf("Did not run %s: %v", label, err))
	}
	if d.builtin != nil {
		if err := ctx.Err(); err != nil {
			res := failure(CodeCancelled, label+" was cancelled before it started")
			res.Cancelled = true
			return res
		}
		return d.builtin(ctx, r, d, input, onProgress)
	}
	c := d.Command
	args, err := ExpandArgv(c.Argv, input, c.AllowLeadingDash)
	if err != nil {
		return failure(CodeInvalidInput, fmt.Sprintf("Did not run %s: %v", label, err))
	}
	env := buildEnv(r.environ, c.InheritEnv, c.Env)
	cwd := c.Cwd
	if cwd == "" {
		cwd = "."
	}
	dir, err := resolveInside(r.realRoot, cwd)
	if err != nil {
		return failure(codeFor(err), fmt.Sprintf("Did not run %s: working directory: %v", label, err))
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return failure(CodeStartFailed, fmt.Sprintf("Did not run %s: working directory %q is not a directory", label, cwd))
	}
	prog, err := resolveProgram(r.realRoot, args[0], env)
	if err != nil {
		return failure(codeFor(err), fmt.Sprintf("Did not run %s: %v", label, err))
	}
	return runProcess(ctx, execSpec{
		Path: prog, Args: args, Dir: dir, Env: env,
		Timeout: c.Timeout(), Limit: c.OutputLimit(), Label: label,
	}, onProgress)
}

func codeFor(err error) string {
	if errors.Is(err, ErrOutsideWorkspace) {
		return CodeOutside
	}
	return CodeStartFailed
}

// Named is a definition with its final wire name.
type Named struct {
	Name string
	Def  *Definition
}

// Collision reports a tool whose wanted wire name was taken.
type Collision struct {
	Tool    string // configured name
	Source  Source
	Wanted  string // Prefix + Tool
	Final   string // the name it got; "" when it is not offered
	Message string
}

// ResolveNames gives each definition (in precedence order: built-ins, then
// settings, then workspace config) the wire name Prefix+Name. Among ahpls's
// own tools the first definition of a name wins and later ones are dropped.
// A name already used by another tool of the session (others: server tools
// and other clients' tools) is renamed with the first free suffix _2, _3, …
// so the model can still reach it; each such case is reported.
func ResolveNames(defs []*Definition, others []string) ([]Named, []Collision) {
	taken := make(map[string]bool, len(others))
	for _, n := range others {
		taken[n] = true
	}
	own := map[string]*Definition{}    // final names given out
	wanted := map[string]*Definition{} // wanted names, for our own duplicates
	// A rename must not take a name one of our own later tools wants.
	reserved := map[string]bool{}
	for _, d := range defs {
		reserved[Prefix+d.Name] = true
	}
	var out []Named
	var coll []Collision
	for _, d := range defs {
		want := Prefix + d.Name
		if prev, dup := wanted[want]; dup {
			coll = append(coll, Collision{Tool: d.Name, Source: d.Source, Wanted: want,
				Message: fmt.Sprintf("tool %q from the %s is not offered: the %s tool %q has the same name", d.Name, d.Source, prev.Source, prev.Name)})
			continue
		}
		final := want
		if taken[want] || own[want] != nil {
			for i := 2; ; i++ {
				cand := fmt.Sprintf("%s_%d", want, i)
				if !taken[cand] && own[cand] == nil && !reserved[cand] {
					final = cand
					break
				}
			}
			coll = append(coll, Collision{Tool: d.Name, Source: d.Source, Wanted: want, Final: final,
				Message: fmt.Sprintf("tool name %q is already used by another tool of the session; offered as %q", want, final)})
		}
		wanted[want] = d
		own[final] = d
		out = append(out, Named{Name: final, Def: d})
	}
	return out, coll
}
