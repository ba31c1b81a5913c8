package wsfolder

import (
	"io/fs"
	"path"
	"time"

	"github.com/ahpls-dev/ahpls/diagnostics"
	"github.com/ahpls-dev/ahpls/wsfs"
)

// Overlay supplies an open buffer's text by its slash path below the
// folder: an editor's unsaved text wins over the disk and counts as an
// existing file.
type Overlay func(rel string) ([]byte, bool)

// FS is diagnostics.WorkspaceFS (with ReadFile and ReadDir) over one
// folder, through the safe reader: symlinks resolve inside it only. Seen,
// when set, answers existence from a walk's record (links in Markdown, a
// parent skill's SKILL.md: thousands of stats in a large check), falling
// back to the disk for what the walk did not see; Overlay, when set, adds
// open buffers.
type FS struct {
	Root    *wsfs.Root
	Seen    *wsfs.Seen
	Overlay Overlay
	// Trees, when set (one check run or one scan), keeps the subagent
	// trees the duplicate check listed and read, for the run's other
	// files (diagnostics.TreeMemo): each tree is read once, not once per
	// subagent (issue #42). nil: each check reads the tree itself.
	Trees *diagnostics.AgentTrees
}

// AgentTrees implements diagnostics.TreeMemo.
func (f FS) AgentTrees() *diagnostics.AgentTrees { return f.Trees }

// DirFS is FS over folder dir on disk, without a walk or buffers.
func DirFS(dir string) FS { return FS{Root: wsfs.NewRoot(dir)} }

func (f FS) buffer(rel string) ([]byte, bool) {
	if f.Overlay == nil {
		return nil, false
	}
	return f.Overlay(rel)
}

// Stat implements diagnostics.WorkspaceFS. A symlink that leads out of the
// folder is a missing file.
func (f FS) Stat(rel string) (fs.FileInfo, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	if fi, err, known := f.Seen.Stat(rel); known {
		if err == nil {
			return fi, nil
		}
		if b, ok := f.buffer(rel); ok {
			return bufferInfo{name: path.Base(rel), size: int64(len(b))}, nil
		}
		return nil, err
	}
	st, err := f.Root.Stat(rel)
	if err == nil {
		return st, nil
	}
	if wsfs.ReasonOf(err) == wsfs.OutsideRoot {
		return nil, fs.ErrNotExist
	}
	if b, ok := f.buffer(rel); ok {
		return bufferInfo{name: path.Base(rel), size: int64(len(b))}, nil
	}
	return nil, err
}

// ReadFile implements diagnostics.WorkspaceReader for the cross-file rules
// (a parent skill that links a nested one, CLAUDE.md imports, manifest
// copies): an open buffer wins, else the disk, never outside the folder;
// it reads at most one byte over the rules' size limit.
func (f FS) ReadFile(rel string) ([]byte, error) {
	if !fs.ValidPath(rel) {
		return nil, notExist(rel)
	}
	if b, ok := f.buffer(rel); ok {
		return b, nil
	}
	if f.Seen.Absent(rel) {
		return nil, notExist(rel)
	}
	return f.Root.Read(rel, diagnostics.MaxFileSize+1)
}

// ReadDir implements diagnostics.WorkspaceLister for rules that compare
// siblings (duplicate skill and subagent names), with Stat's confinement.
func (f FS) ReadDir(rel string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	return f.Root.ReadDir(rel)
}

// bufferInfo describes an open buffer that is not on disk yet.
type bufferInfo struct {
	name string
	size int64
}

func (b bufferInfo) Name() string       { return b.name }
func (b bufferInfo) Size() int64        { return b.size }
func (b bufferInfo) Mode() fs.FileMode  { return 0o644 }
func (b bufferInfo) ModTime() time.Time { return time.Time{} }
func (b bufferInfo) IsDir() bool        { return false }
func (b bufferInfo) Sys() any           { return nil }
