//go:build unix

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// procTree is the Unix handle on a tool's process tree: the leader heads a
// new process group (Setpgid, so pgid = its pid) and one kill(-pgid)
// reaches every descendant that stays in the group. On Linux the tree is
// also tagged so that descendants that leave the group (setsid) are found
// and killed on release (proc_linux.go); on other Unix systems they escape.
type procTree struct {
	pgid   int
	marker string // environment tag of this run; "" where unused
}

func startTree(cmd *exec.Cmd) (*procTree, error) {
	t := &procTree{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	prepareTree(t, cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t.pgid = cmd.Process.Pid
	return t, nil
}

// terminate asks the group to stop (SIGTERM); kill follows after killGrace.
func (t *procTree) terminate() { signalGroup(t.pgid, syscall.SIGTERM) }

// kill sends SIGKILL to the whole group.
func (t *procTree) kill() { signalGroup(t.pgid, syscall.SIGKILL) }

// release runs once the leader has been reaped: whatever is left of the
// group is killed, and on Linux escaped descendants are hunted down.
func (t *procTree) release() {
	signalGroup(t.pgid, syscall.SIGKILL)
	sweepEscaped(t)
}

// signalGroup signals every process in the group. ESRCH (group already
// empty) is the normal end state and not an error.
func signalGroup(pgid int, sig syscall.Signal) {
	if pgid <= 1 {
		return // never kill(-1) or our own group by accident
	}
	_ = syscall.Kill(-pgid, sig)
}

func killedBySignal(ee *exec.ExitError) (os.Signal, bool) {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal(), true
	}
	return nil, false
}
