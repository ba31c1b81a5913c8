package virtualplugin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSymlinkMayNotLeaveItsSkill: a link inside a skill folder to a file of
// the workspace outside that skill (its .env) was published as part of the
// skill; only links that stay inside the skill's own folder are.
func TestSymlinkMayNotLeaveItsSkill(t *testing.T) {
	root := sampleWorkspace(t, t.TempDir())
	write(t, root, ".env", "TOKEN=hunter2\n")
	require.NoError(t, os.Symlink("../../../.env", filepath.Join(root, ".github/skills/lint/env.md")))
	require.NoError(t, os.Symlink("scripts/run.sh", filepath.Join(root, ".github/skills/lint/run.sh")))
	_, snap := build(t, root)
	ws := snap.Plugins[0]
	assert.NotContains(t, vpaths(ws), "skills/lint/env.md", "a link out of the skill folder is not part of the skill")
	assert.Contains(t, vpaths(ws), "skills/lint/run.sh", "a link inside the skill folder is")
	srv := NewServer()
	srv.Publish(snap)
	_, err := srv.Read(ws.URI+"/skills/lint/env.md", "")
	require.Error(t, err)
	res, err := srv.Read(ws.URI+"/skills/lint/run.sh", "")
	require.NoError(t, err)
	assert.Equal(t, "#!/bin/sh\necho lint\n", res.Data)

	// Swapped after publication for a link to .env: refused, and the error
	// names no path.
	skill := filepath.Join(root, ".claude/skills/review/SKILL.md")
	require.NoError(t, os.Remove(skill))
	require.NoError(t, os.Symlink("../../../.env", skill))
	_, err = srv.Read(ws.URI+"/skills/review/SKILL.md", "")
	var ae *Error
	require.True(t, errors.As(err, &ae))
	assert.Equal(t, CodePermissionDenied, ae.Code, ae.Message)
	assert.NotContains(t, ae.Message, root)
	assert.NotContains(t, ae.Message, "hunter2")
}
