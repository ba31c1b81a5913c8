package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ahpls-dev/ahpls/ahptest"
	"github.com/ahpls-dev/ahpls/demo"
	"github.com/ahpls-dev/ahpls/virtualplugin"
)

// lockedBuffer collects the child's stderr, which os/exec copies on its
// own goroutine while the test may read it for a failure message.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hostedWorkspace is a copy of the example workspace with the in-repo AHP
// host on loopback and one session on that workspace; the host reports
// every schema or protocol violation into violations.
type hostedWorkspace struct {
	host    *ahptest.Host
	url     string
	ws      string
	session string

	mu         sync.Mutex
	violations []error
}

func newHostedWorkspace(t *testing.T, title string) *hostedWorkspace {
	t.Helper()
	src, err := demo.FindExampleWorkspace()
	require.NoError(t, err)
	h := &hostedWorkspace{ws: filepath.Join(t.TempDir(), "ws")}
	require.NoError(t, os.CopyFS(h.ws, os.DirFS(src)))
	h.host = ahptest.New(ahptest.Options{ProtocolVersions: []string{"1.0.0", "0.9.0", "0.8.0"}, OnViolation: func(err error) {
		h.mu.Lock()
		h.violations = append(h.violations, err)
		h.mu.Unlock()
	}})
	h.url, err = h.host.Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.host.Close() })
	h.session = h.host.CreateSession(ahptest.SessionSpec{Title: title, WorkingDirectories: []string{virtualplugin.FolderURI(h.ws)}})
	return h
}

func (h *hostedWorkspace) Violations() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.violations...)
}

// startServer runs the built binary as an editor would, connected to the
// host through AHPLS_HOST, with its state in a temp dir.
func (h *hostedWorkspace) startServer(t *testing.T, bin string) (cmd *exec.Cmd, rwc procRWC, stderr *lockedBuffer) {
	t.Helper()
	cmd = exec.Command(bin)
	cmd.Env = append(os.Environ(), "AHPLS_HOST="+h.url, "XDG_STATE_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr = &lockedBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, procRWC{stdout, stdin}, stderr
}
