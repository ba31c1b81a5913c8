package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/view"
	"github.com/ahpls-dev/ahpls/wsfolder"
)

// What each agent sees (issue #32): the server offers package view's
// model as a command (editors render it: VS Code's Customizations view
// without a host, Neovim's :AhplsList) and as the first lines of the
// hover on a customization file's first line. The model comes from the
// folder on disk (wsfolder.Inventory: the walk `ahpls list` uses), cached
// per folder until any file event.

// CommandListView returns the view of a workspace folder as JSON. Its one
// optional argument is {"folder": uri, "targets": [...], "state":
// {"disabled": {...}, "host": {...}}}: without a folder, every folder's
// view is returned, each under its path.
const CommandListView = "ahpls.listView"

// ListViewArgs is CommandListView's argument.
type ListViewArgs struct {
	Folder  string         `json:"folder,omitempty"`
	Targets []model.Target `json:"targets,omitempty"`
	State   view.State     `json:"state,omitempty"`
}

// FolderView is one workspace folder's view in CommandListView's answer.
type FolderView struct {
	Folder string `json:"folder"`
	URI    string `json:"uri"`
	view.View
}

// viewCache holds the last view per folder and the file-event generation
// it was built at.
type viewCache struct {
	mu    sync.Mutex
	gen   uint64 // bumped by every file event; guarded by mu
	views map[string]cachedView
}

type cachedView struct {
	gen uint64
	in  view.Input
}

// invalidate is called for every file event.
func (c *viewCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// input returns the folder's inventory, walking it again only when a file
// event came since the last walk. fresh reports whether the cache
// answered.
func (part folderViews) viewInput(root string) (view.Input, error) {
	s := part.s
	c := &s.views
	c.mu.Lock()
	gen := c.gen
	if cv, ok := c.views[root]; ok && cv.gen == gen {
		c.mu.Unlock()
		return cv.in, nil
	}
	c.mu.Unlock()
	// The same excludes as the scan: `ahpls.exclude` (the folder's
	// .ahpls/config.json and .gitignore are read by Inventory itself).
	in, err := wsfolder.Inventory(root, wsfolder.InventoryOptions{Exclude: s.Settings().Exclude})
	if err != nil {
		return view.Input{}, err
	}
	c.mu.Lock()
	if c.views == nil {
		c.views = map[string]cachedView{}
	}
	c.views[root] = cachedView{gen: gen, in: in}
	c.mu.Unlock()
	return in, nil
}

// viewCached reports whether root's view is built and current.
func (part folderViews) viewCached(root string) bool {
	s := part.s
	c := &s.views
	c.mu.Lock()
	defer c.mu.Unlock()
	cv, ok := c.views[root]
	return ok && cv.gen == c.gen
}

// listView runs CommandListView.
func (part folderViews) listView(_ context.Context, args []json.RawMessage) (any, error) {
	s := part.s
	var a ListViewArgs
	if len(args) > 0 && len(args[0]) > 0 && string(args[0]) != "null" {
		if err := json.Unmarshal(args[0], &a); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "ahpls.listView: %v", err)
		}
	}
	var roots []string
	if a.Folder != "" {
		p, ok := uriPath(uri.URI(a.Folder))
		if !ok {
			p = a.Folder
		}
		roots = []string{p}
	} else {
		roots = s.Folders()
	}
	out := []FolderView{}
	for _, root := range roots {
		in, err := s.viewInput(root)
		if err != nil {
			return nil, err
		}
		in.Targets, in.State = a.Targets, a.State
		out = append(out, FolderView{Folder: root, URI: string(uri.File(root)), View: view.Build(in)})
	}
	return out, nil
}

// viewHover is the hover's first part on a customization file's first
// line: one line per consumer saying what it does with the file.
func (part folderViews) viewHover(ctx context.Context, u uri.URI) string {
	s := part.s
	loc, ok := s.locate(u)
	if !ok || loc.root == "" {
		return ""
	}
	if !s.viewCached(loc.root) {
		jsonrpc2.Async(ctx) // a walk of the folder: do not hold the read loop
	}
	in, err := s.viewInput(loc.root)
	if err != nil {
		return ""
	}
	lines := view.Build(in).Summary(loc.rel)
	if len(lines) == 0 {
		return ""
	}
	return "**What each agent sees**\n\n- " + strings.Join(lines, "\n- ")
}
