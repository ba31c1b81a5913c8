package toolexec

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/tools"
)

// The fixture program (testdata/helper) is built once into helperBin,
// which is on the tools' PATH, so command tools find it like any program.
const helperName = "ahplsexec"

var helperBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ahpls-toolexec-bin-")
	if err == nil {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, helperName), "./testdata/helper")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		err = cmd.Run()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the fixture program:", err)
		os.Exit(2)
	}
	helperBin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const folder = "file:///work/proj"

// toolsConfig is the workspace config of the test registry.
const toolsConfig = `{"version":1,"tools":[
 {"name":"argv","inputSchema":{"type":"object","additionalProperties":false,
   "properties":{"one":{"type":"string"},"args":{"type":"array","items":{"type":"string"}}}},
  "command":{"argv":["ahplsexec","argv","{one}","--","{args}"]}},
 {"name":"hang","command":{"argv":["ahplsexec","hang"]}},
 {"name":"spew","inputSchema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}},
  "command":{"argv":["ahplsexec","spew","{n}"]}},
 {"name":"drip","inputSchema":{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}},
  "command":{"argv":["ahplsexec","drip","{n}"]}},
 {"name":"gate","inputSchema":{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}},
  "command":{"argv":["ahplsexec","gate","{path}"]}},
 {"name":"go_test","title":"Go tests","description":"Runs the fixture module's tests.",
  "command":{"argv":["go","test","-count=1","-v","./..."],"cwd":"gomod",
   "env":{"GOPROXY":"off","GOTOOLCHAIN":"local","GOFLAGS":"-mod=mod"},
   "inheritEnv":["GOCACHE","GOPATH","GOMODCACHE"],"timeoutSeconds":300}}
]}`

func goEnv(k string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	out, _ := exec.Command("go", "env", k).Output()
	return strings.TrimSpace(string(out))
}

// newRegistry makes a trusted registry on a fresh temp workspace holding
// the config file and a copy of the fixture Go module.
func newRegistry(t *testing.T) (*tools.Registry, string) {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".ahpls"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, tools.ConfigFile), []byte(toolsConfig), 0o644))
	require.NoError(t, os.CopyFS(filepath.Join(root, "gomod"), os.DirFS("testdata/gomod")))
	env := []string{
		"PATH=" + helperBin + ":/usr/local/go/bin:/usr/bin:/bin",
		"HOME=" + os.Getenv("HOME"),
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOPATH=" + goEnv("GOPATH"),
	}
	r, err := tools.NewRegistry(tools.Options{Root: root, Trusted: true, Environ: env})
	require.NoError(t, err)
	probs, err := r.LoadWorkspaceConfig()
	require.NoError(t, err)
	for _, p := range probs {
		require.NotEqual(t, tools.SeverityError, p.Severity, "config problem: %+v", p)
	}
	return r, root
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// frame is one traced action: a dispatchAction we sent or an action
// envelope we received.
type frame struct {
	sent       bool
	typ        string
	toolCallID string
	size       int
	action     map[string]any
	rejected   bool
}

type trace struct {
	mu     sync.Mutex
	frames []frame
}

func (tr *trace) record(dir ahpclient.FrameDirection, b []byte) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Action          map[string]any `json:"action"`
			RejectionReason *string        `json:"rejectionReason"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &m) != nil || m.Params.Action == nil {
		return
	}
	if !(dir == ahpclient.Sent && m.Method == "dispatchAction") && !(dir == ahpclient.Received && m.Method == "action") {
		return
	}
	f := frame{sent: dir == ahpclient.Sent, size: len(b), action: m.Params.Action, rejected: m.Params.RejectionReason != nil}
	f.typ, _ = m.Params.Action["type"].(string)
	f.toolCallID, _ = m.Params.Action["toolCallId"].(string)
	tr.mu.Lock()
	tr.frames = append(tr.frames, f)
	tr.mu.Unlock()
}

// sent lists our dispatches of a type (any type when typ is "") for a call.
func (tr *trace) sent(typ, id string) []frame {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []frame
	for _, f := range tr.frames {
		if f.sent && (typ == "" || f.typ == typ) && f.toolCallID == id {
			out = append(out, f)
		}
	}
	return out
}

// received lists the types of the action envelopes received for a call.
func (tr *trace) received(id string) []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, f := range tr.frames {
		if !f.sent && f.toolCallID == id && !f.rejected {
			out = append(out, f.typ)
		}
	}
	return out
}

type observed struct {
	started  int
	progress []string
	result   *tools.Result
}

type recorder struct {
	mu    sync.Mutex
	calls map[string]*observed
}

func (r *recorder) get(id string) *observed {
	if r.calls == nil {
		r.calls = map[string]*observed{}
	}
	o := r.calls[id]
	if o == nil {
		o = &observed{}
		r.calls[id] = o
	}
	return o
}

func (r *recorder) Started(c CallInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.get(c.ToolCallID).started++
}

func (r *recorder) Progress(c CallInfo, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.get(c.ToolCallID)
	o.progress = append(o.progress, text)
}

func (r *recorder) Finished(c CallInfo, res tools.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.get(c.ToolCallID).result = &res
}

func (r *recorder) result(id string) (tools.Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.calls[id]; o != nil && o.result != nil {
		return *o.result, true
	}
	return tools.Result{}, false
}

// dialect is one AHP dialect the test host can be made to speak; the
// client offers its default list, so the host's list alone decides.
type dialect struct {
	name     string   // subtest name suffix
	versions []string // the host's ProtocolVersions; the first is negotiated
}

var dialects = []dialect{
	{name: "0.8", versions: []string{"0.8.0"}},
	// A 1.1 host; ahpclient's own tests also cover a 1.0 host (which
	// negotiates 1.1.0 from the offer but reconnects connection-wide).
	{name: "1.1", versions: []string{"1.1.0", "1.0.0", "0.10.0", "0.9.0"}},
}

// forEachDialect runs an end-to-end test once per dialect, as subtests
// named "dialect=0.8" and "dialect=1.1".
func forEachDialect(t *testing.T, f func(t *testing.T, dl dialect)) {
	for _, d := range dialects {
		t.Run("dialect="+d.name, func(t *testing.T) { f(t, d) })
	}
}

// with sets the host's supported versions to this dialect's.
func (d dialect) with(o ahptest.Options) ahptest.Options {
	o.ProtocolVersions = d.versions
	return o
}

type harness struct {
	t       *testing.T
	host    *ahptest.Host
	client  *ahpclient.Client
	exec    *Executor
	reg     *tools.Registry
	root    string
	session string
	chat    string
	tr      *trace
	obs     *recorder
}

func newHarness(t *testing.T, hopts ahptest.Options, mods ...func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, tr: &trace{}, obs: &recorder{}}
	hopts.OnViolation = func(err error) { t.Errorf("AHP violation: %v", err) }
	hopts.Logger = quiet()
	h.host = ahptest.New(hopts)
	_, err := h.host.Start()
	require.NoError(t, err)
	t.Cleanup(func() { h.host.Close() })
	h.session = h.host.CreateSession(ahptest.SessionSpec{WorkingDirectories: []string{folder}})
	h.chat, err = h.host.CreateChat(h.session, "", "")
	require.NoError(t, err)

	h.reg, h.root = newRegistry(t)
	c, err := ahpclient.New(ahpclient.Options{URL: h.host.URL(), StateDir: t.TempDir(), WorkspaceKey: folder, Logger: quiet(),
		Auto: true, Folders: []string{folder}, Trace: h.tr.record,
		Backoff: ahpclient.Backoff{Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond}})
	require.NoError(t, err)
	h.client = c
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = c.Run(ctx); close(done) }()

	xopts := Options{Client: c, Observer: h.obs, Logger: quiet(), Tools: func(s string) Runner {
		if s == h.session {
			return h.reg
		}
		return nil
	}}
	for _, m := range mods {
		m(&xopts)
	}
	h.exec = New(xopts)
	h.exec.Start()
	t.Cleanup(func() { h.exec.Stop(); cancel(); c.Close(); <-done })

	defs, _ := h.reg.Resolve(nil)
	require.NoError(t, c.SetActiveClient(map[string]any{"tools": defs}))
	h.wait("client active and following the chat", func(v *ahptest.View) bool {
		return v.ActiveClient(h.session, c.ClientID()) != nil && v.Subscribed(c.ClientID(), h.chat)
	})
	want := "0.8.0" // the test host's default
	if len(hopts.ProtocolVersions) > 0 {
		want = hopts.ProtocolVersions[0]
	}
	require.Equal(t, want, c.ProtocolVersion(), "the connection speaks the dialect under test")
	return h
}

func (h *harness) id() string { return h.client.ClientID() }

func (h *harness) wait(what string, cond func(v *ahptest.View) bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(h.t, h.host.Wait(ctx, cond), what)
}

// waitFor polls a condition outside the host; a bound so generous that it
// only catches hangs, not slowness.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) turn() string {
	turn, err := h.host.StartTurn(h.chat, "go")
	require.NoError(h.t, err)
	return turn
}

func (h *harness) call(turn, tool, input string) string {
	h.t.Helper()
	id, err := h.host.StartClientToolCall(h.chat, turn, ahptest.ClientToolCall{ToolName: "ahpls_" + tool, ClientID: h.id(), Input: input})
	require.NoError(h.t, err)
	return id
}

// done waits until the host shows the call in a terminal status and
// returns it.
func (h *harness) done(id string) map[string]any {
	h.t.Helper()
	h.wait("call "+id+" finished on the host", func(v *ahptest.View) bool {
		s, _ := v.ToolCall(h.chat, id)["status"].(string)
		return s == "completed" || s == "cancelled"
	})
	tc, _ := h.host.ToolCall(h.chat, id)
	return tc
}

// settled waits until the executor holds nothing for the call any more and
// the local run (if any) has finished.
func (h *harness) settled(id string) {
	h.t.Helper()
	waitFor(h.t, "executor settled on "+id, func() bool {
		h.exec.mu.Lock()
		defer h.exec.mu.Unlock()
		for k := range h.exec.runs {
			if k.ToolCallID == id {
				return false
			}
		}
		return true
	})
}

// resultText is the text of a completed call's result content.
func resultText(tc map[string]any) string {
	l, _ := tc["content"].([]any)
	var b strings.Builder
	for _, c := range l {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

func errorCode(tc map[string]any) string {
	e, _ := tc["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// procStat is a process as /proc shows it.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
}

func processes() map[int]procStat {
	out := map[int]procStat{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || i+2 >= len(s) {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out[pid] = procStat{pid, ppid, pgrp, f[0][0]}
	}
	return out
}

// liveInGroup lists live (non-zombie) processes of a process group.
func liveInGroup(pgid int) []int {
	var out []int
	for _, p := range processes() {
		if p.pgrp == pgid && p.state != 'Z' && p.state != 'X' {
			out = append(out, p.pid)
		}
	}
	return out
}

// descendants lists our live descendants and unreaped children.
func descendants() []int {
	all := processes()
	me := os.Getpid()
	var out []int
	for _, p := range all {
		if p.pid == me {
			continue
		}
		if p.ppid == me {
			out = append(out, p.pid) // zombies count: an unreaped child is a leak
			continue
		}
		if p.state == 'Z' || p.state == 'X' {
			continue
		}
		for q, hops := p, 0; q.ppid > 1 && hops < 64; hops++ {
			if q.ppid == me {
				out = append(out, p.pid)
				break
			}
			next, ok := all[q.ppid]
			if !ok {
				break
			}
			q = next
		}
	}
	return out
}

func openFDs() int {
	ents, _ := os.ReadDir("/proc/self/fd")
	return len(ents)
}

// hangPgid waits for the hang tool's first line on the host and returns
// the process group it reported.
func (h *harness) hangPgid(id string) int {
	h.t.Helper()
	h.wait("hang tool streamed its pid", func(v *ahptest.View) bool {
		return strings.Contains(resultText(v.ToolCall(h.chat, id)), "ready")
	})
	tc, _ := h.host.ToolCall(h.chat, id)
	var pid, pgid, child int
	_, err := fmt.Sscanf(resultText(tc), "pid %d pgid %d child %d", &pid, &pgid, &child)
	require.NoError(h.t, err)
	require.Equal(h.t, pid, pgid, "the tool leads its own process group")
	require.NotEmpty(h.t, liveInGroup(pgid))
	return pgid
}
