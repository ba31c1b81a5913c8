package hostlink

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ahpls-dev/ahpls/ahpclient"
	"github.com/ahpls-dev/ahpls/ahpclient/wire"
	"github.com/ahpls-dev/ahpls/enablement"
)

// Enablement rows and toggles (enablement.md §7.3, §7.4). The rows come
// from enablement.Rows over the host's view of the session plus what we
// publish; a toggle is routed by enablement.RouteToggle: a Global decision
// on our own plugin or bundled server is a local store write followed by a
// republish to every joined session, everything else is a host action.

// toggler lists the rows of a session and routes toggles. It holds no
// state of its own: the rows are computed afresh from the host's mirror
// (hostView) and what the publisher published.
type toggler struct {
	client    *ahpclient.Client
	host      hostView
	set       *folderSet
	pub       *publisher
	republish func() // after a local decision changed (Link.republish)
}

// toNode converts a host customization (either dialect) for the view.
func toNode(c wire.Customization) enablement.Node {
	n := enablement.Node{Type: c.Type, ID: c.ID, URI: c.URI, Name: c.Name, ClientID: c.ClientID, Enabled: c.Enabled}
	if c.Enablement != nil {
		n.Enablement = make(enablement.List, len(c.Enablement))
		for i, d := range c.Enablement {
			n.Enablement[i] = enablement.Decision{Kind: enablement.Kind(d.Kind), URI: d.URI, Enabled: d.Enabled}
		}
	}
	for _, ch := range c.Children {
		n.Children = append(n.Children, toNode(ch))
	}
	return n
}

// viewInputs splits a session's host tree by folder: each folder's call
// to enablement.Rows sees its own plugins, and the first one also sees
// every item that is not ours (each store knows only its folder).
func (t *toggler) viewInputs(session string) []enablement.ViewInput {
	var host []wire.Customization
	dir := ""
	if session != "" {
		host = t.host.customizations(session)
		if st, ok := t.client.State(session); ok {
			if dirs := (wire.V08{}).WorkingDirectories(st); len(dirs) > 0 {
				dir = dirs[0]
			}
		}
	}
	connected := t.client.Connected()
	me := t.client.ClientID()
	dialect, trees := t.pub.view()
	ins := make([]enablement.ViewInput, 0, len(t.set.folders))
	for i, f := range t.set.folders {
		in := enablement.ViewInput{Dialect: dialect, Connected: connected, Directory: dir, Store: f.store, Client: trees[i]}
		prefix := "virtual://ahpls/" + f.key + "/"
		for _, c := range host {
			mine := c.Type == "plugin" && (c.ClientID == me || strings.HasPrefix(c.ID, me+":")) || strings.HasPrefix(c.URI, "virtual://ahpls/")
			switch {
			case mine && strings.HasPrefix(c.URI, prefix):
				in.Host = append(in.Host, toNode(c))
			case !mine && i == 0:
				in.Host = append(in.Host, toNode(c))
			}
		}
		ins = append(ins, in)
	}
	return ins
}

// Rows lists the plugins, MCP servers and leaves of a session with their
// state and the toggles on offer ("" = our own items only, offline view).
func (t *toggler) Rows(session string) []enablement.Row {
	var rows []enablement.Row
	for _, in := range t.viewInputs(session) {
		rows = append(rows, enablement.Rows(in)...)
	}
	return rows
}

// Toggle turns one item on or off at one scope (id: a Row's ID, or for our
// own plugins and bundled servers their durable key). Our own Global decisions
// are stored locally (this works offline) and republished to every joined
// session; everything else is dispatched to the host on the session's
// channel and waits for the host's echo. Host-routed toggles fail while
// disconnected and are never queued.
//
// session "" means every joined session for host-routed toggles (an editor
// command on a file names no session); our own Global decisions need none.
func (t *toggler) Toggle(ctx context.Context, session, id string, scope enablement.Kind, enabled bool) error {
	if session == "" {
		if err := t.toggleIn(ctx, "", id, scope, enabled); err == nil || !errors.Is(err, errNeedsSession) {
			return err
		}
		joined := t.client.Joined()
		if len(joined) == 0 {
			return enablement.ErrNotConnected
		}
		var errs []error
		done := 0
		for _, s := range joined {
			err := t.toggleIn(ctx, s, id, scope, enabled)
			if errors.Is(err, errUnknownItem) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s, err))
				continue
			}
			done++
		}
		if done == 0 && len(errs) == 0 {
			return fmt.Errorf("%w %q in any joined session", errUnknownItem, id)
		}
		return errors.Join(errs...)
	}
	return t.toggleIn(ctx, session, id, scope, enabled)
}

var (
	errNeedsSession = errors.New("a host toggle needs a session")
	errUnknownItem  = errors.New("no customization")
)

func (t *toggler) toggleIn(ctx context.Context, session, id string, scope enablement.Kind, enabled bool) error {
	// An own item may be named by its id or by its durable key (the id a
	// row carries before the host confirms it): a code lens computed then
	// and clicked later must still reach it.
	var row *enablement.Row
	var in enablement.ViewInput
	ins := t.viewInputs(session)
	for _, byKey := range []bool{false, true} {
		for _, vi := range ins {
			for _, r := range enablement.Rows(vi) {
				if row == nil && (!byKey && r.ID == id || byKey && r.Item.Owned && r.Item.Key == id) {
					r := r
					row, in = &r, vi
				}
			}
		}
	}
	if row == nil {
		if session == "" {
			return errNeedsSession
		}
		return fmt.Errorf("%w %q in session %s", errUnknownItem, id, session)
	}
	if session == "" && !(row.Item.Owned && scope == enablement.KindGlobal) {
		return errNeedsSession
	}
	store := in.Store
	if row.Item.Owned {
		if f := t.set.pluginFolder(row.Item.Key); f != nil {
			store = f.store
		}
	}
	rctx := enablement.RouteContext{Dialect: in.Dialect, Connected: in.Connected, Directory: in.Directory}
	route, err := enablement.RouteToggle(store, rctx, row.Item, enablement.Toggle{Session: session, ID: id, Scope: scope, Enabled: enabled})
	if err != nil {
		return err
	}
	if route.Local {
		if route.Changed {
			t.republish()
		}
		return nil
	}
	if session == "" {
		return errNeedsSession
	}
	d, err := t.client.Dispatch(session, route.Action)
	if errors.Is(err, ahpclient.ErrNotConnected) {
		return enablement.ErrNotConnected
	}
	if err != nil {
		return err
	}
	return d.Wait(ctx)
}

// FileRows are the rows a workspace file stands for in a session ("" = our
// own items only): the virtual plugin publishing it, the host's leaf
// published from it, and for a plugin's .mcp.json its bundled servers.
// Editors toggle "this file" through them, most specific row first.
func (t *toggler) FileRows(session, absPath string) []enablement.Row {
	absPath = filepath.Clean(absPath)
	pp, vpath := t.pub.fileAt(absPath)
	if pp == nil {
		return nil
	}
	leaves := map[string]bool{}
	if session != "" {
		for _, c := range t.host.customizations(session) {
			if c.ID != pp.id {
				continue
			}
			for _, ch := range c.Children {
				if ch.URI == pp.source.URI+"/"+vpath && ch.Type != "mcpServer" {
					leaves[ch.ID] = true
				}
			}
		}
	}
	var leafRows, serverRows, pluginRows []enablement.Row
	for _, r := range t.Rows(session) {
		switch {
		case leaves[r.ID]:
			leafRows = append(leafRows, r)
		case vpath == ".mcp.json" && r.Type == enablement.TypeMCPServer && r.Owner == pp.id:
			serverRows = append(serverRows, r)
		case r.ID == pp.id:
			pluginRows = append(pluginRows, r)
		}
	}
	return append(append(leafRows, serverRows...), pluginRows...)
}
