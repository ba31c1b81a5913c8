package diagnostics

// The exported API that moved to core, kept here for the packages above.

import (
	"github.com/ahpls-dev/ahpls/diagnostics/core"
	"github.com/ahpls-dev/ahpls/model"
)

type Checker = core.Checker

type CodeFence = core.CodeFence

type Evidence = core.Evidence

type FieldInfo = core.FieldInfo

func Fields(kind model.Kind) []FieldInfo { return core.Fields(kind) }

type File = core.File

const FixNone = core.FixNone

const FixSafe = core.FixSafe

type FixTier = core.FixTier

const FixUnsafe = core.FixUnsafe

func InHeader(text []byte, offset int) bool { return core.InHeader(text, offset) }

const JSONArray = core.JSONArray

const JSONBool = core.JSONBool

type JSONKind = core.JSONKind

type JSONMember = core.JSONMember

const JSONNull = core.JSONNull

const JSONNumber = core.JSONNumber

const JSONObject = core.JSONObject

const JSONString = core.JSONString

type JSONValue = core.JSONValue

func KeyAt(text []byte, offset int) (key string, keySpan model.Span, valueSpan model.Span, ok bool) {
	return core.KeyAt(text, offset)
}

func MCPServerKeySpan(text []byte, name string) (model.Span, bool) {
	return core.MCPServerKeySpan(text, name)
}

const MaxFileSize = core.MaxFileSize

type Options = core.Options

type Override = core.Override

func ParseJSON(text []byte) (*JSONValue, []model.Diagnostic) { return core.ParseJSON(text) }

type Rule = core.Rule

type ToolsProblem = core.ToolsProblem

type ToolsValidator = core.ToolsValidator

type WorkspaceFS = core.WorkspaceFS

type WorkspaceLister = core.WorkspaceLister

type WorkspaceReader = core.WorkspaceReader
