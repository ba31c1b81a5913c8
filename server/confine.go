package server

import (
	"path/filepath"

	"go.lsp.dev/uri"

	"github.com/ahpls-dev/ahpls/model"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// The editor applies the edits the server offers wherever their paths
// lead, symlinks included (and with fix-on-save, unasked). So a quick fix,
// fix-all or rename never names a file whose real path is outside the
// diagnosed file's workspace folder, and a link or definition never points
// through a symlink out of it: the same checks the CLI's writer makes
// (wsfs.EditTarget, wsfs.Confined).

// editable reports whether an edit of target may be offered for a file at
// loc: target resolves inside loc's workspace folder (the file's own
// folder outside every workspace folder) and is a regular file, or does
// not exist yet and would be created inside.
func editable(loc location, target uri.URI) bool {
	p, ok := uriPath(target)
	if !ok {
		return false
	}
	root := loc.root
	if root == "" {
		root = filepath.Dir(loc.path)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return false
	}
	err = wsfs.EditTarget(root, filepath.ToSlash(rel))
	if err == nil {
		return true
	}
	return wsfs.ReasonOf(err) == wsfs.NotExist && wsfs.Confined(root, p)
}

// editCache remembers editable's answers for one request: a file with
// many findings asks about the same few targets again and again.
type editCache map[uri.URI]bool

// fixEditable reports whether every edit of fix may be offered.
func (c editCache) fixEditable(self uri.URI, loc location, fix model.Fix) bool {
	for _, e := range fix.Edits {
		t := relatedURI(self, loc, e.Path)
		ok, seen := c[t]
		if !seen {
			ok = editable(loc, t)
			c[t] = ok
		}
		if !ok {
			return false
		}
	}
	return true
}
