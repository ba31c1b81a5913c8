package hostlink

import (
	"context"
	"log/slog"
	"sync"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/toolexec"
	"github.com/ahpls-dev/ahpls/tools"
)

// NewToolExecutor plugs package toolexec into a Link: the calls the agent
// makes to this client's tools run in the registry that offers the tool
// (found by wire name), with obs (may be nil) seeing each run.
func NewToolExecutor(l *Link, obs toolexec.Observer, log *slog.Logger) Executor {
	return &linkExecutor{link: l, obs: obs, log: log}
}

type linkExecutor struct {
	link *Link
	obs  toolexec.Observer
	log  *slog.Logger
	mu   sync.Mutex // guards x, set by Start on the link's goroutine
	x    *toolexec.Executor
}

func (e *linkExecutor) Start(ctx context.Context, c *ahpclient.Client) {
	x := toolexec.New(toolexec.Options{
		Client:   c,
		Tools:    func(session string) toolexec.Runner { return linkRunner{e.link} },
		Observer: e.obs,
		Logger:   e.log,
	})
	e.mu.Lock()
	e.x = x
	e.mu.Unlock()
	x.Start()
}

func (e *linkExecutor) Stop() {
	if x := e.executor(); x != nil {
		x.Stop()
	}
}

func (e *linkExecutor) executor() *toolexec.Executor {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.x
}

// cancelUntrusted cancels the running calls of tools that need workspace
// trust; each still gets its (cancelled) completion. Call it while the
// registries still offer those tools.
func (e *linkExecutor) cancelUntrusted() {
	x := e.executor()
	if x == nil {
		return
	}
	n := x.Cancel(func(c toolexec.CallInfo) bool {
		d, ok := linkRunner{e.link}.Lookup(c.ToolName)
		return ok && d.NeedsTrust()
	})
	if n > 0 {
		e.log.Info("workspace trust revoked; cancelled running command tools", "calls", n)
	}
}

// linkRunner finds the registry that offers a tool.
type linkRunner struct{ l *Link }

func (r linkRunner) Lookup(name string) (*tools.Definition, bool) {
	reg, ok := r.l.ToolRegistry(name)
	if !ok {
		return nil, false
	}
	return reg.Lookup(name)
}

func (r linkRunner) Run(ctx context.Context, name string, input []byte, onProgress tools.ProgressFunc) tools.Result {
	reg, ok := r.l.ToolRegistry(name)
	if !ok {
		return tools.Result{Success: false, PastTenseMessage: "Tool " + name + " is not available", ErrorCode: "unknown_tool", ErrorMessage: "ahpls offers no tool " + name}
	}
	return reg.Run(ctx, name, input, onProgress)
}
