package diagnostics

// The exported API that moved to core/shared, kept here for the packages above.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core/shared"
	"github.com/ahpls-dev/ahpls/model"
)

type AgentTrees = shared.AgentTrees

func HookEvents(t model.Target) []string { return shared.HookEvents(t) }

func NewAgentTrees() *AgentTrees { return shared.NewAgentTrees() }

type TreeMemo = shared.TreeMemo
