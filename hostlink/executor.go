package hostlink

import (
	"context"
	"log/slog"

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
	x    *toolexec.Executor
}

func (e *linkExecutor) Start(ctx context.Context, c *ahpclient.Client) {
	e.x = toolexec.New(toolexec.Options{
		Client:   c,
		Tools:    func(session string) toolexec.Runner { return linkRunner{e.link} },
		Observer: e.obs,
		Logger:   e.log,
	})
	e.x.Start()
}

func (e *linkExecutor) Stop() {
	if e.x != nil {
		e.x.Stop()
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
