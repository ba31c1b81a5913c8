package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/bridge"
	"github.com/ahpls-dev/ahpls/check"
	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/hostlink"
	"github.com/ahpls-dev/ahpls/internal/lspeditor"
	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/server"
	"github.com/ahpls-dev/ahpls/tools"
	"github.com/ahpls-dev/ahpls/virtualplugin"

	"github.com/ahpls-dev/ahpls/ahpclient/wire"
)

// run is one demo's state, step by step.
type run struct {
	opts  Options
	ws    string
	p     *printer
	start time.Time
	log   *slog.Logger

	host     *ahptest.Host
	hostURL  string
	session  string
	chat     string
	clientID string
	ed       *lspeditor.Editor // the editor stand-in, speaking LSP to the real server
	state    string            // scratch dir for the client's state
	// errFiles are the files the check step found errors in: the ones the
	// publish step expects to see left out.
	errFiles []string

	mu         sync.Mutex
	violations []error
	reads      []string
	plugin     hostlink.PublishedPlugin
}

func (r *run) say(step, text string, data map[string]any) {
	r.p.emit(Event{Step: step, Text: text, Data: data})
}

func (r *run) all(ctx context.Context) error {
	r.log = slog.New(slog.NewTextHandler(r.opts.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	steps := []struct {
		name string
		do   func(context.Context) error
	}{
		{"check", r.check},
		{"host", r.startHost},
		{"connect", r.connect},
		{"publish", r.publish},
		{"read", r.readBack},
		{"load", r.load},
		{"tool", r.turnAndTool},
	}
	for _, s := range steps {
		if err := s.do(ctx); err != nil {
			if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w (timed out after %s)", err, r.opts.Timeout)
			}
			r.say(s.name, "FAILED: "+err.Error(), map[string]any{"error": err.Error()})
			return &StepError{Step: s.name, Err: err}
		}
		if v := r.takeViolation(); v != nil {
			r.say(s.name, "FAILED: protocol violation: "+v.Error(), map[string]any{"error": v.Error()})
			return &StepError{Step: s.name, Err: v}
		}
	}
	elapsed := time.Since(r.start).Round(100 * time.Millisecond)
	r.say("done", fmt.Sprintf("every step passed in %s", elapsed), map[string]any{"steps": len(steps), "seconds": elapsed.Seconds()})
	return nil
}

func (r *run) close() {
	if r.ed != nil {
		r.ed.Close()
	}
	if r.host != nil {
		_ = r.host.Close()
	}
	if r.state != "" {
		_ = os.RemoveAll(r.state)
	}
}

func (r *run) takeViolation() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.violations) == 0 {
		return nil
	}
	return r.violations[0]
}

// check runs the rules over the workspace, as `ahpls check` does.
func (r *run) check(ctx context.Context) error {
	findings, err := check.Run([]string{r.ws}, diagnostics.Options{ToolsConfig: tools.ConfigProblems})
	if err != nil {
		return err
	}
	counts := map[model.Severity]int{}
	var lines []string
	for _, f := range findings {
		counts[f.Severity]++
		if f.Severity == model.SeverityError {
			r.errFiles = append(r.errFiles, filepath.Join(r.ws, filepath.FromSlash(f.Rel)))
		}
		if f.Severity <= model.SeverityWarning {
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s [%s]", f.Rel, f.Line, f.Column, f.Level, f.Message, f.Rule))
		}
	}
	text := fmt.Sprintf("checked %s: %s, %s, %s", r.ws, plural(counts[model.SeverityError], "error"), plural(counts[model.SeverityWarning], "warning"), plural(counts[model.SeverityInfo]+counts[model.SeverityHint], "info or hint"))
	if len(lines) > 0 {
		text += "\n" + strings.Join(lines, "\n")
	}
	r.say("check", text, map[string]any{"errors": counts[model.SeverityError], "warnings": counts[model.SeverityWarning], "findings": findings})
	return nil
}

// startHost starts the embedded AHP test host and a session on the workspace.
func (r *run) startHost(ctx context.Context) error {
	r.host = ahptest.New(ahptest.Options{
		ProtocolVersions: r.opts.ProtocolVersions,
		Logger:           r.log,
		OnViolation: func(err error) {
			r.mu.Lock()
			r.violations = append(r.violations, err)
			r.mu.Unlock()
		},
		OnPluginRead: func(clientID, method, uri string) {
			if method == wire.MethodResourceRead {
				r.mu.Lock()
				r.reads = append(r.reads, uri)
				r.mu.Unlock()
			}
		},
	})
	url, err := r.host.Start()
	if err != nil {
		return err
	}
	r.hostURL = url
	r.session = r.host.CreateSession(ahptest.SessionSpec{Title: "ahpls demo", WorkingDirectories: []string{virtualplugin.FolderURI(r.ws)}})
	chat, err := r.host.CreateChat(r.session, "", "Demo chat")
	if err != nil {
		return err
	}
	r.chat = chat
	r.say("host", fmt.Sprintf("embedded AHP test host on %s (speaks %s)\nsession %s, working directory %s", url, strings.Join(r.opts.ProtocolVersions, ", "), r.session, virtualplugin.FolderURI(r.ws)),
		map[string]any{"url": url, "session": r.session, "chat": chat, "protocolVersions": r.opts.ProtocolVersions})
	return nil
}

// connect starts the language server as an editor does, with an editor
// stand-in speaking LSP over a pipe and `ahpls.host` naming the embedded
// host: the server's bridge starts the host link, which joins the session.
func (r *run) connect(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "ahpls-demo-state-")
	if err != nil {
		return err
	}
	r.state = dir
	srvOpts := server.DefaultOptions()
	srvOpts.Logger = nil
	if r.opts.Log != io.Discard {
		srvOpts.Logger = slog.New(server.NewLogHandler(r.opts.Log, nil))
	}
	r.ed, err = lspeditor.StartEditor(ctx, lspeditor.EditorOptions{
		Folders: []string{r.ws},
		Settings: map[string]any{
			"host":                r.hostURL,
			"sessions":            []string{r.session},
			"trustWorkspaceTools": true, // the demo's own example workspace
		},
		Server: &srvOpts,
		Bridge: bridge.Config{Log: r.log, StateDir: dir, LinkDebounce: 50 * time.Millisecond, Getenv: func(string) string { return "" }},
		OnShowDocument: func(uri string) {
			r.say("editor", "the editor would open "+uri, map[string]any{"uri": uri})
		},
	})
	if err != nil {
		return fmt.Errorf("the language server did not start: %w", err)
	}
	var st lspeditor.HostConnection
	err = r.ed.Wait(ctx, func() bool {
		st, err = r.ed.HostStatus(ctx)
		return err == nil && st.ClientID != ""
	})
	if err != nil {
		return fmt.Errorf("the server started no host link: %w", err)
	}
	r.clientID = st.ClientID
	if err := r.waitHost(ctx, func(v *ahptest.View) bool { return v.Connected(r.clientID) && v.Subscribed(r.clientID, r.session) }); err != nil {
		return fmt.Errorf("ahpls did not join the session: %w", err)
	}
	r.say("connect", fmt.Sprintf("ahpls joined %s as %s, protocol %s", r.session, r.clientID, r.host.ProtocolVersion(r.clientID)),
		map[string]any{"clientId": r.clientID, "protocolVersion": r.host.ProtocolVersion(r.clientID), "state": st.State})
	return nil
}

// publish waits for the active-client entry with the virtual plugin.
func (r *run) publish(ctx context.Context) error {
	var entry map[string]any
	err := r.waitHost(ctx, func(v *ahptest.View) bool {
		entry = v.ActiveClient(r.session, r.clientID)
		cs, _ := entry["customizations"].([]any)
		return len(cs) > 0
	})
	if err != nil {
		return fmt.Errorf("no virtual plugin was published: %w", err)
	}
	st, err := r.ed.HostStatus(ctx)
	if err != nil {
		return err
	}
	if len(st.Plugins) == 0 {
		return errors.New("the link reports no published plugin")
	}
	sort.Slice(st.Plugins, func(i, j int) bool { return st.Plugins[i].URI < st.Plugins[j].URI })
	p := st.Plugins[0]
	r.plugin = hostlink.PublishedPlugin{ID: p.ID, URI: p.URI, Name: p.Name, Nonce: p.Nonce}
	var toolNames []string
	tl, _ := entry["tools"].([]any)
	for _, t := range tl {
		if m, ok := t.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				toolNames = append(toolNames, n)
			}
		}
	}
	// The exclusions reach the editor as diagnostics over LSP, on their
	// own path: wait (briefly) until every file with an error has its note.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_ = r.ed.Wait(wctx, func() bool {
		ex := r.ed.Excluded()
		for _, f := range r.errFiles {
			if _, ok := ex[f]; !ok {
				return false
			}
		}
		return true
	})
	cancel()
	var excluded []string
	for p, why := range r.ed.Excluded() {
		rel, _ := filepath.Rel(r.ws, p)
		excluded = append(excluded, fmt.Sprintf("%s (%s)", filepath.ToSlash(rel), why))
	}
	sort.Strings(excluded)
	text := fmt.Sprintf("virtual plugin %q at %s\nnonce %s\ntools: %s", r.plugin.Name, r.plugin.URI, r.plugin.Nonce, strings.Join(toolNames, ", "))
	for _, ex := range excluded {
		text += "\nleft out: " + ex
	}
	r.say("publish", text, map[string]any{"plugin": r.plugin, "tools": toolNames, "excluded": excluded})
	if !contains(toolNames, "ahpls_run_tests") {
		return fmt.Errorf("the test-runner tool ahpls_run_tests was not registered (tools: %s)", strings.Join(toolNames, ", "))
	}
	return nil
}

// readBack shows the host reading the plugin's files through reverse
// resourceRead requests.
func (r *run) readBack(ctx context.Context) error {
	prefix := r.plugin.URI + "/"
	err := r.waitHost(ctx, func(v *ahptest.View) bool {
		load := r.pluginLoad(v)
		return load == "loaded" || load == "degraded" || load == "error"
	})
	if err != nil {
		return fmt.Errorf("the host never finished reading the plugin: %w", err)
	}
	r.mu.Lock()
	var files []string
	for _, u := range r.reads {
		if strings.HasPrefix(u, prefix) {
			files = append(files, strings.TrimPrefix(u, prefix))
		}
	}
	r.mu.Unlock()
	sort.Strings(files)
	if len(files) == 0 {
		return errors.New("the host read no file of the plugin")
	}
	r.say("read", fmt.Sprintf("host read %d files back through resourceRead:\n  %s", len(files), strings.Join(files, "\n  ")), map[string]any{"files": files})
	return nil
}

// load reports the host's load state and the children it found.
func (r *run) load(ctx context.Context) error {
	var entry map[string]any
	_ = r.waitHost(ctx, func(v *ahptest.View) bool {
		entry = r.pluginEntry(v)
		return entry != nil
	})
	load, _ := entry["load"].(map[string]any)
	kind, _ := load["kind"].(string)
	counts := map[string]int{}
	children, _ := entry["children"].([]any)
	for _, c := range children {
		if m, ok := c.(map[string]any); ok {
			t, _ := m["type"].(string)
			counts[t]++
		}
	}
	var parts []string
	for _, t := range []string{"skill", "agent", "prompt", "rule", "hook", "mcpServer"} {
		if counts[t] > 0 {
			parts = append(parts, plural(counts[t], t))
		}
	}
	text := fmt.Sprintf("host load state: %s (%s)", kind, strings.Join(parts, ", "))
	if msg, _ := load["message"].(string); msg != "" {
		text += "\nmessage: " + msg
	}
	r.say("load", text, map[string]any{"load": load, "children": counts})
	if kind != "loaded" {
		return fmt.Errorf("the host reports %s: %v", kind, load["message"])
	}
	if counts["skill"] == 0 {
		return errors.New("the host found no skill in the plugin")
	}
	return nil
}

// turnAndTool scripts an agent turn that calls the test-runner tool and
// follows the call until it completes.
func (r *run) turnAndTool(ctx context.Context) error {
	turn, err := r.host.StartTurn(r.chat, "Run the calc tests")
	if err != nil {
		return err
	}
	r.say("turn", fmt.Sprintf("user: Run the calc tests (%s)", turn), map[string]any{"turnId": turn})
	input := fmt.Sprintf(`{"pattern":%q}`, r.opts.Pattern)
	id, err := r.host.StartClientToolCall(r.chat, turn, ahptest.ClientToolCall{
		ToolCallID: "tc-1", ToolName: "ahpls_run_tests", DisplayName: "calc tests",
		ClientID: r.clientID, Input: input,
	})
	if err != nil {
		return err
	}
	r.say("tool", fmt.Sprintf("agent calls ahpls_run_tests %s", input), map[string]any{"toolCallId": id, "input": input})

	// Streamed progress ("3 passed, running pkg/x") depends on timing; the
	// transcript shows the final content and the structured result.
	var final map[string]any
	err = r.waitHost(ctx, func(v *ahptest.View) bool {
		call := v.ToolCall(r.chat, id)
		if status, _ := call["status"].(string); status == "completed" || status == "cancelled" {
			final = call
		}
		return final != nil
	})
	if err != nil {
		return fmt.Errorf("the tool call did not complete: %w", err)
	}
	_ = r.host.CompleteTurn(r.chat, turn)
	if text := strings.TrimRight(contentText(final["content"]), "\n"); text != "" {
		for _, line := range strings.Split(text, "\n") {
			r.say("output", line, nil)
		}
	}
	success, _ := final["success"].(bool)
	msg, _ := final["pastTenseMessage"].(string)
	status, _ := final["status"].(string)
	structured, _ := final["structuredContent"].(map[string]any)
	text := fmt.Sprintf("%s: success=%v, %s", status, success, msg)
	if structured != nil {
		text += "\n" + renderTestReport(structured)
	}
	r.say("result", text, map[string]any{"status": status, "success": success, "pastTenseMessage": msg, "structuredContent": structured})
	if !success {
		return fmt.Errorf("the tool call failed: %s", msg)
	}
	return nil
}

func (r *run) waitHost(ctx context.Context, cond func(*ahptest.View) bool) error {
	return r.host.Wait(ctx, cond)
}

func (r *run) pluginEntry(v *ahptest.View) map[string]any {
	cs, _ := v.State(r.session)["customizations"].([]any)
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok && (m["id"] == r.plugin.ID || m["uri"] == r.plugin.URI) {
			return m
		}
	}
	return nil
}

func (r *run) pluginLoad(v *ahptest.View) string {
	m := r.pluginEntry(v)
	load, _ := m["load"].(map[string]any)
	kind, _ := load["kind"].(string)
	return kind
}

// renderTestReport prints the structured result of ahpls_run_tests
// (tools.TestReport as JSON): what the agent gets besides the text.
func renderTestReport(m map[string]any) string {
	num := func(m map[string]any, k string) int64 {
		switch v := m[k].(type) {
		case float64:
			return int64(v)
		case int64:
			return v
		case int:
			return int64(v)
		case json.Number:
			n, _ := v.Int64()
			return n
		}
		return 0
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	var b strings.Builder
	fmt.Fprintf(&b, "structured: %d passed, %d failed, %d skipped, %d problems", num(m, "passed"), num(m, "failed"), num(m, "skipped"), num(m, "problems"))
	runs, _ := m["runs"].([]any)
	for _, x := range runs {
		run, _ := x.(map[string]any)
		fmt.Fprintf(&b, "\n  %s in %s: %d passed, %d failed, %d skipped", str(run, "framework"), str(run, "dir"), num(run, "passed"), num(run, "failed"), num(run, "skipped"))
		fails, _ := run["failures"].([]any)
		for _, y := range fails {
			f, _ := y.(map[string]any)
			fmt.Fprintf(&b, "\n    failed: %s at %s:%d: %s", str(f, "name"), str(f, "file"), num(f, "line"), str(f, "message"))
		}
		if p := str(run, "problem"); p != "" {
			fmt.Fprintf(&b, "\n    problem: %s", p)
		}
		fmt.Fprintf(&b, "\n    reproduce: %s", str(run, "reproduce"))
	}
	return b.String()
}

func contentText(v any) string {
	items, _ := v.([]any)
	var b strings.Builder
	for _, it := range items {
		if m, ok := it.(map[string]any); ok && m["type"] == "text" {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, " or hint") {
		return fmt.Sprintf("%d infos or hints", n)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
