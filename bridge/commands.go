package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/enablement"
)

// The host commands (workspace/executeCommand), all answered by the
// bridge; without a host they say so.
const (
	// CommandShowHostConnection returns the link's hostlink.Status.
	CommandShowHostConnection = "ahpls.showHostConnection"
	// CommandToggleCustomization enables or disables a customization.
	CommandToggleCustomization = "ahpls.toggleCustomization"
	// CommandListCustomizations lists every joined session's customization rows.
	CommandListCustomizations = "ahpls.listCustomizations"
)

func (b *Bridge) showHostConnection(ctx context.Context, args []json.RawMessage) (any, error) {
	l := b.Link()
	if l == nil {
		return map[string]any{"state": "disconnected", "message": "no agent host configured (ahpls.host)"}, nil
	}
	return l.Status(), nil
}

// toggleArgs is ahpls.toggleCustomization's argument: the item by its row
// id, or a workspace file by URI (hostlink.FileToggleRow: the file's own
// leaf, a manifest's plugin, a .mcp.json's one server).
type toggleArgs struct {
	Session string          `json:"session"`
	ID      string          `json:"id"`
	URI     string          `json:"uri"`
	Scope   enablement.Kind `json:"scope"`
	Enabled *bool           `json:"enabled"`
}

// toggleUsage is the argument shape, repeated in every argument error.
const toggleUsage = `ahpls.toggleCustomization takes one argument: {"id": "<customization id>" or "uri": "<file URI>", "scope": "session"|"workspace"|"global" (default "session"), "enabled": true|false, "session": "<session URI>" (optional when one session is joined)}`

func (b *Bridge) toggleCustomization(ctx context.Context, args []json.RawMessage) (any, error) {
	l := b.Link()
	if l == nil {
		return nil, errors.New("no agent host connected (set ahpls.host)")
	}
	if len(args) != 1 {
		return nil, errors.New(toggleUsage)
	}
	var a toggleArgs
	if err := json.Unmarshal(args[0], &a); err != nil {
		return nil, fmt.Errorf("%s: %v", toggleUsage, err)
	}
	switch {
	case a.Enabled == nil:
		return nil, fmt.Errorf(`%s: "enabled" is missing`, toggleUsage)
	case a.ID == "" && a.URI == "":
		return nil, fmt.Errorf(`%s: give "id" or "uri"`, toggleUsage)
	}
	if a.Scope == "" {
		a.Scope = enablement.KindSession
	}
	switch a.Scope {
	case enablement.KindSession, enablement.KindWorkspace, enablement.KindGlobal:
	default:
		return nil, fmt.Errorf("%s: unknown scope %q", toggleUsage, a.Scope)
	}
	if a.Session == "" {
		sessions := l.Status().Sessions
		if len(sessions) != 1 {
			return nil, fmt.Errorf("%s: name the session (joined: %v)", toggleUsage, sessions)
		}
		a.Session = sessions[0]
	}
	if a.ID == "" {
		u, err := uri.Parse(a.URI)
		path := ""
		if err == nil && u.IsFile() {
			path = u.FsPath()
		}
		if path == "" {
			return nil, fmt.Errorf("%s: %q is not a file URI", toggleUsage, a.URI)
		}
		row, err := l.FileToggleRow(a.Session, path)
		if err != nil {
			return nil, fmt.Errorf("ahpls.toggleCustomization: %w", err)
		}
		a.ID = row.ID
	}
	if err := l.Toggle(ctx, a.Session, a.ID, a.Scope, *a.Enabled); err != nil {
		return nil, err
	}
	return l.Rows(a.Session), nil
}

func (b *Bridge) listCustomizations(ctx context.Context, args []json.RawMessage) (any, error) {
	l := b.Link()
	if l == nil {
		return map[string]any{}, nil
	}
	out := map[string][]enablement.Row{}
	for _, s := range l.Status().Sessions {
		out[s] = l.Rows(s)
	}
	return out, nil
}
