package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Prefix is put before every tool name on the wire: server tools and all
// clients' tools share one namespace (ahp.md §4.2).
const Prefix = "ahpls_"

// Defaults and hard limits of command tools.
const (
	DefaultTimeout        = 60 * time.Second
	MaxTimeout            = time.Hour
	DefaultMaxOutputBytes = 64 << 10
	MinMaxOutputBytes     = 1 << 10
	MaxMaxOutputBytes     = 16 << 20
	// MaxInputBytes bounds the toolInput text accepted for one call.
	MaxInputBytes = 1 << 20
)

// Source says where a definition came from; it is also the precedence order
// when two of our own tools want the same name (lower wins).
type Source int

const (
	SourceBuiltin   Source = iota // built-in editor tools
	SourceSettings                // LSP settings (ahpls.tools)
	SourceWorkspace               // the workspace config file
)

func (s Source) String() string {
	switch s {
	case SourceBuiltin:
		return "built-in"
	case SourceSettings:
		return "settings"
	case SourceWorkspace:
		return "workspace config"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Annotations are the advisory MCP tool hints. Pointers keep "unset" apart
// from false, because the defaults differ per hint.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ArgvItem is one element of an argv template. In JSON it is either a string
// (a group of one) or an array of strings (a group). A group is emitted only
// when every placeholder in it has a value; see argv.go.
type ArgvItem []string

// UnmarshalJSON accepts a string or an array of strings.
func (a *ArgvItem) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = ArgvItem{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return err
	}
	*a = ss
	return nil
}

// MarshalJSON writes a group of one as a plain string.
func (a ArgvItem) MarshalJSON() ([]byte, error) {
	if len(a) == 1 {
		return json.Marshal(a[0])
	}
	return json.Marshal([]string(a))
}

// Command is how a command tool runs. The zero values of Cwd, Timeout and
// MaxOutputBytes mean the defaults.
type Command struct {
	Argv             []ArgvItem        `json:"argv"`
	Cwd              string            `json:"cwd,omitempty"`
	Env              map[string]string `json:"env,omitempty"`
	InheritEnv       []string          `json:"inheritEnv,omitempty"`
	TimeoutSeconds   float64           `json:"timeoutSeconds,omitempty"`
	MaxOutputBytes   int               `json:"maxOutputBytes,omitempty"`
	AllowLeadingDash bool              `json:"allowLeadingDash,omitempty"`
}

// Timeout is the effective wall-clock limit.
func (c *Command) Timeout() time.Duration {
	if c.TimeoutSeconds <= 0 {
		return DefaultTimeout
	}
	d := time.Duration(c.TimeoutSeconds * float64(time.Second))
	if d > MaxTimeout || d <= 0 {
		return MaxTimeout
	}
	return d
}

// OutputLimit is the effective output limit in bytes.
func (c *Command) OutputLimit() int {
	switch {
	case c.MaxOutputBytes <= 0:
		return DefaultMaxOutputBytes
	case c.MaxOutputBytes < MinMaxOutputBytes:
		return MinMaxOutputBytes
	case c.MaxOutputBytes > MaxMaxOutputBytes:
		return MaxMaxOutputBytes
	}
	return c.MaxOutputBytes
}

// Definition is one tool as ahpls knows it. Name is the configured name
// without Prefix; the wire name is decided by ResolveNames.
type Definition struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	// Command is nil for built-in tools.
	Command *Command `json:"command,omitempty"`
	Source  Source   `json:"-"`

	schema  *jsonschema.Resolved
	builtin builtinFunc
	// trustGated built-ins start processes (the test runner): like command
	// tools they are offered and run only in a trusted workspace.
	trustGated bool
}

// ToolDefinition is the AHP wire shape (ahp.md §4.2), ready to put in
// SessionActiveClient.tools.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
}

// emptyObjectSchema is what a tool without inputSchema accepts: any object.
var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// NeedsTrust reports whether the tool runs only in a trusted workspace
// (a command tool, or a built-in that starts processes).
func (d *Definition) NeedsTrust() bool { return d.Command != nil || d.trustGated }

// Wire returns the definition under the given wire name.
func (d *Definition) Wire(name string) ToolDefinition {
	s := d.InputSchema
	if len(s) == 0 {
		s = emptyObjectSchema
	}
	return ToolDefinition{Name: name, Title: d.Title, Description: d.Description, InputSchema: s, Annotations: d.Annotations}
}

// compileInputSchema compiles the definition's input schema (see
// compileInput: nothing is loaded from outside the schema).
func (d *Definition) compileInputSchema() error {
	raw := d.InputSchema
	if len(raw) == 0 {
		raw = emptyObjectSchema
	}
	sch, err := compileInput(raw)
	if err != nil {
		return err
	}
	d.schema = sch
	return nil
}

// properties returns the input property names declared at the top level of
// the input schema; placeholders may only name these.
func (d *Definition) properties() map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(d.InputSchema, &s)
	out := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		out[k] = true
	}
	return out
}
